// POST /partner/deliveries against the Temporal + Postgres floor: a bare loop that inserts one
// row and starts one empty workflow, at the same concurrency. The bookings are in a town with
// no bench riders, so they wait for a rider and load the rest of the run as little as they can.
// Both sides are answered before Temporal has run all the workflow tasks their starts queue, so
// each phase is followed by a wait for the stack to finish them, which is timed: the product's
// phase does not pay for the floor's queue, and the notes say how much each left behind.
import path from 'node:path';
import { costPerRequest, untilQuiet } from '../lib/cpu.mjs';
import { jsonLineOf } from '../lib/json-line.mjs';
import { load } from '../lib/load.mjs';
import { ACCRA, bookingBody } from '../lib/client.mjs';

function runFloor(ctx, connections, seconds) {
  const env = { ...ctx.floorEnv, BENCH_CONNECTIONS: String(connections), BENCH_SECONDS: String(seconds), BENCH_WARMUP_SECONDS: '1' };
  return jsonLineOf(ctx.tsx, [path.join('bench', 'floor-booking.ts')], { cwd: ctx.root, env }, 'the booking floor');
}

export async function bookingScenario(ctx) {
  const { seconds, bookingConnections: connections } = ctx.options;
  const account = ctx.cpu();
  const floor = await runFloor(ctx, connections, seconds);
  // The loop's process is not in the account: it reports its own CPU time.
  const cpu = { ...account.stop(), floorLoop: floor.cpuSeconds / floor.elapsedSeconds };
  // The empty workflows' tasks still queued: done now, not on the product's time.
  const floorDrainSeconds = await untilQuiet(ctx.cpu, { maxSeconds: 120 });
  const baseline = { ...floor, cpu, cpuMsPerRequest: costPerRequest(cpu, floor.elapsedSeconds, floor.operations), drainSeconds: floorDrainSeconds };
  const product = await ctx.measured(() =>
    load(
      {
        url: `${ctx.apiUrl}/api/v1/partner/deliveries`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.seed.apiKey}` },
        body: JSON.stringify(bookingBody(ACCRA.kumasi, ACCRA.kumasiDrop)),
      },
      { connections, seconds, cpu: ctx.cpu },
    ),
  );
  // A booking is answered before its workflow's later tasks run (the debit, its record, the
  // offer): those still queued when the phase ends are done now, and timed.
  const drainSeconds = await untilQuiet(ctx.cpu, { maxSeconds: 120 });
  return {
    name: 'POST /partner/deliveries',
    baselineName: 'INSERT + workflow.start of an empty workflow',
    connections,
    baseline,
    ...product,
    drainSeconds,
    notes: `the stack worked on for ${Math.round(drainSeconds)} s after the bookings stopped (the floor ${Math.round(floorDrainSeconds)} s)`,
  };
}
