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

export class SettingsError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'SettingsError';
  }
}

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function number(env: Env, name: string, fallback: number, { min = 0, integer = false } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new SettingsError(name, `expected ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
  }
  return value;
}

function optionalInteger(env: Env, name: string): number | undefined {
  return optional(env, name) === undefined ? undefined : number(env, name, 0, { min: 1, integer: true });
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new SettingsError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = text(env, name, fallback);
  try {
    new URL(raw);
  } catch {
    throw new SettingsError(name, `expected a URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function loadSettings(env: Env = process.env): Settings {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'test', 'production'] as const, 'development');
  const dataDir = text(env, 'DATA_DIR', '.data');
  const paymentGateway = oneOf(env, 'PAYMENT_GATEWAY', ['sandbox', 'paystack'] as const, 'sandbox');
  const paystackSecretKey = optional(env, 'PAYSTACK_SECRET_KEY');
  if (paymentGateway === 'paystack' && !paystackSecretKey) {
    throw new SettingsError('PAYSTACK_SECRET_KEY', 'required when PAYMENT_GATEWAY=paystack');
  }
  const etaProvider = oneOf(env, 'ETA_PROVIDER', ['estimate', 'osrm', 'mapbox'] as const, 'estimate');
  const mapboxToken = optional(env, 'MAPBOX_TOKEN');
  if (etaProvider === 'mapbox' && !mapboxToken) {
    throw new SettingsError('MAPBOX_TOKEN', 'required when ETA_PROVIDER=mapbox');
  }
  const smsProvider = oneOf(env, 'SMS_PROVIDER', ['outbox', 'http'] as const, 'outbox');
  const smsApiKey = optional(env, 'SMS_API_KEY');
  if (smsProvider === 'http') {
    if (!optional(env, 'SMS_URL')) throw new SettingsError('SMS_URL', 'required when SMS_PROVIDER=http');
    if (!smsApiKey) throw new SettingsError('SMS_API_KEY', 'required when SMS_PROVIDER=http');
  }
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl === undefined) throw new SettingsError('DATABASE_URL', 'required (npm start sets it)');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new SettingsError('DATABASE_URL', 'expected a postgres:// URL');
  }
  const referencePrefix = text(env, 'REFERENCE_PREFIX', 'DLV');
  if (!/^[A-Z0-9]{1,10}$/.test(referencePrefix)) {
    throw new SettingsError('REFERENCE_PREFIX', 'expected 1 to 10 capital letters or digits');
  }
  const port = number(env, 'PORT', 3000, { integer: true });
  return {
    nodeEnv,
    port,
    // On the machine itself the site is the API's own port, so `PORT=3200` alone gives working links.
    siteUrl: url(env, 'SITE_URL', `http://localhost:${port}`),
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
    smsUrl: smsProvider === 'http' ? url(env, 'SMS_URL', '') : optional(env, 'SMS_URL'),
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
    workerMetricsPort: number(env, 'WORKER_METRICS_PORT', 0, { integer: true }),
    workflowBundle: optional(env, 'WORKFLOW_BUNDLE'),
    workerMaxConcurrentActivities: optionalInteger(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES'),
    workerMaxConcurrentWorkflowTasks: optionalInteger(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'),
    workerMaxCachedWorkflows: optionalInteger(env, 'WORKER_MAX_CACHED_WORKFLOWS'),
  };
}

/** For process entry points: load, or print the problem and exit. */
export function loadSettingsOrExit(env: Env = process.env): Settings {
  try {
    return loadSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`Invalid setting ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
