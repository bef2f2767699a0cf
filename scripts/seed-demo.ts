import { createApiKey, createPartner, findPartnerByEmail } from '../db/accounts';
import { ensureDemoPaymentMethod, liveKeysIssued } from '../db/demo-seed';
import { initOrm } from '../db/orm';
import { hashPassword } from '../api/dashboard/passwords';

/**
 * Used by `npm start`: a demo partner (created once) with a Mobile Money account on the sandbox
 * network, and a fresh test-mode key to print (a key's secret can only be shown when created).
 * `SEED_DATABASE=embedded` says the database is `npm start`'s own embedded one.
 */
const DEMO = { email: 'demo@example.com', password: 'demo-password', business: 'Demo Shop Ltd' };

async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') {
    // A partner whose password is printed in the README has no place in a production database.
    process.stdout.write(`${JSON.stringify({ skipped: 'NODE_ENV=production seeds no data' })}\n`);
    return;
  }
  const databaseUrl = process.env.DATABASE_URL as string;
  const orm = await initOrm(databaseUrl, 2);
  const em = orm.em.fork();
  try {
    const live = await liveKeysIssued(em);
    const existing = await findPartnerByEmail(em, DEMO.email);
    if (live > 0) {
      // `npm start` takes whatever DATABASE_URL names, a deployment's included: one whose live keys
      // say real partners use it gets no published password. The embedded database is a
      // developer's own, and one that has the demo partner already was seeded before its live keys.
      if (!existing && process.env.SEED_DATABASE !== 'embedded') {
        process.stderr.write(`${refusal(databaseUrl, live)}\n`);
        process.exitCode = 78;
        return;
      }
      const skipped = `this database holds ${live} live-mode API key${live === 1 ? '' : 's'}, so nothing new was seeded`;
      const demo = existing ? { partner_id: existing.id, email: DEMO.email, password: DEMO.password } : {};
      process.stdout.write(`${JSON.stringify({ ...demo, skipped })}\n`);
      return;
    }
    const partnerId =
      existing?.id ??
      (
        await createPartner(em, {
          email: DEMO.email,
          businessName: DEMO.business,
          passwordHash: await hashPassword(DEMO.password),
          confirmed: true,
        })
      ).partnerId;
    await ensureDemoPaymentMethod(em, partnerId);
    const key = await createApiKey(em, { partnerId, label: `npm start ${new Date().toISOString()}`, mode: 'test' });
    process.stdout.write(`${JSON.stringify({ partner_id: partnerId, email: DEMO.email, password: DEMO.password, api_key: key.apiKey })}\n`);
  } finally {
    await orm.close();
  }
}

/** One line: which database was refused (its address without credentials), why, and what to use. */
function refusal(databaseUrl: string, liveKeys: number): string {
  const { host, pathname } = new URL(databaseUrl);
  return (
    `Refusing to seed the demo partner (${DEMO.email}, whose password is in the README) into ${host}${pathname}: ` +
    `it holds ${liveKeys} live-mode API key${liveKeys === 1 ? '' : 's'}, so real partners use it. ` +
    "Use a development database: unset DATABASE_URL for npm start's embedded one, with STACK_DATA_DIR for a fresh one."
  );
}

void main();
