import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { connectTemporal, type TestTemporalConnection } from '../helpers/temporal-connection';
import { deliveryWorkflowId } from '../../domain/reference';

/**
 * Holds the API's next Temporal Update until released: it puts a command between its read of the
 * delivery and its message to the workflow, where another command can end the workflow first.
 */
class UpdateGate {
  private armed: { reached: () => void; release: Promise<void> } | null = null;

  /** Arms the gate; `reached` settles once an update waits at it, and `open` lets it through. */
  arm(): { reached: Promise<void>; open: () => void } {
    let reached!: () => void;
    let open!: () => void;
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    this.armed = { reached, release: new Promise<void>((resolve) => (open = resolve)) };
    return { reached: reachedPromise, open };
  }

  readonly interceptor: WorkflowClientInterceptor = {
    startUpdate: async (input, next) => {
      const held = this.armed;
      this.armed = null;
      if (held) {
        held.reached();
        await held.release;
      }
      return next(input);
    },
  };
}

const gate = new UpdateGate();
let connection: TestTemporalConnection;
let stack: TestStack;
beforeAll(async () => {
  connection = await connectTemporal(process.env.TEST_TEMPORAL_ADDRESS as string);
  const temporal = new Client({ connection: connection.connection, interceptors: { workflow: [gate.interceptor] } });
  stack = await startTestStack({ appOverrides: { temporal } });
});
afterAll(async () => {
  await stack?.close();
  await connection?.close();
});

describe('a partner cancel', () => {
  it('is answered 200 when another cancel ended the workflow after this one read the delivery pending', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const partnerApi = api(stack.baseUrl, partner.liveKey);

    const held = gate.arm();
    const late = partnerApi.post(`/partner/deliveries/${created.id}/cancel`);
    await held.reached;
    // The other cancel overtakes it, and with no callback to send the workflow then ends.
    const first = await partnerApi.post(`/partner/deliveries/${created.id}/cancel`);
    expect(first.status).toBe(200);
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
    held.open();

    const answer = await late;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('cancelled');
    expect(answer.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'cancelled']);
  });

  it('still refuses a delivery whose workflow ended in another status', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id));
    const partnerApi = api(stack.baseUrl, partner.liveKey);
    // Once the debit has settled the workflow mostly waits, so it is ended between its tasks.
    await eventually(async () => (await partnerApi.get(`/partner/deliveries/${created.id}`)).body.payment_status === 'paid', 10_000, 'debit');

    const held = gate.arm();
    const late = partnerApi.post(`/partner/deliveries/${created.id}/cancel`);
    await held.reached;
    // The workflow ends while the record still says pending (an operator terminated it).
    await handle.terminate('test: ended before the cancel reached it');
    held.open();

    const answer = await late;
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'bad_request', details: { status: 'pending' } });
  });
});

describe('a rider accept', () => {
  it('is answered 409 when the job was cancelled after the accept read it pending', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Yaw Owusu');
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.waitForOffer(created.id);

    const held = gate.arm();
    const late = rider.client.post(`/rider/deliveries/${created.id}/accept`);
    await held.reached;
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
    held.open();

    const answer = await late;
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'conflict', details: { status: 'cancelled' } });
    // The rider was never given the job, so they are free for the next one.
    expect((await rider.client.get('/rider/deliveries/current')).status).toBe(404);
  });

  it('is answered 409 and writes nothing when the rider took another job after the accept read them free', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Esi Appiah');
    const first = await book(stack.baseUrl, partner.liveKey);
    const second = await book(stack.baseUrl, partner.liveKey);
    await rider.waitForOffer(first.id);
    await rider.waitForOffer(second.id);

    const held = gate.arm();
    const late = rider.client.post(`/rider/deliveries/${second.id}/accept`);
    await held.reached;
    expect((await rider.client.post(`/rider/deliveries/${first.id}/accept`)).status).toBe(200);
    held.open();

    // The workflow's write finds the rider holding the first job: neither the job nor its trail moves.
    const answer = await late;
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'conflict', message: 'Finish your current job first', details: { status: 'pending' } });
    const record = (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${second.id}`)).body;
    expect(record).toMatchObject({ status: 'pending', rider_id: null });
    expect(record.events.map((e: { status: string }) => e.status)).toEqual(['pending']);
    expect((await rider.client.get('/rider/deliveries/current')).body.delivery_id).toBe(first.id);
  });
});
