// GET /track/{id}/public: many pollers of a few deliveries on the road, riders reporting their
// position meanwhile. The floor is the bare Express + pg read of the same rows. Also counts how
// often the ETA was recomputed (the contract allows once per 20 s per delivery).
import { load } from '../lib/load.mjs';
import { book, bookingBody } from '../lib/client.mjs';

async function countEtaRefreshes(db, ids, run) {
  const seen = new Map(ids.map((id) => [id, new Set()]));
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await db.query('select delivery_id as id, computed_at as eta_computed_at from delivery_etas where delivery_id = any($1)', [ids]);
      for (const row of rows) if (row.eta_computed_at) seen.get(row.id).add(row.eta_computed_at.getTime());
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const before = new Map(
    (await db.query('select delivery_id as id, computed_at as eta_computed_at from delivery_etas where delivery_id = any($1)', [ids])).rows.map((r) => [r.id, r.eta_computed_at?.getTime() ?? null]),
  );
  const result = await run();
  sampling = false;
  await sampler;
  let refreshes = 0;
  for (const [id, times] of seen) refreshes += [...times].filter((t) => t !== before.get(id)).length;
  return { result, refreshes };
}

export async function trackingScenario(ctx) {
  const { seconds, trackConnections: connections, trackDeliveries } = ctx.options;
  const riders = ctx.takeRiders(trackDeliveries);
  const jobs = await Promise.all(
    riders.map(async (rider) => {
      const job = await book(ctx.partner, bookingBody());
      await rider.drive(job, { until: 3 });
      return { rider, job };
    }),
  );
  const ids = jobs.map(({ job }) => job.id);

  const run = { connections, seconds, cpu: ctx.cpu };
  const baseline = await ctx.measured(() => load({ url: ctx.baselineUrl, requests: ids.map((id) => ({ method: 'GET', path: `/deliveries/${id}` })) }, run), 'floor');

  // Riders move toward the drop-off and report their position every second, as the app does.
  let moving = true;
  const pings = jobs.map(async ({ rider, job }) => {
    for (let step = 1; moving; step++) {
      const f = Math.min(1, step / 200);
      await rider.ping({ lat: job.pickup_lat + (job.dropoff_lat - job.pickup_lat) * f, lng: job.pickup_lng + (job.dropoff_lng - job.pickup_lng) * f });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  });
  const { result: product, refreshes } = await countEtaRefreshes(ctx.db, ids, () =>
    ctx.measured(() => load({ url: ctx.apiUrl, requests: ids.map((id) => ({ method: 'GET', path: `/api/v1/track/${id}/public` })) }, run)),
  );
  moving = false;
  await Promise.all(pings);
  await Promise.all(jobs.map(({ rider, job }) => rider.drive(job, { from: 3 })));
  ctx.returnRiders(riders);

  // The load runs a one-second warm-up before the measured seconds; a refresh may open and close that span.
  const windows = Math.floor((seconds + 1) / 20) + 1;
  return {
    name: 'GET /track/{id}/public',
    baselineName: 'bare Express + pg, row by primary key',
    connections,
    baseline,
    ...product,
    notes: `${trackDeliveries} deliveries in transit; ETA recomputed ${refreshes} times (contract allows at most ${windows * trackDeliveries})`,
    extra: { deliveries: trackDeliveries, etaRefreshes: refreshes, etaRefreshLimit: windows * trackDeliveries },
  };
}
