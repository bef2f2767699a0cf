import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readOutbox } from '../../db/sms-outbox';
import { deliveryWorkflowId } from '../../domain/reference';
import { bookingSweepWorkflow, debitReconciliationWorkflow, retentionWorkflow, streetWatchWorkflow } from '../../workflows';
import { attentionSignal, reassignUpdate } from '../../workflows/messages';
import { requestRecheck } from '../../db/debits';
import { book, bookingBody, commitBookingRow, registerAccount, SANDBOX, stopBody } from '../helpers/bookings';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { riderApp } from '../helpers/riders';
import type { TestStack } from '../helpers/stack';
import { backdateDelivery, deliveryAgeSeconds } from '../helpers/db-deliveries';
import { webhookEventsOf } from '../helpers/db-webhooks';
import { historyToJson } from './history-json';

/**
 * Runs every workflow through the paths it can take on the test stack and saves each history
 * as JSON, for the replay test to run against later code (`npm run record:histories`).
 */

/** Timers short enough to record an expiry in seconds. */
export const RECORDING_ENV = { DISPATCH_TIMEOUT_SECONDS: '5', BOOKING_ORPHAN_AFTER_SECONDS: '1' };

/** Each recorded history: its file name under test/workflow/histories/. */
export const SCENARIOS = [
  'delivery-test-mode-stops-otp',
  'robo-rider-stops-otp',
  'delivery-live-rider-stop-otp',
  'delivery-scheduled-payment-declined',
  'delivery-cancelled-while-pending',
  'delivery-expired',
  'webhook-redelivery',
  'booking-sweep',
  'debit-reconciliation',
  'street-watch',
  'delivery-live-reassigned',
  'delivery-sandbox-manual-stop-otp',
  'delivery-sandbox-manual-expired',
  'retention',
] as const;
type Scenario = (typeof SCENARIOS)[number];

/** A route at Dodowa, in the service area 20 km from every test rider, so a live booking there is never taken. */
const DODOWA = { pickup_lat: 5.88, pickup_lng: -0.1, dropoff_lat: 5.895, dropoff_lng: -0.085 };

