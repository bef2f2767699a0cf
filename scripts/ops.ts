import { parseArgs } from 'node:util';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { createApiKey, createPartner, createRider, findPartner } from '../db/accounts';
import { clearUnpaid } from '../db/unpaid-bookings';
import { activeDeliveryId, replaceToken, revokeToken } from '../db/riders';
import { jobsNeedingAttention, reassignJob } from './ops-jobs';
import { forgetDeliveryRecipients, forgetRecipientPhone } from './ops-recipients';
import { LocalFilePhotos } from '../integrations/storage/local-files';
import { loadSettings, riderTokenDays, type Settings } from '../config/settings';
import * as riderSignIns from '../db/rider-sign-ins';
import { newSignInCode, signInLink, SIGN_IN_LINK_HOURS } from '../domain/rider-sign-in';
import { callSessionStore, readDeliveryCalls } from '../db/call-sessions';
import { LocalCallBridge } from '../integrations/calling/local-bridge';
import { generateSecret, hashSecret } from '../domain/api-key';
import { readOutbox } from '../db/sms-outbox';
import { initOrm } from '../db/orm';
import { isGhanaMobile, normaliseGhanaPhone } from '../domain/phone';
import { hashPassword } from '../api/dashboard/passwords';
import { LIMITS, PASSWORD_MIN } from '../domain/limits';
import { EMAIL } from '../api/dashboard/respond';
import { isUuid } from '../domain/uuid';

/**
 * Operator commands (DESIGN section 10): `npm run ops -- <command> [options]`. Each prints one
 * JSON object. They use DATABASE_URL, or the database `npm start` wrote to .data/stack.json.
 */
const USAGE = `Usage: npm run ops -- <command>
  partner:create --email E --business B [--password P]
  key:create --partner ID --label L [--test]
  partner:clear-unpaid --partner ID [--test]
  rider:create --name N [--vehicle V] [--phone PHONE] [--lat LAT --lng LNG]
  rider:token --rider ID
  rider:revoke --rider ID [--reassign]
  jobs:attention
  job:reassign --delivery ID [--rider RIDER_ID]
  outbox --to PHONE
  calls --delivery ID
  call:place --via NUMBER
  recipient:forget --phone PHONE | --delivery ID`;

/** What `npm start` wrote about the running stack, if it runs. */
async function runningStack(): Promise<{ databaseUrl?: string; apiUrl?: string; temporalAddress?: string }> {
  const { readFile } = await import('node:fs/promises');
  try {
    const dir = process.env.STACK_DATA_DIR ?? '.data';
    return JSON.parse(await readFile(`${dir}/stack.json`, 'utf8')) as { databaseUrl?: string; apiUrl?: string; temporalAddress?: string };
  } catch {
    return {};
  }
}

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const stack = await runningStack();
  if (stack.databaseUrl) return stack.databaseUrl;
  throw new Error('DATABASE_URL is not set and no running `npm start` was found');
}

/**
 * Where a rider's phone opens the app: SITE_URL as the API reads it, else the API `npm start` runs.
 * On a phone, localhost is the phone itself: set SITE_URL=http://<this machine's address>:3000.
 */
async function siteUrl(): Promise<string> {
  const given = process.env.SITE_URL?.trim();
  if (given) {
    if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol)) fail('SITE_URL must be an http:// or https:// URL');
    return given;
  }
  return (await runningStack()).apiUrl ?? `http://localhost:${process.env.PORT || 3000}`;
}

/**
 * A one-time link that signs the rider app in, kept as a hash, printed in the JSON and, for a
 * phone's camera, as a QR code on stderr (stdout stays one JSON object for scripts).
 */
async function signInFor(em: Parameters<typeof riderSignIns.issue>[0], riderId: string): Promise<{ sign_in_url: string; sign_in_expires_at: string }> {
  const code = newSignInCode();
  const issued = await riderSignIns.issue(em, riderId, hashSecret(code), SIGN_IN_LINK_HOURS);
  if (!issued) fail('Unknown rider');
  const url = signInLink(await siteUrl(), code);
  // No types ship with it; this is the one call used.
  const qrcode = require('qrcode-terminal') as { generate(text: string, options: { small: boolean }, done: (qr: string) => void): void };
  qrcode.generate(url, { small: true }, (qr) => process.stderr.write(`Scan with the rider's phone (works once, for ${SIGN_IN_LINK_HOURS} hours):\n${qr}\n${url}\n`));
  return { sign_in_url: url, sign_in_expires_at: issued.expiresAt.toISOString() };
}

