import { randomUUID } from 'node:crypto';
import { createApiKey, createPartner, createRider } from '../db/accounts';
import { initOrm } from '../db/orm';

/**
 * The benchmark's accounts, written straight to the database: one partner with a live key, a
 * default sandbox Mobile Money account, its callback URL pointed at the bench's receiver, and
 * online riders standing at the pickup. Prints them as one JSON line.
 *
 * Usage: tsx bench/seed.ts <webhook-url> <riders> <pickup-lat> <pickup-lng>
 */
async function main(): Promise<void> {
  const [webhookUrl, riders = '10', lat = '5.5497', lng = '-0.2096'] = process.argv.slice(2);
  if (!webhookUrl) throw new Error('usage: tsx bench/seed.ts <webhook-url> [riders] [lat] [lng]');
  const orm = await initOrm(process.env.DATABASE_URL as string, 4);
  try {
    const em = orm.em.fork();
    const { partnerId } = await createPartner(em, { email: `bench-${Date.now()}@example.com`, businessName: 'Bench Shop Ltd', confirmed: true });
    const key = await createApiKey(em, { partnerId, label: 'bench', mode: 'live' });
    const paymentMethodId = randomUUID();
    // The sandbox's "always pays" number, so every debit settles without a callback from outside.
    await em.execute(
      `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default)
       values (?, ?, 'live', 'network_a', '+233241230001', 'Bench Shop Ltd', true)`,
      [paymentMethodId, partnerId],
    );
    const webhookSecret = `whsec_bench_${randomUUID().replace(/-/g, '')}`;
    await em.execute(`insert into webhook_endpoints (partner_id, mode, url, secret) values (?, 'live', ?, ?)`, [
      partnerId,
      webhookUrl,
      webhookSecret,
    ]);

    const made: { riderId: string; riderToken: string; lat: number; lng: number }[] = [];
    for (let i = 0; i < Number(riders); i++) {
      // A few metres apart, all well inside the first dispatch radius.
      const at = { lat: Number(lat) + (i % 10) * 0.0001, lng: Number(lng) + Math.floor(i / 10) * 0.0001 };
      const rider = await createRider(em, { name: `Bench Rider ${i + 1}`, vehicle: 'Motorbike', ...at });
      made.push({ ...rider, ...at });
    }
    await em.execute('update riders set online = true where not is_robo');
    process.stdout.write(`${JSON.stringify({ partnerId, apiKey: key.apiKey, paymentMethodId, webhookSecret, riders: made })}\n`);
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
