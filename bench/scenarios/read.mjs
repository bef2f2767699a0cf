// GET /partner/deliveries/{id} against a bare Express + pg handler reading the same row by primary key.
import { load } from '../lib/load.mjs';

export async function readScenario(ctx) {
  const run = { connections: ctx.options.connections, seconds: ctx.options.seconds, cpu: ctx.cpu };
  const id = ctx.deliveredId;
  const baseline = await ctx.measured(() => load({ url: `${ctx.baselineUrl}/deliveries/${id}` }, run), 'floor');
  const product = await ctx.measured(() =>
    load({ url: `${ctx.apiUrl}/api/v1/partner/deliveries/${id}`, headers: { Authorization: `Bearer ${ctx.seed.apiKey}` } }, run),
  );
  return {
    name: 'GET /partner/deliveries/{id}',
    baselineName: 'bare Express + pg, row by primary key',
    connections: run.connections,
    baseline,
    ...product,
  };
}
