import { randomUUID } from 'node:crypto';
import { createRetentionActivities } from '../../activities/retention';
import { callSessionStore, readDeliveryCalls } from '../../db/call-sessions';
import { readDeliveryTexts } from '../../db/sms-outbox';
import { REDACTED_NAME, REDACTED_PHONE } from '../../domain/retention';
import { LocalCallBridge } from '../../integrations/calling/local-bridge';
import { retentionWorkflow } from '../../workflows';
import { book, livePartner, stopBody } from '../helpers/bookings';
import { backdateDelivery, handoverPhotosOf, maskedCallRecipientsOf, tracesOf } from '../helpers/db-deliveries';
import { putInOutbox } from '../helpers/db-texts';
import { webhookBodiesOf, webhookEventsOf } from '../helpers/db-webhooks';
import { api, eventually } from '../helpers/http';
import { opsRefusal, ops } from '../helpers/operator-commands';
import { ghanaMobile } from '../helpers/partners';
import { riderApp } from '../helpers/riders';
import { startTestStack, type TestStack } from '../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A rider's hand-over with a photo, as the rider app sends it. */
async function handOverWithPhoto(riderToken: string, path: string): Promise<number> {
  const form = new FormData();
  form.append('photo', new Blob([PNG], { type: 'image/png' }), 'door.png');
  const res = await fetch(`${stack.baseUrl}/api/v1${path}`, { method: 'POST', headers: { Authorization: `Bearer ${riderToken}` }, body: form });
  return res.status;
}

/** A live `photo` delivery with one stop, walked to `delivered` by a rider who called the recipient through the masked number. */
async function deliveredWithPhotos(partner: Awaited<ReturnType<typeof livePartner>>, recipient: { name: string; phone: string }) {
  const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwesi Retention');
  const stopPhone = ghanaMobile('20');
  const created = await book(stack.baseUrl, partner.liveKey, {
    verification_method: 'photo',
    recipient_name: recipient.name,
    recipient_phone: recipient.phone,
    package_description: `Ring ${recipient.name} on ${recipient.phone}`,
    additional_stops: [stopBody({ recipient_name: 'Efua Asante', recipient_phone: stopPhone, package_description: 'Blue gate' })],
  });
  const job = await rider.take(created.id);
  expect(await new LocalCallBridge(callSessionStore(() => stack.orm.em.fork())).placeCall(job.call.via)).toEqual({ bridged: true, to: recipient.phone });
  expect((await rider.pickup(created.id)).status).toBe(200);
  expect((await rider.depart(created.id)).status).toBe(200);
  expect(await handOverWithPhoto(rider.riderToken, `/rider/deliveries/${created.id}/stops/0/complete`)).toBe(200);
  expect(await handOverWithPhoto(rider.riderToken, `/rider/deliveries/${created.id}/deliver`)).toBe(200);
  await eventually(async () => (await webhookEventsOf(stack.orm, created.id)).some((e) => e.event === 'delivery.delivered'), 10_000, 'the delivered event');
  return { ...created, stopPhone };
}

