import { createRider } from '../db/accounts';
import { initOrm } from '../db/orm';

/**
 * The city scenario's riders, written straight to the database: `count` online riders spread
 * evenly over a box (Greater Accra, in the city scenario), each with a live token. Prints them
 * as one JSON line. `name` keeps another scenario's riders apart from the city's (`City Rider`).
 *
 * Usage: tsx bench/seed-city-riders.ts <count> <south> <north> <west> <east> [name]
 */
async function main(): Promise<void> {
  const [count = NaN, south = NaN, north = NaN, west = NaN, east = NaN] = process.argv.slice(2, 7).map(Number);
  const name = process.argv[7] ?? 'City Rider';
  if (!Number.isInteger(count) || count < 1 || [south, north, west, east].some((v) => !Number.isFinite(v))) {
    throw new Error('usage: tsx bench/seed-city-riders.ts <count> <south> <north> <west> <east> [name]');
  }
  const box = { south, north, west, east };
  const orm = await initOrm(process.env.DATABASE_URL as string, 8);
  try {
    const em = orm.em.fork();
    // A grid with a little jitter: every part of the city has riders, as at a real peak.
    const columns = Math.ceil(Math.sqrt(count * 1.6));
    const rows = Math.ceil(count / columns);
    const spots = Array.from({ length: count }, (_, i) => ({
      lat: box.south + ((Math.floor(i / columns) + 0.5 + (Math.random() - 0.5) * 0.5) / rows) * (box.north - box.south),
      lng: box.west + (((i % columns) + 0.5 + (Math.random() - 0.5) * 0.5) / columns) * (box.east - box.west),
    }));
    const made: { riderId: string; riderToken: string; lat: number; lng: number }[] = [];
    // A few inserts at a time: thousands of riders in seconds, without a pool's worth of waiting.
    for (let i = 0; i < spots.length; i += 16) {
      const batch = spots.slice(i, i + 16);
      const riders = await Promise.all(batch.map((at, j) => createRider(em, { name: `${name} ${i + j + 1}`, vehicle: 'Motorbike', ...at })));
      riders.forEach((rider, j) => made.push({ ...rider, ...batch[j]! }));
    }
    await em.execute('update riders set online = true where name like ?', [`${name} %`]);
    process.stdout.write(`${JSON.stringify({ riders: made })}\n`);
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
