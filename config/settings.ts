/**
 * Every setting the processes read, taken from the environment and validated once at start.
 * A wrong value stops the process with a message naming the variable; so does, with
 * NODE_ENV=production, a development default that would be unsafe there.
 */
import { isIP } from 'node:net';
import type { KeyMode } from '../domain/api-key';
import type { DeliveryTimings } from '../domain/timings';
import type { ServiceArea } from '../domain/service-area';
import { DEFAULT_SERVICE_AREA_FILE, readServiceArea } from './service-area-file';

export type NodeEnv = 'development' | 'test' | 'production';

export interface Settings extends DeliveryTimings {
  nodeEnv: NodeEnv;
  /**
   * A staging deployment's one opt-in: with NODE_ENV=production it may still take payments on the
   * sandbox network (or Paystack's test mode), keep texts in the outbox and write mail to files.
   */
  allowSandboxInProduction: boolean;
  port: number;
  siteUrl: string;
  databaseUrl: string;
  databasePoolMax: number;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  temporalApiKey?: string;
  temporalTls: boolean;
  /** How long the API waits on any one Temporal call before it answers 503. */
  temporalCallTimeoutSeconds: number;
  /** How long the sandbox network takes to confirm a debit. */
  sandboxConfirmMs: number;
  /** How often the booking sweeper looks for bookings no workflow has claimed (a Temporal Schedule). */
  bookingSweepIntervalSeconds: number;
  /**
   * How long after its commit a booking still unclaimed by a workflow counts as orphaned, by
   * Postgres' clock. Longer than TEMPORAL_CALL_TIMEOUT_SECONDS, so a booking whose start is still
   * in flight is not counted; a shorter one only starts (harmlessly) what the API is starting.
   */
  bookingOrphanAfterSeconds: number;
  /** How often the debit reconciliation asks the gateways about debits whose record may be wrong (a Temporal Schedule). */
  reconcileIntervalSeconds: number;
  /** A debit still pending this long after its request is checked by the reconciliation, as is one checked this long ago. */
  reconcilePendingAfterSeconds: number;
  paymentGateway: 'sandbox' | 'paystack';
  paystackSecretKey?: string;
  paystackBaseUrl: string;
  /** How long one request to Paystack may take before it counts as unanswered. */
  paystackTimeoutMs: number;
  routingProvider: 'estimate' | 'osrm';
  osrmUrl: string;
  /** The GeoJSON file of the areas riders serve (SERVICE_AREA_FILE), read once at start. */
  serviceAreaFile: string;
  /** Where every pickup, stop and drop-off must lie: the areas of serviceAreaFile. */
  serviceArea: ServiceArea;
  /** The longest route by road a quote or a booking may have (MAX_ROUTE_KM). */
  maxRouteKm: number;
  /** How long a quote's fare holds for a booking that names it (QUOTE_TTL_SECONDS). */
  quoteTtlSeconds: number;
  etaProvider: 'estimate' | 'osrm' | 'mapbox';
  mapboxToken?: string;
  mapboxUrl: string;
  placesProvider: 'gazetteer' | 'photon';
  photonUrl: string;
  /** Where live deliveries' hand-over codes are texted: the Postgres outbox, or an SMS HTTP API. */
  smsProvider: 'outbox' | 'http';
  smsUrl?: string;
  smsApiKey?: string;
  /** The sender name the SMS API shows (Ghana's networks take up to 11 characters). */
  smsSender: string;
  /**
   * Who gives riders masked numbers for a job's recipients: the local bridge (Postgres, reaches
   * nobody), Twilio Proxy, or a pool of numbers rented from a voice provider (CALL_PROVIDER).
   */
  callMasking: 'local' | 'twilio-proxy' | 'number-pool';
  /** With number-pool: whose numbers the pool is, and whose incoming-call callback the API answers. */
  callProvider?: 'africastalking' | 'twilio';
  /** With number-pool: the rented numbers (E.164) riders are given to call recipients through. */
  callPoolNumbers: string[];
  /** The last part of Africa's Talking's callback path, which only Africa's Talking is given. */
  africastalkingCallbackSecret?: string;
  /** Addresses and subnets Africa's Talking calls from; empty takes any (refused in production). */
  africastalkingCallbackIps: string[];
  twilioAccountSid?: string;
  twilioAuthToken?: string;
  /** The Twilio Proxy service (KS…) whose number pool the sessions draw from. */
  twilioProxyServiceSid?: string;
  twilioProxyUrl: string;
  /** How long one request to Twilio Proxy may take before the rider's request answers 503. */
  twilioTimeoutMs: number;
  referencePrefix: string;
  logLevel: string;
  dataDir: string;
  /** Where uploaded hand-over photos are kept by the offline storage. */
  uploadsDir: string;
  /**
   * Where hand-over photos are stored: files under UPLOADS_DIR (one host), or an S3-compatible
   * bucket that every API process reaches.
   */
  photoStore: 'local' | 's3';
  /** With s3: the bucket, its API's address (unset: AWS S3 in S3_REGION) and region. */
  s3Bucket?: string;
  s3Endpoint?: string;
  /** The address partners open signed photo links at; S3_ENDPOINT unless the store sits behind another name. */
  s3PublicUrl?: string;
  s3Region: string;
  /** Unset: the AWS SDK's own credential chain (AWS_ACCESS_KEY_ID, an instance role…). */
  s3AccessKeyId?: string;
  s3SecretAccessKey?: string;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`: what most S3-compatible servers expect. */
  s3ForcePathStyle: boolean;
  /** How long a signed link to a hand-over photo works (PROOF_LINK_MINUTES); each read of the proof signs afresh. */
  proofLinkMinutes: number;
  /** Photo uploads one API process reads at once; more wait briefly for a slot, then get 503. */
  uploadsMaxConcurrent: number;
  mailDir: string;
  smtpUrl?: string;
  /** The sender of the dashboard's emails. */
  mailFrom: string;
  /** How long an email confirmation link works. */
  emailConfirmHours: number;
  /** How long a password-reset link works (PASSWORD_RESET_MINUTES). */
  passwordResetMinutes: number;
  /**
   * Signs dashboard session and CSRF cookies; when unset, a random one generated once and kept in
   * the database is used (not a development default, so production may leave it unset).
   */
  sessionSecret?: string;
  /** A dashboard session ends after this long without a request. */
  dashboardSessionSeconds: number;
  mapTileUrl?: string;
  rateLimitPartnerPerMinute: number;
  /** Test-mode requests per partner, all its test keys together: test work never crowds out live work. */
  rateLimitPartnerTestPerMinute: number;
  rateLimitRiderPerMinute: number;
  /** How long a rider token works (RIDER_TOKEN_DAYS): the one a rider app's sign-in link gives, too. */
  riderTokenDays: number;
  /** A rider whose last position is older than this is offered no job: the app may have been killed. */
  riderFreshSeconds: number;
  /** An active job whose rider sent neither a position nor a step for this long needs an operator. */
  riderSilentMinutes: number;
  /** A rider silent this long is set offline, and the app says so. */
  riderOfflineMinutes: number;
  /** How often the street watch (a Temporal Schedule) looks for silent riders and jobs. */
  streetWatchIntervalSeconds: number;
  /**
   * Days a finished delivery keeps its recipients' names, phones and photos (RETENTION_DAYS); a
   * daily Temporal Schedule then redacts them everywhere they are kept (docs/operations.md).
   */
  retentionDays: number;
  /** Per client IP on the public tracking view. */
  rateLimitPublicPerMinute: number;
  /** Per client IP on place search. */
  rateLimitPlacesPerMinute: number;
  /** Where rate-limit counters live: this process only, or Postgres, shared by every API process. */
  rateLimitStore: 'memory' | 'postgres';
  rateLimitAuthPerMinute: number;
  /** Per client IP on `/partner/...`, counted before the key is looked up. */
  rateLimitPartnerIpPerMinute: number;
  /** Per client IP on `/rider/...`, counted before the token is looked up. */
  rateLimitRiderIpPerMinute: number;
  /** Per partner: payment methods registered or removed (each registration runs the network's name check). */
  paymentMethodChangesPerHour: number;
  /** Per partner: test webhooks sent from the dashboard. */
  webhookTestsPerHour: number;
  /** Per partner: callbacks sent again (partner API and dashboard together). */
  webhookRedeliveriesPerHour: number;
  /** Unrevoked API keys a partner may hold, both modes together. */
  apiKeysMaxActive: number;
  /**
   * Failed debits (per partner and mode, after its latest paid one, within a day) at which its
   * bookings are refused with 402 until a debit succeeds or an operator lifts the hold.
   */
  unpaidBookingsLimit: number;
  /** Hand-over code texts per partner, mode and hour; past it the code is kept for the dashboard, not texted. */
  smsPerPartnerPerHour: number;
  /** Where a worker serves Prometheus metrics (the Temporal SDK's and ours); 0 serves none. */
  workerMetricsPort: number;
  /** When set, the API's GET /metrics requires `Authorization: Bearer <it>`; required in production. */
  metricsToken?: string;
  /**
   * Which peers' X-Forwarded-For the API believes (Express's `trust proxy`): false for none, a
   * number of proxy hops, or addresses, subnets and Express's names (loopback, linklocal, uniquelocal).
   */
  trustProxy: false | number | string[];
  /** A workflow bundle built ahead (`npm run build`); without it the worker bundles at start. */
  workflowBundle?: string;
  /** Worker capacity per process; unset keeps the defaults in workers/worker.ts. */
  workerMaxConcurrentActivities?: number;
  workerMaxConcurrentWorkflowTasks?: number;
  workerMaxCachedWorkflows?: number;
  /**
   * How long a worker's drain may take once it is asked to stop: then it stops by force, and
   * Temporal gives what it held to another worker after its timeouts. Below an orchestrator's own
   * grace (Kubernetes waits 30 s before SIGKILL).
   */
  workerShutdownForceSeconds: number;
  /** Which modes' task queues this worker process polls (WORKER_QUEUES=live,test); both by default. */
  workerQueues: KeyMode[];
  /** The test queue's worker capacity, smaller than the live one's; unset keeps the defaults in workers/worker.ts. */
  workerTestMaxConcurrentActivities?: number;
  workerTestMaxConcurrentWorkflowTasks?: number;
}

type Env = Record<string, string | undefined>;

/** One setting that is missing or wrong, and what is wrong with it. */
export interface SettingProblem {
  variable: string;
  problem: string;
}

/** Every setting found missing or wrong in one reading, so one failed start names them all. */
export class SettingsError extends Error {
  constructor(readonly problems: SettingProblem[]) {
    super(problems.map((p) => `${p.variable}: ${p.problem}`).join('\n'));
    this.name = 'SettingsError';
  }
}

/** The environment being read, and the problems found in it so far. */
interface Source {
  vars: Env;
  problems: SettingProblem[];
}

/** Notes what is wrong and carries on with `fallback`: the reading ends with every problem at once. */
function refuse<T>(env: Source, variable: string, problem: string, fallback: T): T {
  env.problems.push({ variable, problem });
  return fallback;
}

function text(env: Source, name: string, fallback: string): string {
  const value = env.vars[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Source, name: string): string | undefined {
  const value = env.vars[name];
  return value === undefined || value === '' ? undefined : value;
}

function number(env: Source, name: string, fallback: number, { min = 0, max = Infinity, integer = false } = {}): number {
  const raw = env.vars[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const range = max === Infinity ? `>= ${min}` : `from ${min} to ${max}`;
    return refuse(env, name, `expected ${integer ? 'an integer' : 'a number'} ${range}, got "${raw}"`, fallback);
  }
  return value;
}

/** A TCP port number, 0 to 65535; what 0 means is the setting's own (WORKER_METRICS_PORT: no metrics server). */
function port(env: Source, name: string, fallback: number): number {
  return number(env, name, fallback, { max: 65_535, integer: true });
}

function optionalInteger(env: Source, name: string): number | undefined {
  return optional(env, name) === undefined ? undefined : number(env, name, 0, { min: 1, integer: true });
}

function oneOf<T extends string>(env: Source, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    return refuse(env, name, `expected one of ${allowed.join(', ')}, got "${raw}"`, fallback);
  }
  return raw as T;
}

/** An http(s) address: `localhost:3000` parses as a URL of scheme `localhost:`, and is refused. */
function url(env: Source, name: string, fallback: string): string {
  const raw = text(env, name, fallback);
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
    return refuse(env, name, `expected an http:// or https:// URL, got "${raw}"`, fallback);
  }
  return raw.replace(/\/+$/, '');
}