describe('recipients of finished deliveries', () => {
  it('are redacted everywhere RETENTION_DAYS after the delivery ended, while recent and active ones keep theirs', async () => {
    const partner = await livePartner(stack);
    const oldPhone = ghanaMobile('24');
    const old = await deliveredWithPhotos(partner, { name: 'Ama Serwaa Mensah', phone: oldPhone });
    const photos = await handoverPhotosOf(stack.orm, old.id);
    expect(photos).toHaveLength(2);
    await backdateDelivery(stack.orm, old.id, 91);

    const recentPhone = ghanaMobile('24');
    const recent = await book(stack.baseUrl, partner.liveKey, { recipient_name: 'Kojo Recent', recipient_phone: recentPhone });
    expect((await partner.client.post(`/partner/deliveries/${recent.id}/cancel`)).status).toBe(200);
    const activePhone = ghanaMobile('24');
    const active = await book(stack.baseUrl, partner.liveKey, { recipient_name: 'Abena Active', recipient_phone: activePhone, verification_method: 'otp' });
    await eventually(async () => (await readDeliveryTexts(stack.orm.em.fork(), active.id)).length === 1, 10_000, 'the active job’s code');
    // Booked 91 days ago too, but under way: its rider still needs the name and the number.
    await backdateDelivery(stack.orm, active.id, 91);

    // One round, as the daily Schedule starts it with RETENTION_DAYS=90.
    const report = await stack.temporal.workflow.execute(retentionWorkflow, {
      workflowId: `retention-test-${randomUUID()}`,
      taskQueue: stack.settings.temporalTaskQueue,
      args: [{ retentionDays: 90, batch: 2 }],
    });
    expect(report.redacted).toBeGreaterThanOrEqual(1);

    // The partner's record still answers (valid against the contract's schema: the stack checks every answer).
    const record = await partner.client.get(`/partner/deliveries/${old.id}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      status: 'delivered',
      recipient_name: REDACTED_NAME,
      recipient_phone: REDACTED_PHONE,
      package_description: null,
      total_fare: old.total_fare,
      additional_stops: [{ recipient_name: REDACTED_NAME, recipient_phone: REDACTED_PHONE, package_description: null, status: 'delivered' }],
    });
    expect(record.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    const tracking = await api(stack.baseUrl).get(`/track/${old.id}/public`);
    expect(tracking.status).toBe(200);
    expect(tracking.body.recipient_name).toBe(REDACTED_NAME);

    // Every other copy: callback bodies (the log stays), masked-call sessions and their log, photos.
    expect(await webhookBodiesOf(stack.orm, old.id)).toEqual([null, null, null, null]);
    const log = (await partner.client.get('/partner/webhook/deliveries?limit=100')).body as { delivery_id: string; event: string; state: string }[];
    expect(log.filter((entry) => entry.delivery_id === old.id).map((entry) => entry.event).sort()).toEqual([
      'delivery.accepted',
      'delivery.delivered',
      'delivery.in_transit',
      'delivery.picked_up',
    ]);
    expect(await maskedCallRecipientsOf(stack.orm, old.id)).toEqual([REDACTED_PHONE, REDACTED_PHONE]);
    expect((await readDeliveryCalls(stack.orm.em.fork(), old.id)).map((call) => call.bridged_to)).toEqual([REDACTED_PHONE]);
    expect(await handoverPhotosOf(stack.orm, old.id)).toEqual([]);
    for (const photo of photos) expect(await stack.deps.photos.get(photo.storage_key)).toBeNull();
    const everything = JSON.stringify([record.body, await readDeliveryCalls(stack.orm.em.fork(), old.id)]);
    for (const personal of [oldPhone, old.stopPhone, 'Ama', 'Efua', 'Blue gate']) expect(everything).not.toContain(personal);

    // A callback without its body cannot be sent again, and asking changes nothing.
    const [accepted] = await webhookEventsOf(stack.orm, old.id);
    const redeliver = await partner.client.post(`/partner/webhook/deliveries/${accepted!.id}/redeliver`);
    expect(redeliver.status).toBe(400);
    expect(redeliver.body.error).toMatchObject({ code: 'bad_request', details: { id: expect.any(String) } });
    expect((await webhookEventsOf(stack.orm, old.id))[0]).toEqual(accepted);

    // The delivery that ended just now, and the one under way, keep everything.
    expect((await partner.client.get(`/partner/deliveries/${recent.id}`)).body).toMatchObject({ recipient_name: 'Kojo Recent', recipient_phone: recentPhone });
    expect(await webhookBodiesOf(stack.orm, recent.id)).toEqual([expect.stringContaining(recentPhone)]);
    expect((await partner.client.get(`/partner/deliveries/${active.id}`)).body).toMatchObject({ recipient_name: 'Abena Active', recipient_phone: activePhone });
    expect(await readDeliveryTexts(stack.orm.em.fork(), active.id)).toEqual([expect.objectContaining({ to: activePhone })]);
    await partner.client.post(`/partner/deliveries/${active.id}/cancel`);
  });
});

describe('hand-over codes', () => {
  it('are kept while the job is active and removed, texts and hashes, the moment it ends', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', additional_stops: [stopBody()] });
    await eventually(async () => (await readDeliveryTexts(stack.orm.em.fork(), created.id)).length === 2, 10_000, 'both codes texted');
    expect(await tracesOf(stack.orm, created.id)).toMatchObject({ sms_outbox: 2, delivery_otps: 2 });

    expect((await partner.client.post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    expect(await tracesOf(stack.orm, created.id)).toMatchObject({ sms_outbox: 0, delivery_otps: 0 });
  });

  it('written as their job ended are removed by the daily round; an active job keeps its own', async () => {
    const partner = await livePartner(stack);
    const ended = await book(stack.baseUrl, partner.liveKey);
    expect((await partner.client.post(`/partner/deliveries/${ended.id}/cancel`)).status).toBe(200);
    const active = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp' });
    await eventually(async () => (await readDeliveryTexts(stack.orm.em.fork(), active.id)).length === 1, 10_000, 'the active job’s code');
    // A code that reached the outbox just after its job was cancelled.
    await putInOutbox(stack.orm, '+233241234567', 'Give the rider this code only when you have it: 123456', {}, ended.id);

    const { forgetShortLivedCopies } = createRetentionActivities(stack.deps);
    expect((await forgetShortLivedCopies()).codeTexts).toBeGreaterThanOrEqual(1);
    expect(await readDeliveryTexts(stack.orm.em.fork(), ended.id)).toEqual([]);
    expect(await readDeliveryTexts(stack.orm.em.fork(), active.id)).toHaveLength(1);
    await partner.client.post(`/partner/deliveries/${active.id}/cancel`);
  });
});

describe('a recipient who asks for their data to be removed', () => {
  it('is forgotten by an operator at once in every finished delivery naming their phone; a job under way keeps it', async () => {
    const partner = await livePartner(stack);
    const phone = ghanaMobile('24');
    const atDropoff = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const atStop = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody({ recipient_phone: phone })] });
    for (const { id } of [atDropoff, atStop]) expect((await partner.client.post(`/partner/deliveries/${id}/cancel`)).status).toBe(200);
    const underWay = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });

    const forgotten = await ops('recipient:forget', '--phone', `0${phone.slice(4)}`);
    expect(forgotten).toEqual({ redacted: expect.arrayContaining([atDropoff.id, atStop.id]), still_active: [underWay.id] });
    expect(forgotten.redacted).toHaveLength(2);
    expect((await partner.client.get(`/partner/deliveries/${atDropoff.id}`)).body.recipient_phone).toBe(REDACTED_PHONE);
    // The whole delivery is redacted, every recipient of it, as the daily round would.
    expect((await partner.client.get(`/partner/deliveries/${atStop.id}`)).body).toMatchObject({
      recipient_phone: REDACTED_PHONE,
      additional_stops: [{ recipient_phone: REDACTED_PHONE }],
    });

    expect(await opsRefusal('recipient:forget', '--delivery', underWay.id)).toEqual({
      code: 2,
      output: { error: expect.stringMatching(/^The delivery is pending: its rider needs the recipients' names and numbers until it ends/) },
    });
    expect((await partner.client.get(`/partner/deliveries/${underWay.id}`)).body.recipient_phone).toBe(phone);
    await partner.client.post(`/partner/deliveries/${underWay.id}/cancel`);
    expect(await ops('recipient:forget', '--delivery', underWay.id)).toEqual({ delivery_id: underWay.id, redacted: true });
    expect((await partner.client.get(`/partner/deliveries/${underWay.id}`)).body.recipient_phone).toBe(REDACTED_PHONE);
  });
});
