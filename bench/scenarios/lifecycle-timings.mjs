// The lifecycle figures, one delivery at a time on a quiet stack: from the booking request to the
// `pending` row and to the workflow running, and from a rider's accept request to `accepted` in
// the record. Reads the workflow's own history for when its first task and first activity ran.
import { book, bookingBody } from '../lib/client.mjs';
import { summary } from '../lib/stats.mjs';
import { totalOf, workerTotals } from '../lib/worker-metrics.mjs';

const toMs = (ts) => Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);

/** The worker's histograms a step's time is split by: the SDK's, and the transition's own stages. */
const WORKER_HISTOGRAMS = {
  taskScheduleToStart: 'temporal_workflow_task_schedule_to_start_latency',
  taskExecution: 'temporal_workflow_task_execution_latency',
  localActivity: 'temporal_local_activity_execution_latency',
  read: 'delivery_transition_stage_latency{stage="read"}',
  eta: 'delivery_transition_stage_latency{stage="eta"}',
  write: 'delivery_transition_stage_latency{stage="write"}',
};

/** Each histogram's sum and count, from the worker's Prometheus endpoint. */
async function workerHistograms(url) {
  const totals = await workerTotals(url, { byLabel: 'stage' });
  const part = (name, end) => {
    const [metric, label = ''] = name.split('{');
    return label ? (totals.get(`${metric}_${end}{${label}`) ?? 0) : totalOf(totals, metric, `_${end}`);
  };
  return Object.fromEntries(Object.entries(WORKER_HISTOGRAMS).map(([key, name]) => [key, { sum: part(name, 'sum'), count: part(name, 'count') }]));
}

/** `Server-Timing: read;dur=1.2, update;dur=30.1` as { read: 1.2, update: 30.1 }. */
function serverTimingOf(header) {
  return Object.fromEntries([...(header ?? '').matchAll(/([\w-]+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));
}

/**
 * One step, hop by hop: the rider's request as the phone sees it, the API's read, workflow update
 * and job view (Server-Timing), and within the update the worker's workflow task (from the server
 * scheduling it to the worker starting it, and its run) and local activity (the transition's read,
 * ETA and write). Each worker figure is the mean over what ran between the request and its answer.
 */
function hopsOf(step, before, after) {
  const api = serverTimingOf(step.serverTiming);
  const mean = (name) => {
    const count = after[name].count - before[name].count;
    return count > 0 ? (after[name].sum - before[name].sum) / count : null;
  };
  return {
    total: step.answeredAt - step.sentAt,
    apiRead: api.read ?? null,
    apiUpdate: api.update ?? null,
    apiView: api.view ?? null,
    taskScheduleToStart: mean('taskScheduleToStart'),
    taskExecution: mean('taskExecution'),
    localActivity: mean('localActivity'),
    read: mean('read'),
    eta: mean('eta'),
    write: mean('write'),
    workflowTasks: after.taskExecution.count - before.taskExecution.count,
  };
}

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
  const pickupHops = [];
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
    await rider.ping({ lat: job.pickup_lat, lng: job.pickup_lng });
    const before = await workerHistograms(ctx.workerMetricsUrl);
    const pickup = await rider.act(job.id, 'pickup');
    pickupHops.push(hopsOf(pickup, before, await workerHistograms(ctx.workerMetricsUrl)));
    await rider.drive(job, { from: 2 });
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
    // A pickup hop by hop: each figure's median over the samples (ms).
    pickupHops: Object.fromEntries(
      Object.keys(pickupHops[0] ?? {}).map((name) => [name, summary(pickupHops.map((h) => h[name]).filter((v) => v !== null)).p50 ?? null]),
    ),
    // One delivery's workflow history so far: what each delivery costs Temporal.
    history,
  };
}
