// POST /partner/quotes against a bare Express handler returning a constant JSON (the HTTP floor).
import { load } from '../lib/load.mjs';
import { ACCRA } from '../lib/client.mjs';

const BODY = JSON.stringify({
  pickup_lat: ACCRA.makola.lat,
  pickup_lng: ACCRA.makola.lng,
  dropoff_lat: ACCRA.airport.lat,
  dropoff_lng: ACCRA.airport.lng,
});

export async function quotesScenario(ctx) {
  const run = { connections: ctx.options.connections, seconds: ctx.options.seconds, cpu: ctx.cpu };
  const json = { 'Content-Type': 'application/json' };
  const baseline = await ctx.measured(() => load({ url: `${ctx.baselineUrl}/quote`, method: 'POST', headers: json, body: BODY }, run), 'floor');
  const product = await ctx.measured(() =>
    load(
      { url: `${ctx.apiUrl}/api/v1/partner/quotes`, method: 'POST', headers: { ...json, Authorization: `Bearer ${ctx.seed.apiKey}` }, body: BODY },
      run,
    ),
  );
  return {
    name: 'POST /partner/quotes',
    baselineName: 'bare Express, constant JSON',
    connections: run.connections,
    baseline,
    ...product,
  };
}