/** Express's names for address ranges a proxy may sit in. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrSubnet(item: string): boolean {
  const [address = '', prefix, extra] = item.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `false`, a number of hops, or a comma-separated list of addresses, subnets and
 * range names. `true` (believe every hop) is refused: any client could then pick its own address
 * and with it a fresh rate-limit budget on every request.
 */
function trustProxy(env: Source, fallback: false | number | string[]): false | number | string[] {
  const raw = optional(env, 'TRUST_PROXY')?.trim();
  if (raw === undefined) return fallback;
  if (raw === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) return number(env, 'TRUST_PROXY', 0, { min: 1, max: 10, integer: true }) || false;
  const items = raw.split(',').map((item) => item.trim());
  const wrong = items.filter((item) => !PROXY_RANGE_NAMES.includes(item) && !isAddressOrSubnet(item));
  if (raw === 'true' || wrong.length > 0) {
    return refuse(env, 'TRUST_PROXY', `expected false, a number of proxy hops (1 to 10), or a comma-separated list of addresses, subnets and ${PROXY_RANGE_NAMES.join(', ')}; got "${raw}"`, fallback);
  }
  return items;
}

/** An SMTP address; never quoted back in a message, since it usually holds the mail password. */
function smtpUrl(env: Source): string | undefined {
  const raw = optional(env, 'SMTP_URL');
  if (raw !== undefined && (!URL.canParse(raw) || !/^smtps?:$/.test(new URL(raw).protocol))) {
    return refuse(env, 'SMTP_URL', 'expected an smtp:// or smtps:// URL (the value is not shown: it may hold a password)', undefined);
  }
  return raw;
}

