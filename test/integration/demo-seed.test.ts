import { spawnSync } from 'node:child_process';
import { createApiKey, createPartner, revokeApiKey } from '../../db/accounts';
import { ourProgram } from '../helpers/child-process';
import { apiKeysOf, partnerByEmail } from '../helpers/db-accounts';
import { ownDatabase, type OwnDatabase } from '../helpers/own-database';
import { makePartner } from '../helpers/partners';

// `npm start` seeds demo@example.com, whose password is in the README, into whatever
// DATABASE_URL names: never into one that real partners use.

const DEMO_EMAIL = 'demo@example.com';

/**
 * scripts/seed-demo.ts as `npm start` runs it, on `databaseUrl`: a database DATABASE_URL named, or
 * (`embedded`) its own embedded one.
 */
function seed(databaseUrl: string, database: 'named' | 'embedded' = 'named') {
  const { command, args, cwd } = ourProgram('scripts/seed-demo.ts');
  const run = spawnSync(command, args, {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: 'development', DATABASE_URL: databaseUrl, SEED_DATABASE: database },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const REFUSAL =
  /^Refusing to seed the demo partner \(demo@example\.com, whose password is in the README\) into 127\.0\.0\.1:\d+\/demo_seed_\w+: it holds (\d+) live-mode API keys?, so real partners use it\. Use a development database: unset DATABASE_URL for npm start's embedded one, with STACK_DATA_DIR for a fresh one\.\n$/;

describe('the demo seed of npm start', () => {
  let database: OwnDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('seeds an empty database, and again at the next start, when it holds test-mode keys only', async () => {
    database = await ownDatabase('demo_seed');
    const first = seed(database.url);
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(first.stdout) as unknown).toEqual({ partner_id: expect.any(String), email: DEMO_EMAIL, password: 'demo-password', api_key: expect.stringMatching(/^sk_test_/) });

    // Another partner's test key is no sign of a real deployment either.
    const { partnerId } = await createPartner(database.orm.em.fork(), { email: 'trying@example.com', businessName: 'Trying Ltd', confirmed: true });
    await createApiKey(database.orm.em.fork(), { partnerId, label: 'test', mode: 'test' });
    const second = seed(database.url);
    expect({ status: second.status, stderr: second.stderr }).toEqual({ status: 0, stderr: '' });

    const demo = await partnerByEmail(database.orm, DEMO_EMAIL);
    expect((await apiKeysOf(database.orm, demo!.id)).map((key) => key.mode)).toEqual(['test', 'test']);
  }, 120_000);

  it('refuses a database that holds a live-mode key, in one line naming it, and adds nothing to it', async () => {
    database = await ownDatabase('demo_seed');
    await makePartner(database.orm);
    const refused = seed(database.url);
    expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 78, stdout: '' });
    expect(refused.stderr).toMatch(REFUSAL);
    expect(REFUSAL.exec(refused.stderr)?.[1]).toBe('1');
    expect(await partnerByEmail(database.orm, DEMO_EMAIL)).toBeUndefined();
  }, 120_000);

  it('refuses one whose live keys are all revoked: real partners used it', async () => {
    database = await ownDatabase('demo_seed');
    const partner = await makePartner(database.orm);
    expect(await revokeApiKey(database.orm.em.fork(), partner.partnerId, partner.liveKeyId)).toBe(true);
    const refused = seed(database.url);
    expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 78, stdout: '' });
    expect(refused.stderr).toMatch(REFUSAL);
    expect(await partnerByEmail(database.orm, DEMO_EMAIL)).toBeUndefined();
  }, 120_000);

  it('goes on where the demo partner was seeded before the live key: nothing new, said in one line', async () => {
    database = await ownDatabase('demo_seed');
    const first = seed(database.url);
    const { partner_id: partnerId } = JSON.parse(first.stdout) as { partner_id: string };
    // A developer tried live mode on the dashboard of the stack npm start seeded.
    await createApiKey(database.orm.em.fork(), { partnerId, label: 'trying live', mode: 'live' });

    const again = seed(database.url);
    expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(again.stdout) as unknown).toEqual({
      partner_id: partnerId,
      email: DEMO_EMAIL,
      password: 'demo-password',
      skipped: 'this database holds 1 live-mode API key, so nothing new was seeded',
    });
    expect((await apiKeysOf(database.orm, partnerId)).map((key) => key.mode).sort()).toEqual(['live', 'test']);
  }, 120_000);

  it('goes on in npm start’s embedded database, where live keys are a developer’s own, and adds nothing', async () => {
    database = await ownDatabase('demo_seed');
    await makePartner(database.orm);
    const embedded = seed(database.url, 'embedded');
    expect({ status: embedded.status, stderr: embedded.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(embedded.stdout) as unknown).toEqual({ skipped: 'this database holds 1 live-mode API key, so nothing new was seeded' });
    expect(await partnerByEmail(database.orm, DEMO_EMAIL)).toBeUndefined();
  }, 120_000);
});
