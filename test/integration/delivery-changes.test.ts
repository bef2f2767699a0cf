import { startTestStack, type TestStack } from '../helpers/stack';
import { eventually } from '../helpers/http';
import { ACCRA, book, livePartner, stopBody } from '../helpers/bookings';
import { debitsOf, ledgerOf, reverseOnLedger } from '../helpers/db-payments';
import { riderApp } from '../helpers/riders';
import { randomUUID } from 'node:crypto';
import { readOutbox } from '../../db/sms-outbox';
import { requestRecheck } from '../../db/debits';
import { debitReconciliationWorkflow } from '../../workflows/debit-reconciliation';

/** `PATCH /partner/deliveries/{id}`: who receives each drop, and what the parcel is, until its hand-over. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

/** The code texted to `phone` for this delivery, newest first. */
async function codeTexted(phone: string, reference: string, after: Set<string> = new Set()): Promise<string> {
  const message = await eventually(
    async () => (await readOutbox(stack.orm.em.fork(), phone)).find((m) => m.body.includes(reference) && !after.has(m.body)),
    10_000,
    `a code texted to ${phone}`,
  );
  return /(\d{6})$/.exec(message.body)?.[1] as string;
}

describe('changing a booking', () => {
  it("changes the recipients and the parcel at once, in the partner's record and the rider's job, with no webhook", async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()], package_description: 'Two boxes' });
    await rider.take(created.id);

    const changed = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, {
      recipient_name: 'Efua Mensah',
      package_description: null,
      additional_stops: [{ index: 0, recipient_name: 'Kwame Boateng', recipient_phone: '+233201234567' }],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.id, status: 'accepted', recipient_name: 'Efua Mensah', package_description: null });
    expect(changed.body.recipient_phone).toBe(created.recipient_phone);
    expect(changed.body.additional_stops[0]).toMatchObject({ recipient_name: 'Kwame Boateng', recipient_phone: '+233201234567' });
    expect(changed.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted']);
    const read = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect([read.recipient_name, read.package_description, read.additional_stops[0].recipient_name]).toEqual(['Efua Mensah', null, 'Kwame Boateng']);

    const job = (await rider.client.get('/rider/deliveries/current')).body;
    expect(job.recipient_name).toBe('Efua Mensah');
    expect(job.stops[0].recipient_name).toBe('Kwame Boateng');
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('texts a new code to a changed phone on an otp delivery; the old code no longer delivers, the new one does', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: '+233244110011' });
    const oldCode = await codeTexted('+233244110011', created.reference);

    const changed = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_phone: '+233244110022' }, { 'Idempotency-Key': 'new-phone' });
    expect(changed.status).toBe(200);
    expect(changed.body.recipient_phone).toBe('+233244110022');
    const newCode = await codeTexted('+233244110022', created.reference);
    // The same change sent again is answered as before, and texts nobody again.
    const repeat = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_phone: '+233244110022' }, { 'Idempotency-Key': 'new-phone' });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toEqual(changed.body);
    expect((await readOutbox(stack.orm.em.fork(), '+233244110022')).filter((m) => m.body.includes(created.reference))).toHaveLength(1);

    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    if (oldCode !== newCode) {
      const refused = await rider.deliver(created.id, { otp: oldCode });
      expect(refused.status).toBe(400);
    }
    expect((await rider.deliver(created.id, { otp: newCode })).status).toBe(200);
  });

  it('refuses a stop already handed over, and any change once delivered, with the status in details; nothing changes', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    await rider.completeStop(created.id, 0);

    const late = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { additional_stops: [{ index: 0, recipient_name: 'Too late' }] });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ code: 'bad_request', details: { status: 'in_transit', additional_stops: 'stop 0 is already handed over' } });
    const missing = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { additional_stops: [{ index: 3, recipient_name: 'Nobody' }] });
    expect(missing.status).toBe(400);

    await rider.deliver(created.id);
    const ended = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_name: 'After the fact' });
    expect(ended.status).toBe(400);
    expect(ended.body.error.details.status).toBe('delivered');
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.recipient_name).toBe(created.recipient_name);
  });

  it('refuses what it cannot change (half a coordinate, a point outside the area, an unknown field, nothing at all, a bad phone), and other partners’ deliveries', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey);
    const patch = (body: unknown) => partner.client.call('PATCH', `/partner/deliveries/${created.id}`, body);
    const bodies = [
      { dropoff_lat: 5.6 },
      { dropoff_lat: 0, dropoff_lng: 0 },
      { dropoff_address: '' },
      { recipient_name: 'Ama', pickup_address: 'Osu' },
      {},
      { dry_run: true },
      { recipient_phone: '0244' },
      { additional_stops: [{ index: 0 }] },
      { recipient_name: '' },
    ];
    for (const body of bodies) {
      const res = await patch(body);
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), 400, 'bad_request']);
    }
    expect((await patch({ dropoff_lat: 5.6 })).body.error.details).toEqual({ dropoff_lng: 'is required with dropoff_lat' });
    expect((await patch({ dropoff_lat: 0, dropoff_lng: 0 })).body.error.details).toEqual({ dropoff_lat: 'outside the service area' });
    expect((await patch({ recipient_name: 'Ama', pickup_address: 'Osu' })).body.error.details).toEqual({ pickup_address: 'cannot be changed' });
    // A misspelled field is refused, never dropped: a `dryRun` taken for real would move the drop and debit.
    const misspelled = await patch({ dryRun: true, dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, additional_stops: [{ index: 0, recipent_name: 'Ama' }] });
    expect(misspelled.status).toBe(400);
    expect(misspelled.body.error).toMatchObject({
      code: 'bad_request',
      message: 'Unknown fields: dryRun, additional_stops[0].recipent_name',
      details: {
        dryRun: 'is not a field of this request; did you mean dry_run?',
        'additional_stops[0].recipent_name': 'is not a field of this request; did you mean recipient_name?',
      },
    });
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body).toMatchObject({ dropoff_lat: created.dropoff_lat, fare_changes: [] });
    const other = await livePartner(stack);
    expect((await other.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_name: 'Mine now' })).status).toBe(404);
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.recipient_name).toBe(created.recipient_name);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('moves a drop while pending: a dry run tells the fare first, a higher fare debits its difference on its own, a lower one refunds nothing, and a rise back debits nothing twice', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey, { dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng, dropoff_address: 'Osu' });
    const patch = (body: unknown, key?: string) =>
      partner.client.call('PATCH', `/partner/deliveries/${created.id}`, body, key ? { 'Idempotency-Key': key } : {});
    const farther = { dropoff_address: 'University of Ghana, Legon', dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng };

    const preview = await patch({ ...farther, dry_run: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ dry_run: true, status: 'pending', fare_before: { total_fare: created.total_fare }, refund_amount: 0 });
    const higher = preview.body.fare_after.total_fare as number;
    expect(higher).toBeGreaterThan(created.total_fare);
    expect(preview.body.debit_amount).toBeCloseTo(higher - created.total_fare, 2);
    expect(preview.body.message).toMatch(/will be debited on its own\. Nothing has changed yet\.$/);
    // A dry run changes nothing.
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body).toMatchObject({ dropoff_address: 'Osu', total_fare: created.total_fare, fare_changes: [] });

    const moved = await patch(farther, 'to-legon');
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ ...farther, status: 'pending', total_fare: higher, payment_status: expect.any(String) });
    expect(moved.body.fare_changes).toEqual([
      { previous_total_fare: created.total_fare, total_fare: higher, debit_amount: preview.body.debit_amount, debit_status: 'pending', created_at: expect.any(String) },
    ]);
    expect((await patch(farther, 'to-legon')).body).toEqual(moved.body);

    // Two debits, each settled by the network under its own reference: the fare as booked, and the difference.
    const paid = await eventually(async () => {
      const read = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
      return read.payment_status === 'paid' && read.fare_changes[0].debit_status === 'paid' ? read : undefined;
    }, 15_000, 'both debits paid');
    expect(paid.amount_paid).toBeCloseTo(higher, 2);
    const ledger = await ledgerOf(stack.orm, [created.id, `${created.id}.1`]);
    expect(ledger.map((l) => [l.reference, l.amount, l.state])).toEqual([
      [created.id, Math.round(created.total_fare * 100), 'paid'],
      [`${created.id}.1`, Math.round((higher - created.total_fare) * 100), 'paid'],
    ]);

    // Back nearer: a lower fare, nothing debited and nothing refunded.
    const nearer = await patch({ dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng });
    expect(nearer.body.total_fare).toBe(created.total_fare);
    expect(nearer.body.fare_changes[1]).toMatchObject({ previous_total_fare: higher, total_fare: created.total_fare, debit_amount: 0, debit_status: null });
    expect(nearer.body.amount_paid).toBeCloseTo(higher, 2);
    const twoDebits = [Math.round(created.total_fare * 100), Math.round((higher - created.total_fare) * 100)];
    expect((await debitsOf(stack.orm, created.id)).map((d) => d.amount)).toEqual(twoDebits);

    // Out to Legon again: that fare was debited once already, so nothing more is, and the preview says so.
    const again = await patch({ ...farther, dry_run: true });
    expect(again.body).toMatchObject({ fare_before: { total_fare: created.total_fare }, fare_after: { total_fare: higher }, debit_amount: 0 });
    expect(again.body.message).toMatch(/^The fare rises, but no higher than what was already debited: nothing more is debited\./);
    const returned = await patch(farther);
    expect(returned.body.total_fare).toBe(higher);
    expect(returned.body.fare_changes[2]).toMatchObject({ previous_total_fare: created.total_fare, total_fare: higher, debit_amount: 0, debit_status: null });
    expect(returned.body.amount_paid).toBeCloseTo(higher, 2);
    expect((await debitsOf(stack.orm, created.id)).map((d) => d.amount)).toEqual(twoDebits);

    // The rider who takes the job sees where it goes now; from then on places are refused.
    const rider = await riderApp(stack.baseUrl, stack.orm);
    await rider.take(created.id);
    const job = (await rider.client.get('/rider/deliveries/current')).body;
    expect([job.dropoff_lat, job.dropoff_lng, job.dropoff_address]).toEqual([ACCRA.legon.lat, ACCRA.legon.lng, 'University of Ghana, Legon']);
    const late = await patch({ dropoff_address: 'Elsewhere' });
    expect(late.status).toBe(400);
    expect(late.body.error.details).toEqual({ status: 'accepted' });
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('moves a stop while pending, and keeps a reversed change debit to the network’s word', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    const moved = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, {
      additional_stops: [{ index: 0, dropoff_address: 'Legon', dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng }],
    });
    expect(moved.status).toBe(200);
    expect(moved.body.additional_stops[0]).toMatchObject({ dropoff_address: 'Legon', dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng });
    expect(moved.body.fare_changes[0].debit_amount).toBeGreaterThan(0);
    const reference = `${created.id}.1`;
    await eventually(async () => (await ledgerOf(stack.orm, reference))[0]?.state === 'paid', 15_000, 'the change debit paid');
    await eventually(async () => (await partner.client.get(`/partner/deliveries/${created.id}`)).body.fare_changes[0].debit_status === 'paid', 15_000, 'recorded paid');

    // The network reverses it; a late report asks for a check, and the reconciliation's round
    // sets the record to the network's word.
    await reverseOnLedger(stack.orm, reference, 'Reversed by the network');
    expect(await requestRecheck(stack.orm.em.fork(), reference)).toBe(true);
    const round = await stack.temporal.workflow.execute(debitReconciliationWorkflow, {
      taskQueue: stack.settings.temporalTaskQueue,
      workflowId: `debit-reconciliation-${randomUUID()}`,
      args: [{ pendingAfterSeconds: 3600, batch: 100 }],
    });
    expect(round.corrected).toBeGreaterThanOrEqual(1);
    const read = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect(read.fare_changes[0].debit_status).toBe('failed');
    expect(read.payment_status).toBe('paid');
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });
});