const STAGING = 'or ALLOW_SANDBOX_IN_PRODUCTION=true for a staging deployment';

/** What a production process is told to set for masked calls that reach recipients. */
const REAL_CALLING =
  'set CALL_MASKING=number-pool with CALL_PROVIDER (africastalking or twilio) and CALL_POOL_NUMBERS, or CALL_MASKING=twilio-proxy with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PROXY_SERVICE_SID';

/** Secrets shorter than this are refused in production: 32 characters of base64 are 192 bits. */
const MIN_SESSION_SECRET_LENGTH = 32;

/**
 * The production rules. Every live booking must be charged by a real gateway, its hand-over code
 * texted by a real provider, its recipients reached through real masked numbers and the
 * dashboard's mail sent, unless ALLOW_SANDBOX_IN_PRODUCTION says
 * this is a staging deployment; development defaults that would weaken security have no opt-in.
 */
function refuseUnsafeInProduction(env: Source, s: Settings): void {
  const given = (name: string) => optional(env, name) !== undefined;
  // A variable already refused (a misspelt value, say) is named once, with that first problem.
  const refuse = (variable: string, problem: string) => {
    if (!env.problems.some((p) => p.variable === variable)) env.problems.push({ variable, problem });
  };
  if (!s.allowSandboxInProduction) {
    if (!given('PAYMENT_GATEWAY')) {
      refuse('PAYMENT_GATEWAY', `required when NODE_ENV=production (its default, sandbox, marks live bookings paid without taking any money): set PAYMENT_GATEWAY=paystack with PAYSTACK_SECRET_KEY, ${STAGING}`);
    } else if (s.paymentGateway === 'sandbox') {
      refuse('PAYMENT_GATEWAY', `sandbox is refused when NODE_ENV=production: a fake network would mark live bookings paid and real riders would be dispatched; set PAYMENT_GATEWAY=paystack with PAYSTACK_SECRET_KEY, ${STAGING}`);
    } else if (payingInTestMode(s)) {
      refuse('PAYSTACK_SECRET_KEY', `a Paystack test key (sk_test_…) is refused when NODE_ENV=production: Paystack's test mode takes no money while real riders would be dispatched; set the live secret key (sk_live_…), ${STAGING}`);
    }
    if (!given('SMS_PROVIDER')) {
      refuse('SMS_PROVIDER', `required when NODE_ENV=production (its default, outbox, keeps live hand-over codes in the database and texts nobody): set SMS_PROVIDER=http with SMS_URL and SMS_API_KEY, ${STAGING}`);
    } else if (s.smsProvider === 'outbox') {
      refuse('SMS_PROVIDER', `outbox is refused when NODE_ENV=production: live hand-over codes would stay in the database and never reach recipients; set SMS_PROVIDER=http with SMS_URL and SMS_API_KEY, ${STAGING}`);
    }
    if (!given('CALL_MASKING')) {
      refuse('CALL_MASKING', `required when NODE_ENV=production (its default, local, gives riders masked numbers that reach nobody): ${REAL_CALLING}, ${STAGING}`);
    } else if (s.callMasking === 'local') {
      refuse('CALL_MASKING', `local is refused when NODE_ENV=production: the local bridge routes no real call, so riders could not reach recipients; ${REAL_CALLING}, ${STAGING}`);
    }
    if (!given('SMTP_URL')) {
      refuse('SMTP_URL', `required when NODE_ENV=production: without it the dashboard's emails (sign-up confirmations) are only written to files under MAIL_DIR; set an smtp:// or smtps:// URL, ${STAGING}`);
    }
  }
  if (s.smtpUrl !== undefined && !given('MAIL_FROM')) {
    refuse('MAIL_FROM', 'required when NODE_ENV=production and SMTP_URL is set: mail servers refuse or file as spam the default sender, no-reply@localhost; set an address on your own domain');
  }
  if (s.sessionSecret !== undefined && s.sessionSecret.length < MIN_SESSION_SECRET_LENGTH) {
    refuse('SESSION_SECRET', `too short for NODE_ENV=production (${s.sessionSecret.length} characters, at least ${MIN_SESSION_SECRET_LENGTH}): whoever guesses it can forge dashboard sessions; set a random one (openssl rand -base64 32), or leave it unset to use the one generated and kept in the database`);
  }
  if (s.rateLimitStore === 'memory') {
    refuse('RATE_LIMIT_STORE', 'memory is refused when NODE_ENV=production: each API process would count on its own, so several processes allow several times every limit (log-in attempts included); leave it unset or set postgres');
  }
  // Each of these URLs is sent a secret with every request.
  const keyed: [variable: string, url: string | undefined, secret: string, used: boolean][] = [
    ['PAYSTACK_BASE_URL', s.paystackBaseUrl, 'PAYSTACK_SECRET_KEY', s.paymentGateway === 'paystack'],
    ['SMS_URL', s.smsUrl, 'SMS_API_KEY', s.smsProvider === 'http'],
    ['MAPBOX_URL', s.mapboxUrl, 'MAPBOX_TOKEN', s.etaProvider === 'mapbox'],
    ['TWILIO_PROXY_URL', s.twilioProxyUrl, 'TWILIO_AUTH_TOKEN', s.callMasking === 'twilio-proxy'],
  ];
  for (const [variable, address, secret, used] of keyed) {
    if (used && address !== undefined && !address.startsWith('https://')) {
      refuse(variable, `expected an https:// URL when NODE_ENV=production: ${secret} is sent with every request`);
    }
  }
  if (s.metricsToken === undefined) {
    refuse('METRICS_TOKEN', 'required when NODE_ENV=production: without it anyone who reaches the API reads its routes, traffic and error rates at /metrics; set a random one (openssl rand -base64 32) and give it to the scraper as a bearer token');
  } else if (s.metricsToken.length < MIN_SESSION_SECRET_LENGTH) {
    refuse('METRICS_TOKEN', `too short for NODE_ENV=production (at least ${MIN_SESSION_SECRET_LENGTH} characters): set a random one (openssl rand -base64 32)`);
  }
  if (s.callMasking === 'number-pool' && s.callProvider === 'africastalking' && s.africastalkingCallbackIps.length === 0) {
    refuse('AFRICASTALKING_CALLBACK_IPS', "required when NODE_ENV=production with CALL_PROVIDER=africastalking: the callback's secret travels in its path, which proxies and logs on the way may keep; set the addresses Africa's Talking calls from (ask its support), comma-separated, subnets allowed");
  }
  if (!given('PHOTO_STORE')) {
    refuse('PHOTO_STORE', 'required when NODE_ENV=production (its default, local, keeps hand-over photos on this host\'s disk, where another API process cannot read them): set PHOTO_STORE=s3 with S3_BUCKET (and S3_ENDPOINT for a store other than AWS S3), or PHOTO_STORE=local for a single API host');
  } else if (s.photoStore === 's3' && s.s3PublicUrl !== undefined && !s.s3PublicUrl.startsWith('https://')) {
    refuse('S3_PUBLIC_URL', 'expected an https:// URL when NODE_ENV=production: partners open signed photo links there, and each holds a recipient\'s photo; set the store\'s public https:// address (S3_ENDPOINT is used when it is unset)');
  }
  if (s.temporalApiKey !== undefined && !s.temporalTls) {
    refuse('TEMPORAL_TLS', 'false is refused with TEMPORAL_API_KEY when NODE_ENV=production: the key would cross the network unencrypted; leave it unset or set true');
  }
}

