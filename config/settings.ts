/**
 * Every setting the processes read, taken from the environment and validated once at start.
 * A wrong value stops the process with a message naming the variable.
 */
export type NodeEnv = 'development' | 'test' | 'production';

export interface Settings {
  nodeEnv: NodeEnv;
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
  /** How long a pending delivery looks for a rider before it expires. */
  dispatchTimeoutSeconds: number;
  /** How often the offer radius widens while no rider has accepted. */
  dispatchWidenSeconds: number;
  dispatchInitialRadiusKm: number;
  dispatchMaxRadiusKm: number;
  webhookRetryInitialSeconds: number;
  webhookRetryCoefficient: number;
  webhookTimeoutSeconds: number;
  roboRiderStepSeconds: number;
  /** How often a pending debit is polled when no callback has confirmed it. */
  paymentPollSeconds: number;
  /** How long the sandbox network takes to confirm a debit. */
  sandboxConfirmMs: number;
  /** First wait before a debit the network did not answer is tried again (doubling each time). */
  debitRetryInitialSeconds: number;
  /**
   * How long after its workflow started a booking row may still be uncommitted: the API commits
   * it right after the start, so a row missing this long after was rolled back (its partner was
   * answered 503 and told nothing of it), and the workflow ends unstarted.
   */
  bookingCommitGraceSeconds: number;
  paymentGateway: 'sandbox' | 'paystack';
  paystackSecretKey?: string;
  paystackBaseUrl: string;
  /** How long one request to Paystack may take before it counts as unanswered. */
  paystackTimeoutMs: number;
  routingProvider: 'estimate' | 'osrm';
  osrmUrl: string;
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
  referencePrefix: string;
  logLevel: string;
  dataDir: string;
  /** Where uploaded hand-over photos are kept by the offline storage. */
  uploadsDir: string;
  mailDir: string;
  smtpUrl?: string;
  /** The sender of the dashboard's emails. */
  mailFrom: string;
  /** How long an email confirmation link works. */
  emailConfirmHours: number;
  /** Signs dashboard session and CSRF cookies; when unset, a secret kept in the database is used. */
  sessionSecret?: string;
  /** A dashboard session ends after this long without a request. */
  dashboardSessionSeconds: number;
  mapTileUrl?: string;
  rateLimitPartnerPerMinute: number;
  rateLimitRiderPerMinute: number;
  /** Per client IP on the public tracking view. */
  rateLimitPublicPerMinute: number;
  /** Per client IP on place search. */
  rateLimitPlacesPerMinute: number;
  /** Where rate-limit counters live: this process only, or Postgres, shared by every API process. */
  rateLimitStore: 'memory' | 'postgres';
  rateLimitAuthPerMinute: number;
  otpMaxAttempts: number;
  otpLockSeconds: number;
  /** Where a worker serves Prometheus metrics (the Temporal SDK's and ours); 0 serves none. */
  workerMetricsPort: number;
  /** A workflow bundle built ahead (`npm run build`); without it the worker bundles at start. */
  workflowBundle?: string;
  /** Worker capacity per process; unset keeps the defaults in workers/worker.ts. */
  workerMaxConcurrentActivities?: number;
  workerMaxConcurrentWorkflowTasks?: number;
  workerMaxCachedWorkflows?: number;
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

/** Reads every setting; a missing or wrong one stops with a SettingsError naming each of them. */
export function loadSettings(vars: Env = process.env): Settings {
  const env: Source = { vars, problems: [] };
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
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
    sandboxConfirmMs: number(env, 'SANDBOX_CONFIRM_MS', 2000, { integer: true }),
    debitRetryInitialSeconds: number(env, 'DEBIT_RETRY_INITIAL_SECONDS', 2, { min: 0.01 }),
    bookingCommitGraceSeconds: number(env, 'BOOKING_COMMIT_GRACE_SECONDS', 30, { min: 1 }),
    paymentGateway,
    paystackSecretKey,
    paystackBaseUrl: url(env, 'PAYSTACK_BASE_URL', 'https://api.paystack.co'),
    paystackTimeoutMs: number(env, 'PAYSTACK_TIMEOUT_MS', 10_000, { min: 1, integer: true }),
    routingProvider: oneOf(env, 'ROUTING_PROVIDER', ['estimate', 'osrm'] as const, 'estimate'),
    osrmUrl: url(env, 'OSRM_URL', 'https://router.project-osrm.org'),
    etaProvider,
    mapboxToken,
    mapboxUrl: url(env, 'MAPBOX_URL', 'https://api.mapbox.com'),
    placesProvider: oneOf(env, 'PLACES_PROVIDER', ['gazetteer', 'photon'] as const, 'gazetteer'),
    photonUrl: url(env, 'PHOTON_URL', 'https://photon.komoot.io'),
    smsProvider,
    smsUrl: smsProvider === 'http' && smsUrlGiven ? url(env, 'SMS_URL', '') : optional(env, 'SMS_URL'),
    smsApiKey,
    smsSender: text(env, 'SMS_SENDER', 'Delivery'),
    referencePrefix,
    logLevel: oneOf(env, 'LOG_LEVEL', ['error', 'warn', 'info', 'http', 'debug'] as const, nodeEnv === 'test' ? 'warn' : 'info'),
    dataDir,
    uploadsDir: text(env, 'UPLOADS_DIR', `${dataDir}/uploads`),
    mailDir: text(env, 'MAIL_DIR', `${dataDir}/mail`),
    smtpUrl: optional(env, 'SMTP_URL'),
    mailFrom: text(env, 'MAIL_FROM', 'Partner Delivery <no-reply@localhost>'),
    emailConfirmHours: number(env, 'EMAIL_CONFIRM_HOURS', 24, { min: 0.01 }),
    sessionSecret: optional(env, 'SESSION_SECRET'),
    dashboardSessionSeconds: number(env, 'DASHBOARD_SESSION_SECONDS', 8 * 3600, { min: 1 }),
    mapTileUrl: optional(env, 'MAP_TILE_URL'),
    rateLimitPartnerPerMinute: number(env, 'RATE_LIMIT_PARTNER_PER_MINUTE', 600, { min: 1, integer: true }),
    rateLimitRiderPerMinute: number(env, 'RATE_LIMIT_RIDER_PER_MINUTE', 1200, { min: 1, integer: true }),
    rateLimitPublicPerMinute: number(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 600, { min: 1, integer: true }),
    rateLimitPlacesPerMinute: number(env, 'RATE_LIMIT_PLACES_PER_MINUTE', 120, { min: 1, integer: true }),
    rateLimitStore: oneOf(env, 'RATE_LIMIT_STORE', ['memory', 'postgres'] as const, nodeEnv === 'production' ? 'postgres' : 'memory'),
    rateLimitAuthPerMinute: number(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 10, { min: 1, integer: true }),
    otpMaxAttempts: number(env, 'OTP_MAX_ATTEMPTS', 5, { min: 1, integer: true }),
    otpLockSeconds: number(env, 'OTP_LOCK_SECONDS', 300, { min: 1 }),
    workerMetricsPort: port(env, 'WORKER_METRICS_PORT', 0),
    workflowBundle: optional(env, 'WORKFLOW_BUNDLE'),
    workerMaxConcurrentActivities: optionalInteger(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES'),
    workerMaxConcurrentWorkflowTasks: optionalInteger(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'),
    workerMaxCachedWorkflows: optionalInteger(env, 'WORKER_MAX_CACHED_WORKFLOWS'),
  };
  if (env.problems.length > 0) throw new SettingsError(env.problems);
  return settings;
}

/** For process entry points: load, or print every problem, one line each, and exit. */
export function loadSettingsOrExit(env: Env = process.env): Settings {
  try {
    return loadSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(error.problems.map((p) => `Invalid setting ${p.variable}: ${p.problem}\n`).join(''));
      process.exit(78);
    }
    throw error;
  }
}
