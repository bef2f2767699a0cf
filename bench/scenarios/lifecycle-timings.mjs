// The lifecycle figures, one delivery at a time on a quiet stack: from the booking request to the
// `pending` row and to the workflow running, and from a rider's accept request to `accepted` in
// the record. Reads the workflow's own history for when its first task and first activity ran.
import { book, bookingBody } from '../lib/client.mjs';
import { summary } from '../lib/stats.mjs';

const toMs = (ts) => Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);

async function workflowTimes(temporal, deliveryId) {
  const history = await temporal.workflow.getHandle(`delivery-${deliveryId}`).fetchHistory();
  const events = history.events ?? [];
  const firstTask = events.find((e) => e.workflowTaskStartedEventAttributes);
  // `beginDelivery` is the workflow's first local activity: its marker is written with the task
  // it completed in. (Workflows begun before it was local ran it as a regular activity.)
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'beginDelivery');
  const completed = scheduled
    ? events.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled.eventId))
    : events.find((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  return {
    events: events.length,
    eventTypes: events.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes'))?.replace('EventAttributes', '')),
    firstTaskAt: firstTask ? toMs(firstTask.eventTime) : null,
    bookingFoundAt: completed ? toMs(completed.eventTime) : null,
  };
}

export async function lifecycleTimingsScenario(ctx) {
  const count = ctx.options.timingSamples;
  const [rider] = ctx.takeRiders(1);
  const toRow = [];
  const toWorkflow = [];
  const toBookingFound = [];
  const toAccepted = [];
  let history = null;
  for (let i = 0; i < count; i++) {
    const sentWall = Date.now();
    const sent = performance.now();
    const job = await book(ctx.partner, bookingBody());
    // The row is committed before the booking is answered.
    toRow.push(performance.now() - sent);
    await rider.waitForOffer(job.id, { pollMs: 20, timeoutMs: 20_000 }).catch(async (error) => {
      const { rows } = await ctx.db.query(
        `select d.status, r.active_delivery_id, r.online, (select count(*) from rider_offers o where o.delivery_id = d.id) as offers
         from deliveries d, riders r where d.id = $1 and r.id = $2`,
        [job.id, rider.riderId],
      );
      throw new Error(`${error.message} (sample ${i + 1}: ${JSON.stringify(rows[0])})`);
    });
    const accept = await rider.act(job.id, 'accept');
    const { rows } = await ctx.db.query('select status from deliveries where id = $1', [job.id]);
    if (rows[0]?.status !== 'accepted') throw new Error(`the record of ${job.id} says ${rows[0]?.status} after the accept`);
    toAccepted.push(accept.answeredAt - accept.sentAt);
    await rider.drive(job, { from: 1 });
    const times = await workflowTimes(ctx.temporal, job.id);
    history = { events: times.events, types: times.eventTypes };
    if (times.firstTaskAt) toWorkflow.push(times.firstTaskAt - sentWall);
    if (times.bookingFoundAt) toBookingFound.push(times.bookingFoundAt - sentWall);
  }
  ctx.returnRiders([rider]);
  return {
    name: `lifecycle timings, ${count} deliveries one at a time`,
    timings: {
      bookingToPendingRow: summary(toRow),
      bookingToWorkflowRunning: summary(toWorkflow),
      bookingToWorkflowFoundRow: summary(toBookingFound),
      acceptToAccepted: summary(toAccepted),
    },
    // One delivery's workflow history so far: what each delivery costs Temporal.
    history,
  };
}