function payingInTestMode(s: Pick<Settings, 'paymentGateway' | 'paystackSecretKey'>): boolean {
  return s.paymentGateway === 'paystack' && (s.paystackSecretKey?.startsWith('sk_test_') ?? false);
}

/**
 * Whether callbacks may go to loopback, private and plain-http receivers: only on a developer's
 * machine and in tests. Decided here once, for the URL check when a partner sets it and for the
 * filtering agent at send time; any other environment (a new name included) keeps the guard on.
 */
export function webhooksMayReachPrivateAddresses(nodeEnv: string): boolean {
  return nodeEnv === 'development' || nodeEnv === 'test';
}

/** What a production process may run on an offline stand-in, ALLOW_SANDBOX_IN_PRODUCTION given. */
export type Sandboxed = 'payments' | 'texts' | 'calls' | 'mail';

/**
 * What this process, in production, sends to a stand-in instead of the real thing: live payments
 * to the sandbox network or Paystack's test mode, live texts to the outbox, masked calls to the
 * local bridge, mail to files. Empty
 * outside production, and in production without ALLOW_SANDBOX_IN_PRODUCTION (loadSettings refuses
 * every one of them there).
 */
export function sandboxedInProduction(
  // callMasking may be left out by a caller that asks only about payments (the worker's activities
  // are given no calling settings); the processes' start-up warning passes every setting.
  settings: Pick<Settings, 'nodeEnv' | 'paymentGateway' | 'paystackSecretKey' | 'smsProvider' | 'smtpUrl'> & Partial<Pick<Settings, 'callMasking'>>,
): Sandboxed[] {
  if (settings.nodeEnv !== 'production') return [];
  const sandboxed: Sandboxed[] = [];
  if (settings.paymentGateway === 'sandbox' || payingInTestMode(settings)) sandboxed.push('payments');
  if (settings.smsProvider === 'outbox') sandboxed.push('texts');
  if (settings.callMasking === 'local') sandboxed.push('calls');
  if (settings.smtpUrl === undefined) sandboxed.push('mail');
  return sandboxed;
}

const SANDBOXED_WHAT: Record<Sandboxed, string> = {
  payments: 'live payments go to a test network, so no money is taken',
  texts: 'live hand-over codes stay in the SMS outbox',
  calls: "riders' masked numbers reach nobody (the local call bridge)",
  mail: 'mail is written to files under MAIL_DIR',
};