/** A partner's endpoint that refuses the first try of each event, so retries reach history. */
async function flakyReceiver(): Promise<Server> {
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const eventId = String(req.headers['x-service-event-id']);
      res.statusCode = seen.has(eventId) ? 200 : 503;
      seen.add(eventId);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function waitForStatus(stack: TestStack, key: string, id: string, status: string, payment?: string) {
  await eventually(async () => {
    const { body } = await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`);
    return body.status === status && (!payment || body.payment_status === payment);
  }, 30_000, `${id} ${status}`);
}

/**
 * Records `only` (every scenario by default; `RECORD_ONLY=a,b npm run record:histories` records
 * a new scenario without re-recording the others).
 */
export async function recordHistories(stack: TestStack, dir: string, only: readonly Scenario[] = SCENARIOS): Promise<void> {
  const receiver = await flakyReceiver();
  const workflows: Partial<Record<Scenario, string>> = {};
  try {
    const robo = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey);
      const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      await api(stack.baseUrl, partner.testKey).put('/partner/webhook', { webhook_url: receiverUrl });
      const created = await book(stack.baseUrl, partner.testKey, {
        verification_method: 'otp',
        additional_stops: [stopBody(), stopBody({ recipient_name: 'Efua Asante' })],
      });
      await waitForStatus(stack, partner.testKey, created.id, 'delivered', 'paid');
      workflows['delivery-test-mode-stops-otp'] = deliveryWorkflowId(created.id);
      workflows['robo-rider-stops-otp'] = `robo-rider-${created.id}`;
      await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();

      const event = (await webhookEventsOf(stack.orm, created.id)).find((e) => e.event === 'delivery.accepted');
      const redeliver = await api(stack.baseUrl, partner.testKey).post(`/partner/webhook/deliveries/${event?.id}/redeliver`);
      if (redeliver.status !== 202) throw new Error(`redeliver: ${redeliver.status} ${JSON.stringify(redeliver.body)}`);
      // Redeliveries run on the queue of the key's mode: this one, a test key's, on the test queue.
      const query = `WorkflowType = 'webhookRedeliveryWorkflow' AND WorkflowId STARTS_WITH 'webhook-redelivery-${event?.id}'`;
      workflows['webhook-redelivery'] = await eventually(async () => {
        for await (const execution of stack.temporal.workflow.list({ query })) return execution.workflowId;
        return undefined;
      }, 15_000, 'the redelivery workflow');
    };

    const liveRider = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.liveKey);
      const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwabena Ofori');
      const recipient = '+233244998877';
      const stopRecipient = '+233201998877';
      const created = await book(stack.baseUrl, partner.liveKey, {
        verification_method: 'otp',
        recipient_phone: recipient,
        additional_stops: [stopBody({ recipient_phone: stopRecipient })],
      });
      const codeFor = async (phone: string) => {
        const text = await eventually(
          async () => (await readOutbox(stack.orm.em.fork(), phone)).find((m) => m.body.includes(created.reference)),
          10_000,
          `the code texted to ${phone}`,
        );
        return /(\d{6})$/.exec(text.body)?.[1];
      };
      await rider.take(created.id);
      await rider.pickup(created.id);
      await rider.depart(created.id);
      const stop = await rider.completeStop(created.id, 0, { otp: await codeFor(stopRecipient) });
      if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.body)}`);
      const done = await rider.deliver(created.id, { otp: await codeFor(recipient) });
      if (done.status !== 200) throw new Error(`deliver: ${done.status} ${JSON.stringify(done.body)}`);
      workflows['delivery-live-rider-stop-otp'] = deliveryWorkflowId(created.id);
    };

    const scheduledDeclined = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
      const created = await book(stack.baseUrl, partner.testKey, { scheduled_at: new Date(Date.now() + 2000).toISOString() });
      await waitForStatus(stack, partner.testKey, created.id, 'delivered', 'failed');
      workflows['delivery-scheduled-payment-declined'] = deliveryWorkflowId(created.id);
    };

    const cancelled = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.liveKey);
      const created = await book(stack.baseUrl, partner.liveKey, DODOWA);
      const res = await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
      if (res.status !== 200) throw new Error(`cancel: ${res.status} ${JSON.stringify(res.body)}`);
      workflows['delivery-cancelled-while-pending'] = deliveryWorkflowId(created.id);
    };

    const expired = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.liveKey);
      const created = await book(stack.baseUrl, partner.liveKey, DODOWA);
      await waitForStatus(stack, partner.liveKey, created.id, 'expired');
      workflows['delivery-expired'] = deliveryWorkflowId(created.id);
    };

    // A round of the booking sweeper, as its Schedule starts it; one booking left without a workflow
    // (as when the API died between the commit and the start) gives it something to start.
    const sweep = async () => {
      const partner = await makePartner(stack.orm);
      const account = await registerAccount(stack.baseUrl, partner.testKey);
      const orphan = await commitBookingRow(stack.orm, { partnerId: partner.partnerId, mode: 'test', paymentMethodId: account.id });
      await eventually(async () => ((await deliveryAgeSeconds(stack.orm, orphan)) ?? 0) > stack.settings.bookingOrphanAfterSeconds, 15_000, 'the orphan to age');
      const workflowId = `booking-sweep-recording-${orphan}`;
      await stack.temporal.workflow.execute(bookingSweepWorkflow, { workflowId, taskQueue: stack.settings.temporalTaskQueue });
      workflows['booking-sweep'] = workflowId;
    };

    // A round of the debit reconciliation, with one debit to check: a finished delivery's debit
    // that a late report asked to be checked again, as a callback for it would.
    const reconciliation = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey);
      const created = await book(stack.baseUrl, partner.testKey);
      await api(stack.baseUrl, partner.testKey).post(`/partner/deliveries/${created.id}/cancel`);
      await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
      await requestRecheck(stack.orm.em.fork(), created.id);
      const workflowId = `debit-reconciliation-recording-${created.id}`;
      await stack.temporal.workflow.execute(debitReconciliationWorkflow, {
        workflowId,
        taskQueue: stack.settings.temporalTaskQueue,
        args: [{ pendingAfterSeconds: 3600, batch: 100 }],
      });
      workflows['debit-reconciliation'] = workflowId;
    };

    // A round of the street watch, as its Schedule starts it.
    const streetWatch = async () => {
      const workflowId = `street-watch-recording-${Date.now()}`;
      await stack.temporal.workflow.execute(streetWatchWorkflow, { workflowId, taskQueue: stack.settings.temporalTaskQueue });
      workflows['street-watch'] = workflowId;
    };

    // A round of the retention, as its Schedule starts it, with a delivery to redact: one whose
    // story is put back past RETENTION_DAYS.
    const retention = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey);
      const created = await book(stack.baseUrl, partner.testKey);
      await api(stack.baseUrl, partner.testKey).post(`/partner/deliveries/${created.id}/cancel`);
      await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
      await backdateDelivery(stack.orm, created.id, 91);
      const workflowId = `retention-recording-${created.id}`;
      await stack.temporal.workflow.execute(retentionWorkflow, {
        workflowId,
        taskQueue: stack.settings.temporalTaskQueue,
        args: [{ retentionDays: 90, batch: 100 }],
      });
      workflows.retention = workflowId;
    };

    // A rider goes silent after the pickup: the watch flags the job, an operator offers it again,
    // and another rider takes it over and delivers it.
    const reassigned = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.liveKey);
      const silent = await riderApp(stack.baseUrl, stack.orm, 'Kwaku Silent');
      const created = await book(stack.baseUrl, partner.liveKey);
      await silent.take(created.id);
      await silent.pickup(created.id);
      const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id));
      await handle.signal(attentionSignal, { needed: true });
      await handle.executeUpdate(reassignUpdate, { args: [{ riderId: null }] });
      const next = await riderApp(stack.baseUrl, stack.orm, 'Adwoa Next');
      await next.take(created.id);
      const departed = await next.depart(created.id);
      if (departed.status !== 200) throw new Error(`depart: ${departed.status} ${JSON.stringify(departed.body)}`);
      const done = await next.deliver(created.id);
      if (done.status !== 200) throw new Error(`deliver: ${done.status} ${JSON.stringify(done.body)}`);
      workflows['delivery-live-reassigned'] = deliveryWorkflowId(created.id);
    };

    // A test booking whose partner drives its sandbox rider: every step asked for, then one expired on request.
    const sandboxManual = async () => {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey);
      const client = api(stack.baseUrl, partner.testKey);
      const manual = { 'Sandbox-Rider': 'manual' };
      const ridden = (await client.post('/partner/deliveries', bookingBody({ verification_method: 'otp', additional_stops: [stopBody()] }), manual)).body;
      for (const step of ['accept', 'pickup', 'depart', 'complete_stop', 'deliver']) {
        const res = await client.post(`/partner/deliveries/${ridden.id}/simulate`, { step });
        if (res.status !== 200) throw new Error(`${step}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      workflows['delivery-sandbox-manual-stop-otp'] = deliveryWorkflowId(ridden.id);
      const left = (await client.post('/partner/deliveries', bookingBody(), manual)).body;
      const res = await client.post(`/partner/deliveries/${left.id}/simulate`, { step: 'expire' });
      if (res.status !== 200) throw new Error(`expire: ${res.status} ${JSON.stringify(res.body)}`);
      workflows['delivery-sandbox-manual-expired'] = deliveryWorkflowId(left.id);
    };

    const recorders: Record<Scenario, () => Promise<void>> = {
      'delivery-test-mode-stops-otp': robo,
      'robo-rider-stops-otp': robo,
      'webhook-redelivery': robo,
      'delivery-live-rider-stop-otp': liveRider,
      'delivery-scheduled-payment-declined': scheduledDeclined,
      'delivery-cancelled-while-pending': cancelled,
      'delivery-expired': expired,
      'booking-sweep': sweep,
      'debit-reconciliation': reconciliation,
      'street-watch': streetWatch,
      'delivery-live-reassigned': reassigned,
      'delivery-sandbox-manual-stop-otp': sandboxManual,
      'delivery-sandbox-manual-expired': sandboxManual,
      retention,
    };
    await Promise.all([...new Set(only.map((scenario) => recorders[scenario]))].map((record) => record()));

    await mkdir(dir, { recursive: true });
    for (const scenario of only) {
      const workflowId = workflows[scenario];
      if (!workflowId) throw new Error(`no workflow recorded for ${scenario}`);
      const handle = stack.temporal.workflow.getHandle(workflowId);
      // Only finished histories: a replay must see every command the workflow will ever issue.
      await handle.result();
      const history = historyToJson(await handle.fetchHistory());
      await writeFile(path.join(dir, `${scenario}.json`), `${JSON.stringify(history, null, 2)}\n`);
    }
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