/**
 * The service's settings as the API and worker read them (Temporal's address, RIDER_SILENT_MINUTES),
 * with the database and Temporal `npm start` runs when the environment names none.
 */
async function settings(): Promise<Settings> {
  const stack = await runningStack();
  return loadSettings({
    ...process.env,
    DATABASE_URL: await databaseUrl(),
    ...(process.env.TEMPORAL_ADDRESS || !stack.temporalAddress ? {} : { TEMPORAL_ADDRESS: stack.temporalAddress }),
  });
}

/** A refusal by the delivery's workflow (or a Temporal that does not answer), said in one line. */
function refused(error: unknown): never {
  fail(error instanceof Error ? error.message : String(error));
}

function fail(message: string): never {
  process.stdout.write(`${JSON.stringify({ error: message })}\n`);
  process.exit(2);
}

/** Text an operator types is held to the limits the API and dashboard apply (DESIGN section 9). */
function text(value: string | undefined, option: string, max: number): string {
  const trimmed = value?.trim() ?? '';
  if (!trimmed) fail(USAGE);
  if (trimmed.length > max) fail(`--${option} takes at most ${max} characters`);
  return trimmed;
}

/** A coordinate given as a number within its range, or null when neither --lat nor --lng is given. */
function position(lat: string | undefined, lng: string | undefined): { lat: number | null; lng: number | null } {
  if (lat === undefined && lng === undefined) return { lat: null, lng: null };
  const number = (raw: string | undefined) => (raw !== undefined && /^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : NaN);
  const at = { lat: number(lat), lng: number(lng) };
  if (!(Math.abs(at.lat) <= 90) || !(Math.abs(at.lng) <= 180)) fail('--lat and --lng go together, as numbers within ±90 and ±180');
  return at;
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

/**
 * The outbox keeps numbers in the contract's form `+233XXXXXXXXX`; an operator may type one as
 * Ghanaians write it (`024 123 4567`, `233241234567`). Anything else is no phone number: an
 * empty list for it would read as "nothing was sent".
 */
function ghanaPhone(raw: string, option = 'to'): string {
  const phone = normaliseGhanaPhone(raw);
  if (!/^\+233\d{9}$/.test(phone)) fail(`--${option} takes a Ghana phone number, like +233241234567 or 0241234567`);
  return phone;
}

function riderOption(raw: string | undefined): string {
  if (!raw) fail(USAGE);
  if (!isUuid(raw)) fail('Unknown rider');
  return raw;
}

const COMMANDS = ['partner:create', 'key:create', 'partner:clear-unpaid', 'rider:create', 'rider:token', 'rider:revoke', 'jobs:attention', 'job:reassign', 'outbox', 'calls', 'call:place', 'recipient:forget'];

async function main(): Promise<void> {
  const [command, ...given] = process.argv.slice(2);
  // Help needs no database: an operator may ask before anything runs.
  if (command === undefined || ['--help', '-h', 'help'].includes(command)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!COMMANDS.includes(command)) fail(`Unknown command ${command}. ${USAGE}`);
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
      phone: { type: 'string' },
      lat: { type: 'string' },
      lng: { type: 'string' },
      to: { type: 'string' },
      rider: { type: 'string' },
      delivery: { type: 'string' },
      via: { type: 'string' },
      reassign: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const orm = await initOrm(await databaseUrl(), 2);
  const em = orm.em.fork();
  try {
    let result: unknown;
    switch (command) {
      case 'partner:create': {
        const email = text(values.email, 'email', 254);
        if (!EMAIL.test(email)) fail('--email must be an email address like name@example.com');
        const businessName = text(values.business, 'business', LIMITS.name);
        if (values.password !== undefined && (values.password.length < PASSWORD_MIN || values.password.length > 200)) {
          fail(`--password takes ${PASSWORD_MIN} to 200 characters`);
        }
        const passwordHash = values.password ? await hashPassword(values.password) : null;
        const partner = await createPartner(em, { email, businessName, passwordHash, confirmed: true }).catch((error: unknown) => {
          if (error instanceof UniqueConstraintViolationException) fail('A partner with this email already exists');
          throw error;
        });
        result = { partner_id: partner.partnerId, email: partner.email };
        break;
      }
      case 'key:create': {
        if (!values.partner) fail(USAGE);
        if (!isUuid(values.partner)) fail('Unknown partner');
        const label = text(values.label, 'label', LIMITS.label);
        const key = await createApiKey(em, { partnerId: values.partner, label, mode: values.test ? 'test' : 'live' });
        result = { key_id: key.keyId, api_key: key.apiKey };
        break;
      }
      case 'partner:clear-unpaid': {
        // One mode at a time, as keys are made: live unless --test, so lifting a sandbox hold never lifts a live one.
        if (!values.partner) fail(USAGE);
        if (!isUuid(values.partner) || !(await findPartner(em, values.partner))) fail('Unknown partner');
        const mode = values.test ? 'test' : 'live';
        const cleared = await clearUnpaid(em, { partnerId: values.partner, mode });
        result = { partner_id: values.partner, mode, unpaid_deliveries_before: cleared.unpaid, unpaid_cleared_at: cleared.clearedAt.toISOString() };
        break;
      }
      case 'rider:create': {
        const name = text(values.name, 'name', LIMITS.name);
        const vehicle = values.vehicle === undefined ? null : text(values.vehicle, 'vehicle', LIMITS.name);
        // The rider's own number, which a proxy-number provider bridges calls to; never shown to anyone.
        const phone = values.phone === undefined ? null : normaliseGhanaPhone(values.phone);
        if (phone !== null && !isGhanaMobile(phone)) fail('--phone must be a Ghana mobile number like +233241234567');
        const rider = await createRider(em, { name, vehicle, phone, ...position(values.lat, values.lng), tokenDays: riderTokenDays() });
        result = { rider_id: rider.riderId, rider_token: rider.riderToken, ...(await signInFor(em, rider.riderId)) };
        break;
      }
      case 'rider:token': {
        const riderId = riderOption(values.rider);
        // Shown once, here; only its hash is stored. The old token stops working within the API's auth cache time.
        const riderToken = generateSecret('live', 'rk');
        if (!(await replaceToken(em, riderId, hashSecret(riderToken), riderTokenDays()))) fail('Unknown rider');
        result = { rider_id: riderId, rider_token: riderToken, ...(await signInFor(em, riderId)) };
        break;
      }
      case 'rider:revoke': {
        const riderId = riderOption(values.rider);
        // A job held by a rider who can no longer sign in would be stuck: it moves first, or the revoke waits.
        const held = await activeDeliveryId(em, riderId);
        if (held && !values.reassign) fail(`The rider holds job ${held}: reassign it first (job:reassign), or run rider:revoke --reassign`);
        const reassigned = held ? await reassignJob(em, await settings(), held, null).catch(refused) : null;
        if (!(await revokeToken(em, riderId))) fail('Unknown rider');
        result = { rider_id: riderId, revoked: true, ...(reassigned ? { reassigned } : {}) };
        break;
      }
      case 'jobs:attention': {
        result = await jobsNeedingAttention(em, await settings());
        break;
      }
      case 'job:reassign': {
        if (!values.delivery) fail(USAGE);
        if (!isUuid(values.delivery)) fail('Unknown delivery');
        const riderId = values.rider === undefined ? null : riderOption(values.rider);
        result = await reassignJob(em, await settings(), values.delivery.toLowerCase(), riderId).catch(refused);
        break;
      }
      case 'calls': {
        if (!values.delivery) fail(USAGE);
        if (!isUuid(values.delivery)) fail('Unknown delivery');
        result = { calls: await readDeliveryCalls(em, values.delivery) };
        break;
      }
      case 'call:place': {
        // The local call bridge's stand-in for a phone dialling a masked number a rider was given.
        if (!values.via) fail(USAGE);
        result = await new LocalCallBridge(callSessionStore(() => em)).placeCall(normaliseGhanaPhone(values.via));
        break;
      }
      case 'recipient:forget': {
        // A recipient's request to have their data removed (docs/operations.md, "Data protection").
        const { phone, delivery } = values;
        if ((phone === undefined) === (delivery === undefined)) fail('recipient:forget takes either --phone PHONE or --delivery ID');
        const deps = { orm, photos: new LocalFilePhotos((await settings()).uploadsDir) };
        if (phone !== undefined) {
          result = await forgetRecipientPhone(deps, ghanaPhone(phone, 'phone'));
        } else if (delivery !== undefined) {
          if (!isUuid(delivery)) fail('Unknown delivery');
          result = await forgetDeliveryRecipients(deps, delivery.toLowerCase()).catch(refused);
        }
        break;
      }
      case 'outbox': {
        if (!values.to) fail(USAGE);
        result = { messages: await readOutbox(em, ghanaPhone(values.to)) };
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