/**
 * The line both processes log at start when production runs on stand-ins, so every log says it
 * alike; undefined when nothing is sandboxed.
 */
export function sandboxWarning(settings: Parameters<typeof sandboxedInProduction>[0]): string | undefined {
  const sandboxed = sandboxedInProduction(settings);
  if (sandboxed.length === 0) return undefined;
  return `Sandboxed in production (ALLOW_SANDBOX_IN_PRODUCTION=true): ${sandboxed.map((part) => SANDBOXED_WHAT[part]).join('; ')}. Not for real customers.`;
}

function riderTokenDaysFrom(env: Source): number {
  return number(env, 'RIDER_TOKEN_DAYS', 30, { min: 1, max: 3650, integer: true });
}

/**
 * RIDER_TOKEN_DAYS alone, for `npm run ops`: issuing a rider token must not need every setting a
 * server needs (a production Paystack key, say).
 */
export function riderTokenDays(vars: Env = process.env): number {
  const env: Source = { vars, problems: [] };
  const days = riderTokenDaysFrom(env);
  if (env.problems.length > 0) throw new SettingsError(env.problems);
  return days;
}

/** Reads every setting; a missing or wrong one stops with a SettingsError naming each of them. */
export function loadSettings(vars: Env = process.env): Settings {
  const env: Source = { vars, problems: [] };
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
  const allowSandboxInProduction = oneOf(env, 'ALLOW_SANDBOX_IN_PRODUCTION', ['true', 'false'] as const, 'false') === 'true';
  const dataDir = text(env, 'DATA_DIR', '.data');
  const paymentGateway = oneOf(env, 'PAYMENT_GATEWAY', ['sandbox', 'paystack'] as const, 'sandbox');
  const paystackSecretKey = optional(env, 'PAYSTACK_SECRET_KEY');
  if (paymentGateway === 'paystack' && !paystackSecretKey) {
    refuse(env, 'PAYSTACK_SECRET_KEY', 'required when PAYMENT_GATEWAY=paystack', undefined);
  }
  const etaProvider = oneOf(env, 'ETA_PROVIDER', ['estimate', 'osrm', 'mapbox'] as const, 'estimate');
  const mapboxToken = optional(env, 'MAPBOX_TOKEN');
  if (etaProvider === 'mapbox' && !mapboxToken) {
    refuse(env, 'MAPBOX_TOKEN', 'required when ETA_PROVIDER=mapbox', undefined);
  }
  const smsProvider = oneOf(env, 'SMS_PROVIDER', ['outbox', 'http'] as const, 'outbox');
  const smsApiKey = optional(env, 'SMS_API_KEY');
  const smsUrlGiven = optional(env, 'SMS_URL') !== undefined;
  if (smsProvider === 'http') {
    if (!smsUrlGiven) refuse(env, 'SMS_URL', 'required when SMS_PROVIDER=http', undefined);
    if (!smsApiKey) refuse(env, 'SMS_API_KEY', 'required when SMS_PROVIDER=http', undefined);
  }
  const callMasking = oneOf(env, 'CALL_MASKING', ['local', 'twilio-proxy', 'number-pool'] as const, 'local');
  const twilio = {
    twilioAccountSid: optional(env, 'TWILIO_ACCOUNT_SID'),
    twilioAuthToken: optional(env, 'TWILIO_AUTH_TOKEN'),
    twilioProxyServiceSid: optional(env, 'TWILIO_PROXY_SERVICE_SID'),
  };
  if (callMasking === 'twilio-proxy') {
    for (const [variable, value] of [
      ['TWILIO_ACCOUNT_SID', twilio.twilioAccountSid],
      ['TWILIO_AUTH_TOKEN', twilio.twilioAuthToken],
      ['TWILIO_PROXY_SERVICE_SID', twilio.twilioProxyServiceSid],
    ] as const) {
      if (!value) refuse(env, variable, 'required when CALL_MASKING=twilio-proxy', undefined);
    }
  }
  const numberPool = numberPoolFrom(env, callMasking === 'number-pool', twilio.twilioAuthToken);
  const databaseUrl = optional(env, 'DATABASE_URL') ?? refuse(env, 'DATABASE_URL', 'required (npm start sets it)', '');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    refuse(env, 'DATABASE_URL', 'expected a postgres:// URL', undefined);
  }
  const referencePrefix = text(env, 'REFERENCE_PREFIX', 'DLV');
  if (!/^[A-Z0-9]{1,10}$/.test(referencePrefix)) {
    refuse(env, 'REFERENCE_PREFIX', 'expected 1 to 10 capital letters or digits', undefined);
  }
  const apiPort = port(env, 'PORT', 3000);
  if (nodeEnv === 'production' && optional(env, 'SITE_URL') === undefined) {
    // The default below is this machine; a deployment's tracking links, callback bodies and
    // confirmation emails would all point at it.
    refuse(env, 'SITE_URL', 'required when NODE_ENV=production: the address partners and recipients open the site at', undefined);
  }
  const settings: Settings = {
    nodeEnv,
    allowSandboxInProduction,
    port: apiPort,
    // On the machine itself the site is the API's own port, so `PORT=3200` alone gives working links.
    siteUrl: url(env, 'SITE_URL', `http://localhost:${apiPort}`),
    databaseUrl,
    databasePoolMax: number(env, 'DATABASE_POOL_MAX', 10, { min: 1, integer: true }),
    temporalAddress: text(env, 'TEMPORAL_ADDRESS', 'localhost:7233'),
    temporalNamespace: text(env, 'TEMPORAL_NAMESPACE', 'default'),
    temporalTaskQueue: text(env, 'TEMPORAL_TASK_QUEUE', 'deliveries'),
    temporalApiKey: optional(env, 'TEMPORAL_API_KEY'),
    temporalTls: oneOf(env, 'TEMPORAL_TLS', ['true', 'false'] as const, optional(env, 'TEMPORAL_API_KEY') ? 'true' : 'false') === 'true',
    temporalCallTimeoutSeconds: number(env, 'TEMPORAL_CALL_TIMEOUT_SECONDS', 30, { min: 0.1 }),
    dispatchTimeoutSeconds: number(env, 'DISPATCH_TIMEOUT_SECONDS', 900, { min: 1 }),
    dispatchWidenSeconds: number(env, 'DISPATCH_WIDEN_SECONDS', 60, { min: 0.1 }),
    dispatchInitialRadiusKm: number(env, 'DISPATCH_INITIAL_RADIUS_KM', 3, { min: 0.1 }),
    dispatchMaxRadiusKm: number(env, 'DISPATCH_MAX_RADIUS_KM', 15, { min: 0.1 }),
    webhookRetryInitialSeconds: number(env, 'WEBHOOK_RETRY_INITIAL_SECONDS', 15, { min: 0.01 }),
    webhookRetryCoefficient: number(env, 'WEBHOOK_RETRY_COEFFICIENT', 5, { min: 1 }),
    webhookTimeoutSeconds: number(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, { min: 0.1 }),
    roboRiderStepSeconds: number(env, 'ROBO_RIDER_STEP_SECONDS', 5, { min: 0.01 }),
    paymentPollSeconds: number(env, 'PAYMENT_POLL_SECONDS', 5, { min: 0.05 }),
    paymentConfirmLimitSeconds: number(env, 'PAYMENT_CONFIRM_LIMIT_SECONDS', 1800, { min: 1 }),
    sandboxConfirmMs: number(env, 'SANDBOX_CONFIRM_MS', 2000, { integer: true }),
    debitRetryInitialSeconds: number(env, 'DEBIT_RETRY_INITIAL_SECONDS', 2, { min: 0.01 }),
    bookingSweepIntervalSeconds: number(env, 'BOOKING_SWEEP_INTERVAL_SECONDS', 60, { min: 1 }),
    bookingOrphanAfterSeconds: number(env, 'BOOKING_ORPHAN_AFTER_SECONDS', 60, { min: 1 }),
    reconcileIntervalSeconds: number(env, 'RECONCILE_INTERVAL_SECONDS', 300, { min: 1 }),
    reconcilePendingAfterSeconds: number(env, 'RECONCILE_PENDING_AFTER_SECONDS', 3600, { min: 1 }),
    paymentGateway,
    paystackSecretKey,
    paystackBaseUrl: url(env, 'PAYSTACK_BASE_URL', 'https://api.paystack.co'),
    paystackTimeoutMs: number(env, 'PAYSTACK_TIMEOUT_MS', 10_000, { min: 1, integer: true }),
    routingProvider: oneOf(env, 'ROUTING_PROVIDER', ['estimate', 'osrm'] as const, 'estimate'),
    osrmUrl: url(env, 'OSRM_URL', 'https://router.project-osrm.org'),
    ...serviceArea(env),
    maxRouteKm: number(env, 'MAX_ROUTE_KM', 80, { min: 1 }),
    quoteTtlSeconds: number(env, 'QUOTE_TTL_SECONDS', 900, { min: 1 }),
    etaProvider,
    mapboxToken,
    mapboxUrl: url(env, 'MAPBOX_URL', 'https://api.mapbox.com'),
    placesProvider: oneOf(env, 'PLACES_PROVIDER', ['gazetteer', 'photon'] as const, 'gazetteer'),
    photonUrl: url(env, 'PHOTON_URL', 'https://photon.komoot.io'),
    smsProvider,
    smsUrl: smsProvider === 'http' && smsUrlGiven ? url(env, 'SMS_URL', '') : optional(env, 'SMS_URL'),
    smsApiKey,
    smsSender: text(env, 'SMS_SENDER', 'Delivery'),
    callMasking,
    ...twilio,
    ...numberPool,
    twilioProxyUrl: url(env, 'TWILIO_PROXY_URL', 'https://proxy.twilio.com'),
    twilioTimeoutMs: number(env, 'TWILIO_TIMEOUT_MS', 5000, { min: 1, integer: true }),
    referencePrefix,
    logLevel: oneOf(env, 'LOG_LEVEL', ['error', 'warn', 'info', 'http', 'debug'] as const, nodeEnv === 'test' ? 'warn' : 'info'),
    dataDir,
    uploadsDir: text(env, 'UPLOADS_DIR', `${dataDir}/uploads`),
    uploadsMaxConcurrent: number(env, 'UPLOADS_MAX_CONCURRENT', 16, { min: 1, integer: true }),
    ...photoStoreFrom(env),
    // S3 signs links for at most seven days.
    proofLinkMinutes: number(env, 'PROOF_LINK_MINUTES', 15, { min: 0.01, max: 7 * 24 * 60 }),
    mailDir: text(env, 'MAIL_DIR', `${dataDir}/mail`),
    smtpUrl: smtpUrl(env),
    mailFrom: text(env, 'MAIL_FROM', 'Partner Delivery <no-reply@localhost>'),
    emailConfirmHours: number(env, 'EMAIL_CONFIRM_HOURS', 24, { min: 0.01 }),
    passwordResetMinutes: number(env, 'PASSWORD_RESET_MINUTES', 60, { min: 1 }),
    sessionSecret: optional(env, 'SESSION_SECRET'),
    dashboardSessionSeconds: number(env, 'DASHBOARD_SESSION_SECONDS', 8 * 3600, { min: 1 }),
    mapTileUrl: optional(env, 'MAP_TILE_URL'),
    rateLimitPartnerPerMinute: number(env, 'RATE_LIMIT_PARTNER_PER_MINUTE', 600, { min: 1, integer: true }),
    rateLimitPartnerTestPerMinute: number(env, 'RATE_LIMIT_PARTNER_TEST_PER_MINUTE', 300, { min: 1, integer: true }),
    rateLimitRiderPerMinute: number(env, 'RATE_LIMIT_RIDER_PER_MINUTE', 1200, { min: 1, integer: true }),
    riderTokenDays: riderTokenDaysFrom(env),
    riderFreshSeconds: number(env, 'RIDER_FRESH_SECONDS', 90, { min: 1 }),
    riderSilentMinutes: number(env, 'RIDER_SILENT_MINUTES', 10, { min: 0.01 }),
    riderOfflineMinutes: number(env, 'RIDER_OFFLINE_MINUTES', 15, { min: 0.01 }),
    streetWatchIntervalSeconds: number(env, 'STREET_WATCH_INTERVAL_SECONDS', 60, { min: 1 }),
    retentionDays: number(env, 'RETENTION_DAYS', 90, { min: 1, integer: true }),
    rateLimitPublicPerMinute: number(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 600, { min: 1, integer: true }),
    rateLimitPlacesPerMinute: number(env, 'RATE_LIMIT_PLACES_PER_MINUTE', 120, { min: 1, integer: true }),
    rateLimitStore: oneOf(env, 'RATE_LIMIT_STORE', ['memory', 'postgres'] as const, nodeEnv === 'production' ? 'postgres' : 'memory'),
    rateLimitAuthPerMinute: number(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 10, { min: 1, integer: true }),
    rateLimitPartnerIpPerMinute: number(env, 'RATE_LIMIT_PARTNER_IP_PER_MINUTE', 3000, { min: 1, integer: true }),
    rateLimitRiderIpPerMinute: number(env, 'RATE_LIMIT_RIDER_IP_PER_MINUTE', 12000, { min: 1, integer: true }),
    paymentMethodChangesPerHour: number(env, 'PAYMENT_METHOD_CHANGES_PER_HOUR', 20, { min: 1, integer: true }),
    webhookTestsPerHour: number(env, 'WEBHOOK_TESTS_PER_HOUR', 30, { min: 1, integer: true }),
    webhookRedeliveriesPerHour: number(env, 'WEBHOOK_REDELIVERIES_PER_HOUR', 600, { min: 1, integer: true }),
    apiKeysMaxActive: number(env, 'API_KEYS_MAX_ACTIVE', 20, { min: 1, integer: true }),
    unpaidBookingsLimit: number(env, 'UNPAID_BOOKINGS_LIMIT', 3, { min: 1, integer: true }),
    smsPerPartnerPerHour: number(env, 'SMS_PER_PARTNER_PER_HOUR', 600, { min: 1, integer: true }),
    otpMaxAttempts: number(env, 'OTP_MAX_ATTEMPTS', 5, { min: 1, integer: true }),
    otpLockSeconds: number(env, 'OTP_LOCK_SECONDS', 300, { min: 1 }),
    workerMetricsPort: port(env, 'WORKER_METRICS_PORT', 0),
    metricsToken: optional(env, 'METRICS_TOKEN'),
    // In production the API is meant to sit behind a proxy on its own network (the compose file's);
    // a peer on a public address is taken as the client, whatever it forwards.
    trustProxy: trustProxy(env, nodeEnv === 'production' ? ['loopback', 'uniquelocal'] : false),
    workflowBundle: optional(env, 'WORKFLOW_BUNDLE'),
    workerMaxConcurrentActivities: optionalInteger(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES'),
    workerMaxConcurrentWorkflowTasks: optionalInteger(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'),
    workerMaxCachedWorkflows: optionalInteger(env, 'WORKER_MAX_CACHED_WORKFLOWS'),
    workerQueues: workerQueues(env),
    workerShutdownForceSeconds: number(env, 'WORKER_SHUTDOWN_FORCE_SECONDS', 20, { min: 1 }),
    workerTestMaxConcurrentActivities: optionalInteger(env, 'WORKER_TEST_MAX_CONCURRENT_ACTIVITIES'),
    workerTestMaxConcurrentWorkflowTasks: optionalInteger(env, 'WORKER_TEST_MAX_CONCURRENT_WORKFLOW_TASKS'),
  };
  if (nodeEnv === 'production') refuseUnsafeInProduction(env, settings);
  if (env.problems.length > 0) throw new SettingsError(env.problems);
  return settings;
}

/** SERVICE_AREA_FILE: read and checked here, so a file that is missing or wrong stops the start. */
function serviceArea(env: Source): { serviceAreaFile: string; serviceArea: ServiceArea } {
  const serviceAreaFile = text(env, 'SERVICE_AREA_FILE', DEFAULT_SERVICE_AREA_FILE);
  try {
    return { serviceAreaFile, serviceArea: readServiceArea(serviceAreaFile) };
  } catch (error) {
    return refuse(env, 'SERVICE_AREA_FILE', error instanceof Error ? error.message : String(error), { serviceAreaFile, serviceArea: [] });
  }
}

/** PHOTO_STORE and, with s3, the bucket's settings. Never quotes the secret key back. */
function photoStoreFrom(
  env: Source,
): Pick<Settings, 'photoStore' | 's3Bucket' | 's3Endpoint' | 's3PublicUrl' | 's3Region' | 's3AccessKeyId' | 's3SecretAccessKey' | 's3ForcePathStyle'> {
  const photoStore = oneOf(env, 'PHOTO_STORE', ['local', 's3'] as const, 'local');
  const s3Endpoint = optional(env, 'S3_ENDPOINT') === undefined ? undefined : url(env, 'S3_ENDPOINT', '');
  const s3PublicUrl = optional(env, 'S3_PUBLIC_URL') === undefined ? s3Endpoint : url(env, 'S3_PUBLIC_URL', '');
  const s3Bucket = optional(env, 'S3_BUCKET');
  const s3AccessKeyId = optional(env, 'S3_ACCESS_KEY_ID');
  const s3SecretAccessKey = optional(env, 'S3_SECRET_ACCESS_KEY');
  if (photoStore === 's3') {
    if (!s3Bucket) refuse(env, 'S3_BUCKET', 'required when PHOTO_STORE=s3: the bucket hand-over photos are kept in', undefined);
    if ((s3AccessKeyId === undefined) !== (s3SecretAccessKey === undefined)) {
      const missing = s3AccessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
      refuse(env, missing, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or leave both unset for the AWS SDK\'s own credentials)', undefined);
    }
  }
  // A store at an address of its own (SeaweedFS, Garage, Ceph…) takes the bucket in the path; AWS S3 in the host name.
  const pathStyle = oneOf(env, 'S3_FORCE_PATH_STYLE', ['true', 'false'] as const, s3Endpoint === undefined ? 'false' : 'true') === 'true';
  return {
    photoStore,
    s3Bucket,
    s3Endpoint,
    s3PublicUrl,
    s3Region: text(env, 'S3_REGION', 'us-east-1'),
    s3AccessKeyId,
    s3SecretAccessKey,
    s3ForcePathStyle: pathStyle,
  };
}

/** A number as a voice provider writes it: `+`, the country code and the subscriber number. */
const E164 = /^\+[1-9]\d{6,14}$/;

/** Africa's Talking's callback secret: at least 192 bits, and nothing a URL path would change. */
const CALLBACK_SECRET = /^[A-Za-z0-9_-]{32,}$/;

/**
 * The number pool's settings (CALL_MASKING=number-pool): the provider, its rented numbers and
 * what authenticates its callback. Never quotes a secret back.
 */
function numberPoolFrom(
  env: Source,
  used: boolean,
  twilioAuthToken: string | undefined,
): Pick<Settings, 'callProvider' | 'callPoolNumbers' | 'africastalkingCallbackSecret' | 'africastalkingCallbackIps'> {
  const rawProvider = optional(env, 'CALL_PROVIDER');
  const providers = ['africastalking', 'twilio'] as const;
  const callProvider = providers.find((provider) => provider === rawProvider);
  if (rawProvider !== undefined && callProvider === undefined) {
    refuse(env, 'CALL_PROVIDER', `expected one of ${providers.join(', ')}, got "${rawProvider}"`, undefined);
  }
  const rawNumbers = optional(env, 'CALL_POOL_NUMBERS');
  const callPoolNumbers = rawNumbers === undefined ? [] : rawNumbers.split(',').map((item) => item.trim());
  const wrong = callPoolNumbers.filter((item) => !E164.test(item));
  if (wrong.length > 0) {
    refuse(env, 'CALL_POOL_NUMBERS', `expected a comma-separated list of numbers in international form like +233302000001; not one: ${wrong.map((item) => `"${item}"`).join(', ')}`, undefined);
  } else if (new Set(callPoolNumbers).size !== callPoolNumbers.length) {
    refuse(env, 'CALL_POOL_NUMBERS', 'lists a number twice', undefined);
  }
  const secret = optional(env, 'AFRICASTALKING_CALLBACK_SECRET');
  if (secret !== undefined && !CALLBACK_SECRET.test(secret)) {
    refuse(env, 'AFRICASTALKING_CALLBACK_SECRET', `expected at least 32 letters, digits, - or _ (${secret.length} characters given): whoever guesses it can ask who a rider's call reaches; set a random one (openssl rand -hex 32)`, undefined);
  }
  const rawIps = optional(env, 'AFRICASTALKING_CALLBACK_IPS');
  const africastalkingCallbackIps = rawIps === undefined ? [] : rawIps.split(',').map((item) => item.trim());
  const wrongIps = africastalkingCallbackIps.filter((item) => !isAddressOrSubnet(item));
  if (wrongIps.length > 0) {
    refuse(env, 'AFRICASTALKING_CALLBACK_IPS', `expected a comma-separated list of addresses and subnets; not one: ${wrongIps.map((item) => `"${item}"`).join(', ')}`, undefined);
  }
  if (used) {
    if (rawProvider === undefined) refuse(env, 'CALL_PROVIDER', 'required when CALL_MASKING=number-pool: africastalking or twilio, whose numbers CALL_POOL_NUMBERS are', undefined);
    if (callPoolNumbers.length === 0) refuse(env, 'CALL_POOL_NUMBERS', 'required when CALL_MASKING=number-pool: the numbers rented from the provider, comma-separated', undefined);
    if (callProvider === 'africastalking' && secret === undefined) {
      refuse(env, 'AFRICASTALKING_CALLBACK_SECRET', 'required when CALL_PROVIDER=africastalking: the last part of the callback path given to Africa\'s Talking; set a random one (openssl rand -hex 32)', undefined);
    }
    if (callProvider === 'twilio' && !twilioAuthToken) refuse(env, 'TWILIO_AUTH_TOKEN', 'required when CALL_PROVIDER=twilio: it checks the signature of Twilio\'s callbacks', undefined);
  }
  return { callProvider, callPoolNumbers, africastalkingCallbackSecret: secret, africastalkingCallbackIps };
}

/** WORKER_QUEUES: a comma-separated, non-empty list of `live` and `test`. */
function workerQueues(env: Source): KeyMode[] {
  const raw = text(env, 'WORKER_QUEUES', 'live,test');
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item !== 'live' && item !== 'test')) {
    return refuse(env, 'WORKER_QUEUES', `expected a comma-separated list of live and test, got "${raw}"`, ['live', 'test']);
  }
  return [...new Set(items as KeyMode[])];
}

/**
 * A server must be told which environment it is in. NODE_ENV's default, development, allows
 * webhooks to private addresses, counts rate limits per process and debits on the sandbox, so a
 * server started without it would run a deployment on development's rules.
 */
const NODE_ENV_MISSING: SettingProblem = {
  variable: 'NODE_ENV',
  problem: 'required: development, test or production (npm start, npm test and the bench set it; the image sets production)',
};

/**
 * For process entry points (the API and the worker): load, or print every problem, one line each,
 * and exit. Unlike loadSettings, a missing NODE_ENV is one of the problems.
 */
export function loadSettingsOrExit(env: Env = process.env): Settings {
  const problems = env.NODE_ENV ? [] : [NODE_ENV_MISSING];
  try {
    const settings = loadSettings(env);
    if (problems.length === 0) return settings;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    problems.push(...error.problems);
  }
  process.stderr.write(problems.map((p) => `Invalid setting ${p.variable}: ${p.problem}\n`).join(''));
  process.exit(78);
}
