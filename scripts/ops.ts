import { parseArgs } from 'node:util';
import { createApiKey, createPartner, createRider, readOutbox } from '../db/accounts';
import { initOrm } from '../db/orm';
import { hashPassword } from '../api/dashboard/passwords';

/**
 * Operator commands (DESIGN section 10): `npm run ops -- <command> [options]`. Each prints one
 * JSON object. They use DATABASE_URL, or the database `npm start` wrote to .data/stack.json.
 */
const USAGE = `Usage: npm run ops -- <command>
  partner:create --email E --business B [--password P]
  key:create --partner ID --label L [--test]
  rider:create --name N [--vehicle V] [--lat LAT --lng LNG]
  outbox --to PHONE`;

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const { readFile } = await import('node:fs/promises');
  try {
    const dir = process.env.STACK_DATA_DIR ?? '.data';
    const stack = JSON.parse(await readFile(`${dir}/stack.json`, 'utf8')) as { databaseUrl?: string };
    if (stack.databaseUrl) return stack.databaseUrl;
  } catch {
    /* fall through */
  }
  throw new Error('DATABASE_URL is not set and no running `npm start` was found');
}

function fail(message: string): never {
  process.stdout.write(`${JSON.stringify({ error: message })}\n`);
  process.exit(2);
}

/** `--lng -0.2` is a value, not an option: Ghana sits on both sides of the prime meridian. */
function joinNegativeNumbers(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const previous = out[out.length - 1];
    if (/^-\d/.test(arg) && previous?.startsWith('--') && !previous.includes('=')) out[out.length - 1] = `${previous}=${arg}`;
    else out.push(arg);
  }
  return out;
}

async function main(): Promise<void> {
  const [command, ...given] = process.argv.slice(2);
  const rest = joinNegativeNumbers(given);
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      business: { type: 'string' },
      password: { type: 'string' },
      partner: { type: 'string' },
      label: { type: 'string' },
      test: { type: 'boolean', default: false },
      name: { type: 'string' },
      vehicle: { type: 'string' },
      lat: { type: 'string' },
      lng: { type: 'string' },
      to: { type: 'string' },
    },
    strict: true,
  });
  const orm = await initOrm(await databaseUrl(), 2);
  const em = orm.em.fork();
  try {
    let result: unknown;
    switch (command) {
      case 'partner:create': {
        if (!values.email || !values.business) fail(USAGE);
        const passwordHash = values.password ? await hashPassword(values.password) : null;
        const partner = await createPartner(em, { email: values.email, businessName: values.business, passwordHash, confirmed: true });
        result = { partner_id: partner.partnerId, email: partner.email };
        break;
      }
      case 'key:create': {
        if (!values.partner || !values.label) fail(USAGE);
        const key = await createApiKey(em, { partnerId: values.partner, label: values.label, mode: values.test ? 'test' : 'live' });
        result = { key_id: key.keyId, api_key: key.apiKey };
        break;
      }
      case 'rider:create': {
        if (!values.name) fail(USAGE);
        const lat = values.lat === undefined ? null : Number(values.lat);
        const lng = values.lng === undefined ? null : Number(values.lng);
        if ((lat !== null && !Number.isFinite(lat)) || (lng !== null && !Number.isFinite(lng))) fail('--lat and --lng must be numbers');
        const rider = await createRider(em, { name: values.name, vehicle: values.vehicle ?? null, lat, lng });
        result = { rider_id: rider.riderId, rider_token: rider.riderToken };
        break;
      }
      case 'outbox': {
        if (!values.to) fail(USAGE);
        result = { messages: await readOutbox(em, values.to) };
        break;
      }
      default:
        fail(USAGE);
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await orm.close();
  }
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
