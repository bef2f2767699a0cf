import { createStreetWatchActivities } from '../../activities/street-watch';
import type { ActivityDeps } from '../../activities/deps';
import { deliveryWorkflowId } from '../../domain/reference';
import { ACCRA, book, bookingBody, livePartner, registerAccount } from '../helpers/bookings';
import { deliveryRow, offersMadeFor } from '../helpers/db-deliveries';
import { expireRiderToken, riderRow, silenceRider } from '../helpers/db-riders';
import { webhookEventsOf } from '../helpers/db-webhooks';
import { api, eventually } from '../helpers/http';
import { operatorCommands } from '../helpers/operator-commands';
import { sandboxRiderId } from '../../db/riders';
import { silentJobs } from '../../db/street-watch';
import { makePartner, makeRider } from '../helpers/partners';
import { riderApp } from '../helpers/riders';
import { startTestStack, type TestStack } from '../helpers/stack';

/** Short enough to see in a test: silent for 3 s needs attention, for 6 s goes offline, 5 s old is stale. */
const STREET = { RIDER_SILENT_MINUTES: '0.05', RIDER_OFFLINE_MINUTES: '0.1', RIDER_FRESH_SECONDS: '5' };

let stack: TestStack;
let watch: ReturnType<typeof createStreetWatchActivities>['watchTheStreet'];
beforeAll(async () => {
  stack = await startTestStack({ env: STREET });
  const { orm, temporal, logger, settings } = stack.deps;
  // One round of the street watch, as its Schedule runs it; called here so a test decides when.
  const deps: Pick<ActivityDeps, 'orm' | 'temporal' | 'logger' | 'settings'> = { orm, temporal, logger, settings };
  watch = createStreetWatchActivities(deps).watchTheStreet;
});
afterAll(async () => {
  await stack?.close();
});

/** The operator's commands, with the same short street settings as the stack. */
const { ops, opsRefusal } = operatorCommands(STREET);

async function needsAttention(deliveryId: string): Promise<unknown> {
  return (await stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).describe()).searchAttributes.NeedsAttention;
}

describe('ghost riders', () => {
  it('offers a job only to riders whose app sent a position lately', async () => {
    const partner = await livePartner(stack);
    const fresh = await makeRider(stack.orm, ACCRA.makola, 'Ama Fresh');
    const ghost = await makeRider(stack.orm, ACCRA.makola, 'Kojo Ghost');
    await silenceRider(stack.orm, ghost.riderId, { minutes: 2 });
    const created = await book(stack.baseUrl, partner.liveKey);
    await eventually(async () => (await offersMadeFor(stack.orm, created.id)).some((o) => o.rider_id === fresh.riderId), 10_000, 'the offer to the fresh rider');
    // A few widening rounds later, the rider whose app went quiet has still been offered nothing.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await offersMadeFor(stack.orm, created.id)).map((o) => o.rider_id)).not.toContain(ghost.riderId);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('sets a rider silent too long offline, tells the app why, and lets the rider go online again', async () => {
    const rider = await makeRider(stack.orm, ACCRA.makola, 'Yaw Quiet');
    const app = api(stack.baseUrl, rider.riderToken);
    expect((await app.get('/rider/availability')).body).toEqual({ online: true, offline_reason: null });
    await silenceRider(stack.orm, rider.riderId, { minutes: 1 });
    expect((await watch()).ridersSetOffline).toBeGreaterThanOrEqual(1);
    expect((await app.get('/rider/availability')).body).toEqual({ online: false, offline_reason: 'silent' });
    expect((await app.put('/rider/availability', { online: true })).status).toBe(200);
    expect((await app.get('/rider/availability')).body).toEqual({ online: true, offline_reason: null });
  });

  it('sets a rider offline when the token is revoked or has expired', async () => {
    const revoked = await makeRider(stack.orm, ACCRA.makola, 'Esi Revoked');
    const expired = await makeRider(stack.orm, ACCRA.makola, 'Kwame Expired');
    expect(await ops('rider:revoke', '--rider', revoked.riderId)).toEqual({ rider_id: revoked.riderId, revoked: true });
    expect(await riderRow(stack.orm, revoked.riderId)).toMatchObject({ online: false, offline_reason: 'signed_out' });
    await expireRiderToken(stack.orm, expired.riderId, { minutes: 1 });
    await watch();
    expect(await riderRow(stack.orm, expired.riderId)).toMatchObject({ online: false, offline_reason: 'signed_out' });
  });
});

