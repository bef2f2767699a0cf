import type { Orm } from '../../db/orm';
import { api, eventually } from './http';
import { ghanaMobile, makeRider } from './partners';
import { setRider } from './db-riders';
import { ACCRA } from './bookings';

/** A rider app over HTTP: waits for an offer, then takes and walks the job. */
export async function riderApp(baseUrl: string, orm: Orm, name = 'Kofi Mensah', at = ACCRA.makola) {
  const rider = await makeRider(orm, at, name);
  const client = api(baseUrl, rider.riderToken);
  return {
    ...rider,
    client,
    async waitForOffer(deliveryId: string) {
      await eventually(
        async () => (await client.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === deliveryId),
        15_000,
        `offer of ${deliveryId}`,
      );
    },
    async take(deliveryId: string) {
      await this.waitForOffer(deliveryId);
      const res = await client.post(`/rider/deliveries/${deliveryId}/accept`);
      if (res.status !== 200) throw new Error(`accept: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    pickup: (id: string) => client.post(`/rider/deliveries/${id}/pickup`),
    depart: (id: string) => client.post(`/rider/deliveries/${id}/depart`),
    completeStop: (id: string, index: number, body?: unknown) => client.post(`/rider/deliveries/${id}/stops/${index}/complete`, body),
    deliver: (id: string, body?: unknown) => client.post(`/rider/deliveries/${id}/deliver`, body),
    /** Where the app says the rider is; the next step is recorded there. */
    at: (position: { lat: number; lng: number }) => client.post('/rider/location', position),
    /**
     * A hand-over with a photo, as the app sends it (multipart, field `photo`): `drop` is a stop's
     * index or `final`.
     */
    async handOverWithPhoto(id: string, drop: number | 'final', photo: Buffer, type = 'image/jpeg') {
      const response = await this.sendPhotoHandover(id, drop, photo, type);
      if (response.status !== 200) throw new Error(`${drop}: ${response.status} ${await response.text()}`);
    },
    /** The same, answered whatever the answer is. */
    sendPhotoHandover(id: string, drop: number | 'final', photo: Buffer, type = 'image/jpeg'): Promise<Response> {
      const form = new FormData();
      form.append('photo', new Blob([photo], { type }), 'handover');
      const step = drop === 'final' ? 'deliver' : `stops/${drop}/complete`;
      return fetch(`${baseUrl}/api/v1/rider/deliveries/${id}/${step}`, { method: 'POST', headers: { Authorization: `Bearer ${rider.riderToken}` }, body: form });
    },
  };
}

/** A rider app whose rider has a phone on record (`rider:create --phone`), for masked calls. */
export async function riderWithPhone(stack: { orm: Orm; baseUrl: string }, name: string) {
  const rider = await riderApp(stack.baseUrl, stack.orm, name);
  const phone = ghanaMobile('24');
  await setRider(stack.orm, rider.riderId, { phone });
  return { ...rider, phone };
}
