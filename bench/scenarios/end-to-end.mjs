// End to end: N deliveries always in flight. Each simulated rider app takes the job its slot
// booked, rides it to `delivered` over HTTP, and the slot books the next one, until time is up.
// The partner's receiver times each callback against the rider request that caused it.
import { book, bookingBody, sleep } from '../lib/client.mjs';
import { percentile, summary } from '../lib/stats.mjs';

export async function endToEndScenario(ctx) {
  const { e2eDeliveries: n, e2eSeconds, stepMs, acceptAfterMs } = ctx.options;
  const riders = ctx.takeRiders(n);
  const lags = [];
  // The same lags by the event the rider's request caused: each step has its own path.
  const lagsByEvent = {};
  const answers = { accept: [], other: [] };
  const trips = [];
  const failures = [];
  const waits = [];
  let missing = 0;
  let completed = 0;
  let lastCompletion = 0;
  const started = performance.now();
  const deadline = started + e2eSeconds * 1000;

  const slot = async (rider, index) => {
    // Starts are spread over a second so the slots do not move in lockstep.
    await sleep((index * 1000) / n);
    while (performance.now() < deadline) {
      try {
        const bookedAt = performance.now();
        const job = await book(ctx.partner, bookingBody());
        const steps = await rider.drive(job, { stepMs, acceptAfterMs });
        completed += 1;
        lastCompletion = performance.now();
        trips.push(lastCompletion - bookedAt);
        for (const step of steps) {
          (step.action === 'accept' ? answers.accept : answers.other).push(step.answeredAt - step.sentAt);
          waits.push(
            ctx.receiver.waitFor(job.id, step.event, 30_000).then((at) => {
              if (at === null) missing += 1;
              else {
                lags.push(at - step.sentAt);
                (lagsByEvent[step.event] ??= []).push(at - step.sentAt);
              }
            }),
          );
        }
        if (stepMs > 0) await sleep(stepMs);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
        return;
      }
    }
  };

  const measuredFrom = performance.now();
  const run = await ctx.measured(async () => {
    await Promise.all(riders.map((rider, index) => slot(rider, index)));
    await Promise.all(waits);
    return {};
  });
  const measuredSeconds = (performance.now() - measuredFrom) / 1000;
  ctx.returnRiders(riders);
  const minutes = ((lastCompletion || performance.now()) - started) / 60_000;
  const lag = summary(lags);
  return {
    name: `end to end, ${n} deliveries in flight`,
    connections: n,
    e2e: {
      deliveriesPerMinute: completed / minutes,
      completed,
      webhookLag: lag,
      webhookLagByEvent: Object.fromEntries(Object.entries(lagsByEvent).map(([event, values]) => [event, summary(values)])),
      webhooksMissing: missing,
      acceptAnswerP50: percentile(answers.accept, 50),
      acceptAnswerP99: percentile(answers.accept, 99),
      riderAnswerP50: percentile(answers.other, 50),
      riderAnswerP99: percentile(answers.other, 99),
      tripP50: percentile(trips, 50),
      // CPU of the stack (Temporal, PostgreSQL, the API, the worker) a delivery, callbacks included;
      // the floor's processes sit idle meanwhile and the simulated riders are the bench's own.
      cpuMsPerDelivery: completed
        ? (['temporal', 'postgres', 'api', 'worker'].reduce((sum, name) => sum + (run.cpu?.[name] ?? 0), 0) * measuredSeconds * 1000) / completed
        : null,
      stepMs,
      acceptAfterMs,
      failures: failures.slice(0, 5),
      failureCount: failures.length,
    },
    memory: run.memory,
    cpu: run.cpu,
    errors: failures.length + missing,
  };
}