describe('a job whose rider went silent', () => {
  it('is flagged for operators (log, list, NeedsAttention) and cleared once the rider is heard from', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kofi Silent');
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await rider.pickup(created.id)).status).toBe(200);
    await silenceRider(stack.orm, rider.riderId, { minutes: 1 });
    // The pickup itself is a step heard from: nothing is flagged until the silence is long enough.
    await watch();
    expect((await deliveryRow(stack.orm, created.id))?.attention_since).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await watch();
    const listed = (await ops('jobs:attention')).jobs.find((j: { delivery_id: string }) => j.delivery_id === created.id);
    expect(listed).toEqual({ delivery_id: created.id, status: 'picked_up', rider_id: rider.riderId, silent_since: expect.any(String) });
    expect(Date.parse(listed.silent_since)).toBeLessThan(Date.now() - 3_000);
    await eventually(async () => JSON.stringify(await needsAttention(created.id)) === '[true]', 5_000, 'NeedsAttention set');
    expect((await deliveryRow(stack.orm, created.id))?.attention_since).not.toBeNull();

    expect((await rider.client.post('/rider/location', ACCRA.makola)).status).toBe(204);
    await watch();
    // Read at once, within the 3 s of silence that flags a job: the ops command's own start-up can
    // take longer than that on a busy machine, and would then find the rider silent again.
    expect((await deliveryRow(stack.orm, created.id))?.attention_since).toBeNull();
    const silentSeconds = stack.deps.settings.riderSilentMinutes * 60;
    expect((await silentJobs(stack.orm.em.fork(), silentSeconds)).map((j) => j.delivery_id)).not.toContain(created.id);
    await eventually(async () => JSON.stringify(await needsAttention(created.id)) === '[false]', 5_000, 'NeedsAttention cleared');
    await rider.depart(created.id);
    expect((await rider.deliver(created.id)).status).toBe(200);
  });

  it('is never flagged when its partner drives it in the sandbox, however long it waits for the next step', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);
    const created = (await client.post('/partner/deliveries', bookingBody(), { 'Sandbox-Rider': 'manual' })).body;
    expect((await client.post(`/partner/deliveries/${created.id}/simulate`, { step: 'accept' })).status).toBe(200);
    await silenceRider(stack.orm, sandboxRiderId(created.id), { minutes: 1 });
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await watch();
    expect((await deliveryRow(stack.orm, created.id))?.attention_since).toBeNull();
    expect((await ops('jobs:attention')).jobs.map((j: { delivery_id: string }) => j.delivery_id)).not.toContain(created.id);
    await client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('is handed by an operator to another rider: the partner sees the new rider, no webhook, the old rider gets 404', async () => {
    const partner = await livePartner(stack);
    const kofi = await riderApp(stack.baseUrl, stack.orm, 'Kofi Dead Phone');
    const created = await book(stack.baseUrl, partner.liveKey);
    await kofi.take(created.id);
    expect((await kofi.pickup(created.id)).status).toBe(200);
    const events = (await webhookEventsOf(stack.orm, created.id)).length;

    const esi = await makeRider(stack.orm, ACCRA.makola, 'Esi Standby');
    const esiApp = api(stack.baseUrl, esi.riderToken);
    const moved = await ops('job:reassign', '--delivery', created.id, '--rider', esi.riderId);
    expect(moved).toEqual({ delivery_id: created.id, status: 'picked_up', rider_id: esi.riderId, offered_again: false });

    const record = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect(record).toMatchObject({ status: 'picked_up', rider_id: esi.riderId, rider: { id: esi.riderId } });
    const tracking = (await api(stack.baseUrl).get(`/track/${created.id}/public`)).body;
    expect(JSON.stringify(tracking)).toContain('Esi');
    expect((await webhookEventsOf(stack.orm, created.id)).length).toBe(events);

    expect((await kofi.depart(created.id)).status).toBe(404);
    expect((await kofi.client.get('/rider/deliveries/current')).status).toBe(404);
    expect((await esiApp.get('/rider/deliveries/current')).body).toMatchObject({ delivery_id: created.id, status: 'picked_up' });
    expect((await esiApp.post(`/rider/deliveries/${created.id}/depart`)).status).toBe(200);
    expect((await esiApp.post(`/rider/deliveries/${created.id}/deliver`)).status).toBe(200);
    const done = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
  });

  it('is refused a reassignment to a busy rider, and once it has been delivered', async () => {
    const partner = await livePartner(stack);
    const kofi = await riderApp(stack.baseUrl, stack.orm, 'Kofi Holding');
    const created = await book(stack.baseUrl, partner.liveKey);
    await kofi.take(created.id);
    const busy = await riderApp(stack.baseUrl, stack.orm, 'Ama Busy');
    const other = await book(stack.baseUrl, partner.liveKey);
    await busy.take(other.id);
    const refused = await opsRefusal('job:reassign', '--delivery', created.id, '--rider', busy.riderId);
    expect(refused).toMatchObject({ code: 2, output: { error: expect.stringMatching(/not free/) } });
    expect((await deliveryRow(stack.orm, created.id))?.rider_id).toBe(kofi.riderId);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    await partner.client.post(`/partner/deliveries/${other.id}/cancel`);
    const ended = await opsRefusal('job:reassign', '--delivery', created.id, '--rider', busy.riderId);
    expect(ended.output.error).toMatch(/cancelled/);
  });

  it('keeps a rider who holds a job from being revoked, unless the job is offered again first', async () => {
    const partner = await livePartner(stack);
    const kwesi = await riderApp(stack.baseUrl, stack.orm, 'Kwesi Leaving');
    const created = await book(stack.baseUrl, partner.liveKey);
    await kwesi.take(created.id);
    const refused = await opsRefusal('rider:revoke', '--rider', kwesi.riderId);
    expect(refused.output.error).toContain(created.id);
    expect((await kwesi.client.get('/rider/deliveries/current')).status).toBe(200);

    const revoked = await ops('rider:revoke', '--rider', kwesi.riderId, '--reassign');
    expect(revoked).toMatchObject({ rider_id: kwesi.riderId, revoked: true, reassigned: { delivery_id: created.id, status: 'accepted', rider_id: null } });
    expect(await deliveryRow(stack.orm, created.id)).toMatchObject({ status: 'accepted', rider_id: null });

    // Offered again near the pickup; a rider nearby takes it over as it stands, and picks it up next.
    const abena = await riderApp(stack.baseUrl, stack.orm, 'Abena Nearby');
    const taken = await abena.take(created.id);
    expect(taken).toMatchObject({ delivery_id: created.id, status: 'accepted' });
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body).toMatchObject({ status: 'accepted', rider_id: abena.riderId });
    expect((await abena.pickup(created.id)).status).toBe(200);
    await partner.client.get(`/partner/deliveries/${created.id}`);
    expect((await webhookEventsOf(stack.orm, created.id)).map((e) => e.event)).toEqual(['delivery.accepted', 'delivery.picked_up']);
  });
});
