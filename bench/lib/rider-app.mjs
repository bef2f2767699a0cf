// A simulated rider app: polls its offers, takes the job it was sent for, and walks it to
// `delivered` over the rider API, noting when each request was sent and answered.
import { apiClient, sleep } from './client.mjs';

/** Each rider action and the webhook event its status change emits. */
export const STEPS = [
  { action: 'accept', event: 'delivery.accepted' },
  { action: 'pickup', event: 'delivery.picked_up' },
  { action: 'depart', event: 'delivery.in_transit' },
  { action: 'deliver', event: 'delivery.delivered' },
];

export function riderApp(baseUrl, rider) {
  const client = apiClient(baseUrl, rider.riderToken);

  async function waitForOffer(deliveryId, { pollMs = 250, timeoutMs = 60_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const res = await client.get('/rider/offers');
      if (res.status === 200 && res.body.some((offer) => offer.delivery_id === deliveryId)) return;
      await sleep(pollMs);
    }
    throw new Error(`no offer of ${deliveryId} reached rider ${rider.riderId}`);
  }

  async function act(deliveryId, action) {
    const sentAt = performance.now();
    const res = await client.post(`/rider/deliveries/${deliveryId}/${action}`);
    const answeredAt = performance.now();
    if (res.status !== 200) throw new Error(`${action} of ${deliveryId}: ${res.status} ${JSON.stringify(res.body)}`);
    return { sentAt, answeredAt, body: res.body, serverTiming: res.headers.get('server-timing') };
  }

  async function ping(point) {
    await client.post('/rider/location', { lat: point.lat, lng: point.lng });
  }

  return {
    riderId: rider.riderId,
    waitForOffer,
    act,
    ping,
    /**
     * Takes the job and carries it to the drop-off, pausing `stepMs` between actions as a rider
     * rides and `acceptAfterMs` between seeing the offer and taking it; `from` is the step to
     * start at. Returns each step's send and answer times.
     */
    async drive(job, { stepMs = 0, acceptAfterMs = 0, from = 0, until = STEPS.length } = {}) {
      const done = [];
      if (from === 0) {
        await waitForOffer(job.id);
        if (acceptAfterMs > 0) await sleep(acceptAfterMs);
      }
      for (const [index, step] of STEPS.entries()) {
        if (index < from || index >= until) continue;
        if (step.action === 'pickup') await ping({ lat: job.pickup_lat, lng: job.pickup_lng });
        if (step.action === 'deliver') await ping({ lat: job.dropoff_lat, lng: job.dropoff_lng });
        const timing = await act(job.id, step.action);
        done.push({ ...step, ...timing });
        // Back to the stand at the market, where the next job will find the rider.
        if (step.action === 'deliver') await ping({ lat: rider.lat, lng: rider.lng });
        if (stepMs > 0 && index < until - 1) await sleep(stepMs);
      }
      return done;
    },
  };
}
