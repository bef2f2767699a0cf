import { spawnSync } from 'node:child_process';
import { ourProgram } from '../helpers/child-process';
import { loadSettings, sandboxedInProduction, sandboxWarning, SettingsError } from '../../config/settings';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

/** Secrets whose values a refusal must never print. */
const PAYSTACK_LIVE_KEY = 'sk_live_4d1c0ffee4d1c0ffee4d1c0ffee';
const SMTP_PASSWORD = 'smtp-pass-9f8e7d';
const TWILIO_AUTH_TOKEN = 'twilio-token-5e4d3c2b1a';
const S3_SECRET = 's3-secret-7c6b5a4f3e2d';

/** A production process with a real gateway, a real SMS provider, real masked calling and SMTP: starts, nothing sandboxed. */
const live = {
  ...base,
  NODE_ENV: 'production',
  SITE_URL: 'https://track.example.com.gh',
  PAYMENT_GATEWAY: 'paystack',
  PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY,
  SMS_PROVIDER: 'http',
  SMS_URL: 'https://sms.example.com.gh/v1/send',
  SMS_API_KEY: 'sms-key-123',
  CALL_MASKING: 'twilio-proxy',
  TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
  TWILIO_AUTH_TOKEN,
  TWILIO_PROXY_SERVICE_SID: 'KS0123456789abcdef0123456789abcdef',
  SMTP_URL: `smtps://mailer:${SMTP_PASSWORD}@smtp.example.com.gh:465`,
  MAIL_FROM: 'Deliveries <no-reply@example.com.gh>',
  METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
  PHOTO_STORE: 's3',
  S3_ENDPOINT: 'https://s3.example.com.gh',
  S3_BUCKET: 'delivery-photos',
  S3_ACCESS_KEY_ID: 'delivery-api',
  S3_SECRET_ACCESS_KEY: S3_SECRET,
};

/** The same, with some variables replaced; `undefined` removes one. */
function liveWith(changes: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string | undefined> = { ...live, ...changes };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function caught(load: () => unknown): SettingsError {
  try {
    load();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}

describe('settings', () => {
  it('applies the documented defaults', () => {
    const s = loadSettings(base);
    expect(s.port).toBe(3000);
    expect(s.siteUrl).toBe('http://localhost:3000');
    expect(s.temporalAddress).toBe('localhost:7233');
    expect(s.temporalNamespace).toBe('default');
    expect(s.dispatchTimeoutSeconds).toBe(900);
    expect(s.webhookRetryInitialSeconds).toBe(15);
    expect(s.webhookTimeoutSeconds).toBe(10);
    expect(s.roboRiderStepSeconds).toBe(5);
    expect(s.bookingSweepIntervalSeconds).toBe(60);
    expect(s.bookingOrphanAfterSeconds).toBe(60);
    expect(s.referencePrefix).toBe('DLV');
    expect(s.paymentGateway).toBe('sandbox');
    expect(s.unpaidBookingsLimit).toBe(3);
    expect(s.smsPerPartnerPerHour).toBe(600);
    expect(s.retentionDays).toBe(90);
  });

  it('takes the site address from PORT when SITE_URL is not given', () => {
    expect(loadSettings({ ...base, PORT: '3200' }).siteUrl).toBe('http://localhost:3200');
    expect(loadSettings({ ...base, PORT: '3200', SITE_URL: 'https://track.example.com.gh/' }).siteUrl).toBe('https://track.example.com.gh');
  });

  it.each([
    ['PORT', 'abc'],
    ['DISPATCH_TIMEOUT_SECONDS', '-5'],
    ['WEBHOOK_TIMEOUT_SECONDS', 'ten'],
    // Schedules take intervals of a second or more.
    ['BOOKING_SWEEP_INTERVAL_SECONDS', '0.5'],
    ['PAYMENT_GATEWAY', 'cash'],
    ['SITE_URL', 'not a url'],
    // Parses as a URL of scheme `localhost:`; every tracking link would be broken.
    ['SITE_URL', 'localhost:3000'],
    ['PAYSTACK_BASE_URL', 'ftp://api.paystack.co'],
    ['PORT', '70000'],
    ['WORKER_METRICS_PORT', '65536'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
    // Counts of deliveries and texts: whole numbers, at least one.
    ['UNPAID_BOOKINGS_LIMIT', '0'],
    ['UNPAID_BOOKINGS_LIMIT', '2.5'],
    ['SMS_PER_PARTNER_PER_HOUR', 'many'],
    // Recipients are kept whole days after a delivery ends, at least one.
    ['RETENTION_DAYS', '0'],
    ['RETENTION_DAYS', '0.5'],
    ['RETENTION_DAYS', 'forever'],
  ])('stops with a message naming %s when it is wrong', (name, value) => {
    expect(() => loadSettings({ ...base, [name]: value })).toThrow(SettingsError);
    expect(() => loadSettings({ ...base, [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('names every wrong setting at once, not only the first', () => {
    const error = caught(() => loadSettings({ ...base, PORT: 'abc', WEBHOOK_TIMEOUT_SECONDS: 'ten', PAYMENT_GATEWAY: 'cash' }));
    expect(error.problems.map((p) => p.variable)).toEqual(['PAYMENT_GATEWAY', 'PORT', 'WEBHOOK_TIMEOUT_SECONDS']);
    expect(error.message.split('\n')).toEqual([
      'PAYMENT_GATEWAY: expected one of sandbox, paystack, got "cash"',
      'PORT: expected an integer from 0 to 65535, got "abc"',
      'WEBHOOK_TIMEOUT_SECONDS: expected a number >= 0.1, got "ten"',
    ]);
  });

  it('in production, refuses to start without the public site address, naming each missing setting', () => {
    // Outside production the site is the API's own port; in production that address would go out
    // in every tracking link, callback body and confirmation email, and point at nothing.
    const nothing = caught(() => loadSettings({ NODE_ENV: 'production' }));
    expect(nothing.problems.map((p) => p.variable)).toEqual(['DATABASE_URL', 'SITE_URL', 'PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL', 'METRICS_TOKEN', 'PHOTO_STORE']);
    expect(nothing.message).toMatch(/^DATABASE_URL: required/m);
    expect(nothing.message).toMatch(/^SITE_URL: required when NODE_ENV=production/m);

    expect(() => loadSettings(liveWith({ SITE_URL: undefined }))).toThrow(/^SITE_URL: required when NODE_ENV=production/);
    expect(() => loadSettings(liveWith({ SITE_URL: '' }))).toThrow(/^SITE_URL: required/);
    const production = loadSettings(live);
    expect(production.siteUrl).toBe('https://track.example.com.gh');
    expect(production.rateLimitStore).toBe('postgres');
  });

  it('requires the Paystack key when Paystack is chosen', () => {
    expect(() => loadSettings({ ...base, PAYMENT_GATEWAY: 'paystack' })).toThrow(/PAYSTACK_SECRET_KEY/);
  });

  it.each(['api/main.ts', 'workers/main.ts'])('%s in production without its settings exits 78 with one line per missing setting', (entry) => {
    const { command, args, cwd } = ourProgram(entry);
    const started = spawnSync(command, args, {
      cwd,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(78);
    const lines = started.stderr.trim().split('\n');
    expect(lines.map((line) => /^Invalid setting (\w+): /.exec(line)?.[1])).toEqual(['DATABASE_URL', 'SITE_URL', 'PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL', 'METRICS_TOKEN', 'PHOTO_STORE']);
    expect(lines[0]).toBe('Invalid setting DATABASE_URL: required (npm start sets it)');
    expect(lines[1]).toBe('Invalid setting SITE_URL: required when NODE_ENV=production: the address partners and recipients open the site at');
    expect(lines[2]).toMatch(/PAYMENT_GATEWAY: required when NODE_ENV=production .*set PAYMENT_GATEWAY=paystack with PAYSTACK_SECRET_KEY, or ALLOW_SANDBOX_IN_PRODUCTION=true/);
  }, 70_000);
});

describe('production settings: no stand-in for a live service without the opt-in', () => {
  it('starts with a real gateway, a real SMS provider, real masked calling and SMTP, and nothing is sandboxed', () => {
    const settings = loadSettings(live);
    expect(settings).toMatchObject({ paymentGateway: 'paystack', smsProvider: 'http', callMasking: 'twilio-proxy', allowSandboxInProduction: false });
    expect(sandboxedInProduction(settings)).toEqual([]);
    expect(sandboxWarning(settings)).toBeUndefined();
  });

  it.each([
    ['no payment gateway', { PAYMENT_GATEWAY: undefined }, 'PAYMENT_GATEWAY', /^required when NODE_ENV=production .*set PAYMENT_GATEWAY=paystack with PAYSTACK_SECRET_KEY, or ALLOW_SANDBOX_IN_PRODUCTION=true/],
    ['the sandbox gateway', { PAYMENT_GATEWAY: 'sandbox' }, 'PAYMENT_GATEWAY', /^sandbox is refused when NODE_ENV=production: .*real riders would be dispatched; set PAYMENT_GATEWAY=paystack/],
    ['a Paystack test key', { PAYSTACK_SECRET_KEY: 'sk_test_0123456789abcdef' }, 'PAYSTACK_SECRET_KEY', /^a Paystack test key \(sk_test_…\) is refused when NODE_ENV=production: .*set the live secret key/],
    ['no SMS provider', { SMS_PROVIDER: undefined, SMS_URL: undefined, SMS_API_KEY: undefined }, 'SMS_PROVIDER', /^required when NODE_ENV=production .*set SMS_PROVIDER=http with SMS_URL and SMS_API_KEY, or ALLOW_SANDBOX_IN_PRODUCTION=true/],
    ['the SMS outbox', { SMS_PROVIDER: 'outbox' }, 'SMS_PROVIDER', /^outbox is refused when NODE_ENV=production: live hand-over codes would .*never reach recipients; set SMS_PROVIDER=http/],
    ['no SMTP server', { SMTP_URL: undefined }, 'SMTP_URL', /^required when NODE_ENV=production: .*files under MAIL_DIR; set an smtp:\/\/ or smtps:\/\/ URL, or ALLOW_SANDBOX_IN_PRODUCTION=true/],
    [
      'no masked-calling provider',
      { CALL_MASKING: undefined, TWILIO_ACCOUNT_SID: undefined, TWILIO_AUTH_TOKEN: undefined, TWILIO_PROXY_SERVICE_SID: undefined },
      'CALL_MASKING',
      /^required when NODE_ENV=production \(its default, local, gives riders masked numbers that reach nobody\): set CALL_MASKING=number-pool with CALL_PROVIDER \(africastalking or twilio\) and CALL_POOL_NUMBERS, or CALL_MASKING=twilio-proxy with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PROXY_SERVICE_SID, or ALLOW_SANDBOX_IN_PRODUCTION=true/,
    ],
    ['the local call bridge', { CALL_MASKING: 'local' }, 'CALL_MASKING', /^local is refused when NODE_ENV=production: the local bridge routes no real call.*; set CALL_MASKING=number-pool with CALL_PROVIDER/],
  ])('refuses %s, naming the variable and what to set', (_what, changes, variable, problem) => {
    const error = caught(() => loadSettings(liveWith(changes)));
    expect(error.problems).toEqual([{ variable, problem: expect.stringMatching(problem) }]);
    expect(error.message).toMatch(new RegExp(`^${variable}: `));
    expect(error.message).not.toContain(PAYSTACK_LIVE_KEY);
    expect(error.message).not.toContain('0123456789abcdef');
    expect(error.message).not.toContain(TWILIO_AUTH_TOKEN);
  });

  it.each(['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_PROXY_SERVICE_SID'])('requires %s with CALL_MASKING=twilio-proxy, in every environment', (variable) => {
    for (const env of [liveWith({ [variable]: undefined }), { ...base, CALL_MASKING: 'twilio-proxy', ...Object.fromEntries(Object.entries(live).filter(([name]) => name.startsWith('TWILIO_') && name !== variable)) }]) {
      const error = caught(() => loadSettings(env));
      expect(error.problems).toEqual([{ variable, problem: 'required when CALL_MASKING=twilio-proxy' }]);
      expect(error.message).not.toContain(TWILIO_AUTH_TOKEN);
    }
  });

  it('takes only local, twilio-proxy or number-pool for CALL_MASKING', () => {
    expect(() => loadSettings({ ...base, CALL_MASKING: 'twilio' })).toThrow(/^CALL_MASKING: expected one of local, twilio-proxy, number-pool, got "twilio"$/);
    expect(loadSettings(live)).toMatchObject({ twilioProxyUrl: 'https://proxy.twilio.com', twilioTimeoutMs: 5000 });
  });

  it('names every stand-in at once, and each only once when its value is also misspelt', () => {
    const error = caught(() => loadSettings(liveWith({ PAYMENT_GATEWAY: 'cash', SMS_PROVIDER: 'outbox', CALL_MASKING: 'local', SMTP_URL: undefined })));
    expect(error.problems.map((p) => p.variable)).toEqual(['PAYMENT_GATEWAY', 'SMS_PROVIDER', 'CALL_MASKING', 'SMTP_URL']);
    expect(error.problems[0]?.problem).toBe('expected one of sandbox, paystack, got "cash"');
  });

  it.each([
    ['the sandbox gateway', { PAYMENT_GATEWAY: 'sandbox' }, ['payments']],
    ['no payment gateway (the sandbox)', { PAYMENT_GATEWAY: undefined }, ['payments']],
    ['a Paystack test key', { PAYSTACK_SECRET_KEY: 'sk_test_0123456789abcdef' }, ['payments']],
    ['the SMS outbox', { SMS_PROVIDER: 'outbox' }, ['texts']],
    ['no SMS provider (the outbox)', { SMS_PROVIDER: undefined }, ['texts']],
    ['the local call bridge', { CALL_MASKING: 'local' }, ['calls']],
    ['no masked-calling provider (the local bridge)', { CALL_MASKING: undefined }, ['calls']],
    ['no SMTP server', { SMTP_URL: undefined, MAIL_FROM: undefined }, ['mail']],
  ])('with ALLOW_SANDBOX_IN_PRODUCTION=true, accepts %s and lists it as sandboxed', (_what, changes, sandboxed) => {
    const settings = loadSettings(liveWith({ ...changes, ALLOW_SANDBOX_IN_PRODUCTION: 'true' }));
    expect(settings.allowSandboxInProduction).toBe(true);
    expect(sandboxedInProduction(settings)).toEqual(sandboxed);
    expect(sandboxWarning(settings)).toMatch(/^Sandboxed in production \(ALLOW_SANDBOX_IN_PRODUCTION=true\): .*Not for real customers\.$/);
  });

  it('lets a staging deployment run on every stand-in with the one opt-in variable, and says what each means', () => {
    const settings = loadSettings({ ...base, NODE_ENV: 'production', SITE_URL: 'https://staging.example.com.gh', ALLOW_SANDBOX_IN_PRODUCTION: 'true', METRICS_TOKEN: live.METRICS_TOKEN, PHOTO_STORE: 'local' });
    expect(settings).toMatchObject({ paymentGateway: 'sandbox', smsProvider: 'outbox', callMasking: 'local', smtpUrl: undefined, rateLimitStore: 'postgres' });
    expect(sandboxedInProduction(settings)).toEqual(['payments', 'texts', 'calls', 'mail']);
    expect(sandboxWarning(settings)).toBe(
      'Sandboxed in production (ALLOW_SANDBOX_IN_PRODUCTION=true): live payments go to a test network, so no money is taken; ' +
        "live hand-over codes stay in the SMS outbox; riders' masked numbers reach nobody (the local call bridge); mail is written to files under MAIL_DIR. Not for real customers.",
    );
    expect(sandboxWarning({ ...settings, paymentGateway: 'paystack', paystackSecretKey: PAYSTACK_LIVE_KEY })).not.toMatch(/payments/);
  });

  it('takes only true or false for the opt-in', () => {
    expect(() => loadSettings(liveWith({ ALLOW_SANDBOX_IN_PRODUCTION: 'yes' }))).toThrow(/^ALLOW_SANDBOX_IN_PRODUCTION: expected one of true, false, got "yes"$/);
    expect(loadSettings(liveWith({ ALLOW_SANDBOX_IN_PRODUCTION: 'false' })).allowSandboxInProduction).toBe(false);
  });

  it('requires a real sender once mail goes out over SMTP', () => {
    expect(() => loadSettings(liveWith({ MAIL_FROM: undefined }))).toThrow(/^MAIL_FROM: required when NODE_ENV=production and SMTP_URL is set: .*no-reply@localhost/);
    // Even on a staging deployment: real mail from @localhost is refused or filed as spam.
    expect(() => loadSettings(liveWith({ MAIL_FROM: undefined, ALLOW_SANDBOX_IN_PRODUCTION: 'true' }))).toThrow(/^MAIL_FROM: required/);
  });

  it('refuses an SMTP address that is not one, without printing it (it holds the mail password)', () => {
    for (const env of [liveWith({ SMTP_URL: `https://mailer:${SMTP_PASSWORD}@smtp.example.com.gh` }), { ...base, SMTP_URL: `mailer:${SMTP_PASSWORD}` }]) {
      const error = caught(() => loadSettings(env));
      expect(error.problems).toEqual([{ variable: 'SMTP_URL', problem: expect.stringMatching(/^expected an smtp:\/\/ or smtps:\/\/ URL/) }]);
      expect(error.message).not.toContain(SMTP_PASSWORD);
    }
  });

  it('refuses a short dashboard secret in production without printing it, and takes none (the generated one)', () => {
    const error = caught(() => loadSettings(liveWith({ SESSION_SECRET: 'changeme' })));
    expect(error.problems).toEqual([{ variable: 'SESSION_SECRET', problem: expect.stringMatching(/^too short for NODE_ENV=production \(8 characters, at least 32\): .*openssl rand -base64 32/) }]);
    expect(error.message).not.toContain('changeme');
    // The opt-in is for stand-ins, not for weak secrets.
    expect(() => loadSettings(liveWith({ SESSION_SECRET: 'changeme', ALLOW_SANDBOX_IN_PRODUCTION: 'true' }))).toThrow(/^SESSION_SECRET: too short/);
    expect(loadSettings(liveWith({ SESSION_SECRET: 'x'.repeat(32) })).sessionSecret).toHaveLength(32);
    expect(loadSettings(live).sessionSecret).toBeUndefined();
  });

  it('refuses counting rate limits in each process apart, even with the opt-in', () => {
    for (const env of [liveWith({ RATE_LIMIT_STORE: 'memory' }), liveWith({ RATE_LIMIT_STORE: 'memory', ALLOW_SANDBOX_IN_PRODUCTION: 'true' })]) {
      expect(() => loadSettings(env)).toThrow(/^RATE_LIMIT_STORE: memory is refused when NODE_ENV=production: .*leave it unset or set postgres$/);
    }
    expect(loadSettings(liveWith({ RATE_LIMIT_STORE: 'postgres' })).rateLimitStore).toBe('postgres');
  });

  it.each([
    ['PAYSTACK_BASE_URL', { PAYSTACK_BASE_URL: 'http://paystack.internal' }, 'PAYSTACK_SECRET_KEY'],
    ['SMS_URL', { SMS_URL: 'http://sms.example.com.gh/send' }, 'SMS_API_KEY'],
    ['MAPBOX_URL', { ETA_PROVIDER: 'mapbox', MAPBOX_TOKEN: 'pk.token', MAPBOX_URL: 'http://mapbox.internal' }, 'MAPBOX_TOKEN'],
    ['TWILIO_PROXY_URL', { TWILIO_PROXY_URL: 'http://127.0.0.1:9999' }, 'TWILIO_AUTH_TOKEN'],
  ])('refuses a plain-http %s, which is sent a secret with every request', (variable, changes, secret) => {
    const error = caught(() => loadSettings(liveWith(changes)));
    expect(error.problems).toEqual([{ variable, problem: `expected an https:// URL when NODE_ENV=production: ${secret} is sent with every request` }]);
    // Outside production a local fake over http is fine.
    expect(() => loadSettings(liveWith({ ...changes, NODE_ENV: 'test' }))).not.toThrow();
  });

  it('refuses sending the Temporal API key without TLS', () => {
    expect(() => loadSettings(liveWith({ TEMPORAL_API_KEY: 'tmprl-key', TEMPORAL_TLS: 'false' }))).toThrow(/^TEMPORAL_TLS: false is refused with TEMPORAL_API_KEY/);
    expect(loadSettings(liveWith({ TEMPORAL_API_KEY: 'tmprl-key' })).temporalTls).toBe(true);
  });

  it('refuses production without a METRICS_TOKEN, or with a short one, even on a staging deployment', () => {
    expect(() => loadSettings(liveWith({ METRICS_TOKEN: undefined }))).toThrow(/^METRICS_TOKEN: required when NODE_ENV=production/);
    expect(() => loadSettings(liveWith({ METRICS_TOKEN: undefined, ALLOW_SANDBOX_IN_PRODUCTION: 'true' }))).toThrow(/^METRICS_TOKEN: required/);
    expect(() => loadSettings(liveWith({ METRICS_TOKEN: 'changeme' }))).toThrow(/^METRICS_TOKEN: too short for NODE_ENV=production/);
    expect(loadSettings(live).metricsToken).toBe(live.METRICS_TOKEN);
    expect(loadSettings(base).metricsToken).toBeUndefined();
  });
});

describe('the photo store', () => {
  const local = { PHOTO_STORE: 'local', S3_ENDPOINT: undefined, S3_BUCKET: undefined, S3_ACCESS_KEY_ID: undefined, S3_SECRET_ACCESS_KEY: undefined };

  it('keeps photos in local files, and signs their links for 15 minutes, unless told otherwise', () => {
    expect(loadSettings(base)).toMatchObject({ photoStore: 'local', uploadsDir: '.data/uploads', proofLinkMinutes: 15 });
    expect(loadSettings({ ...base, PROOF_LINK_MINUTES: '0.05' }).proofLinkMinutes).toBe(0.05);
    expect(() => loadSettings({ ...base, PROOF_LINK_MINUTES: '0' })).toThrow(/^PROOF_LINK_MINUTES: expected a number from 0.01 to 10080, got "0"$/);
    // S3 presigns for at most seven days.
    expect(() => loadSettings({ ...base, PROOF_LINK_MINUTES: '20000' })).toThrow(/^PROOF_LINK_MINUTES: /);
  });

  it('in production, refuses to keep photos on local disk unless PHOTO_STORE=local is set outright, even on a staging deployment', () => {
    for (const env of [liveWith({ ...local, PHOTO_STORE: undefined }), liveWith({ ...local, PHOTO_STORE: undefined, ALLOW_SANDBOX_IN_PRODUCTION: 'true' })]) {
      const error = caught(() => loadSettings(env));
      expect(error.problems).toEqual([
        {
          variable: 'PHOTO_STORE',
          problem: expect.stringMatching(/^required when NODE_ENV=production \(its default, local, keeps hand-over photos on this host's disk, where another API process cannot read them\): set PHOTO_STORE=s3 with S3_BUCKET .*, or PHOTO_STORE=local for a single API host$/),
        },
      ]);
    }
    expect(loadSettings(liveWith(local))).toMatchObject({ photoStore: 'local' });
    expect(loadSettings(live)).toMatchObject({ photoStore: 's3', s3Bucket: 'delivery-photos', s3Endpoint: 'https://s3.example.com.gh', s3PublicUrl: 'https://s3.example.com.gh', s3ForcePathStyle: true });
  });

  it('refuses S3 without a bucket, or with one half of a key, without printing the secret', () => {
    expect(caught(() => loadSettings(liveWith({ S3_BUCKET: undefined }))).problems).toEqual([
      { variable: 'S3_BUCKET', problem: 'required when PHOTO_STORE=s3: the bucket hand-over photos are kept in' },
    ]);
    const half = caught(() => loadSettings(liveWith({ S3_ACCESS_KEY_ID: undefined })));
    expect(half.problems.map((p) => p.variable)).toEqual(['S3_ACCESS_KEY_ID']);
    expect(half.message).not.toContain(S3_SECRET);
    // Neither key: the AWS SDK's own credentials (an instance role, AWS_ACCESS_KEY_ID…).
    expect(loadSettings(liveWith({ S3_ACCESS_KEY_ID: undefined, S3_SECRET_ACCESS_KEY: undefined })).s3AccessKeyId).toBeUndefined();
    expect(() => loadSettings({ ...base, PHOTO_STORE: 'minio' })).toThrow(/^PHOTO_STORE: expected one of local, s3, got "minio"$/);
  });

  it('in production, refuses photo links to a plain-http address, whether S3_PUBLIC_URL or the S3_ENDPOINT it defaults to', () => {
    for (const env of [liveWith({ S3_ENDPOINT: 'http://seaweedfs:8333' }), liveWith({ S3_PUBLIC_URL: 'http://photos.example.com.gh' })]) {
      expect(caught(() => loadSettings(env)).problems).toEqual([
        { variable: 'S3_PUBLIC_URL', problem: expect.stringMatching(/^expected an https:\/\/ URL when NODE_ENV=production: partners open signed photo links there/) },
      ]);
    }
    // The store may sit on a private network behind a public https:// name.
    expect(loadSettings(liveWith({ S3_ENDPOINT: 'http://seaweedfs:8333', S3_PUBLIC_URL: 'https://photos.example.com.gh' }))).toMatchObject({
      s3Endpoint: 'http://seaweedfs:8333',
      s3PublicUrl: 'https://photos.example.com.gh',
    });
    // AWS S3 itself: no endpoint, the bucket in the host name.
    expect(loadSettings(liveWith({ S3_ENDPOINT: undefined }))).toMatchObject({ s3Endpoint: undefined, s3PublicUrl: undefined, s3ForcePathStyle: false });
  });
});

describe('development and test settings: the offline defaults, unchanged', () => {
  it.each(['development', 'test'])('NODE_ENV=%s runs on the sandbox, the outbox and mail files, and warns of nothing', (nodeEnv) => {
    const settings = loadSettings({ ...base, NODE_ENV: nodeEnv });
    expect(settings).toMatchObject({ paymentGateway: 'sandbox', smsProvider: 'outbox', callMasking: 'local', smtpUrl: undefined, rateLimitStore: 'memory', allowSandboxInProduction: false });
    expect(sandboxedInProduction(settings)).toEqual([]);
    expect(sandboxWarning(settings)).toBeUndefined();
  });

  it('takes what production refuses: a short secret, per-process counts, a Paystack test key', () => {
    const settings = loadSettings({ ...base, SESSION_SECRET: 'dev', RATE_LIMIT_STORE: 'memory', PAYMENT_GATEWAY: 'paystack', PAYSTACK_SECRET_KEY: 'sk_test_abc' });
    expect(settings).toMatchObject({ sessionSecret: 'dev', rateLimitStore: 'memory', paymentGateway: 'paystack' });
    expect(sandboxedInProduction(settings)).toEqual([]);
  });
});

describe('TRUST_PROXY', () => {
  it('trusts no proxy outside production, and in production only peers on loopback or a private network', () => {
    expect(loadSettings(base).trustProxy).toBe(false);
    expect(loadSettings(live).trustProxy).toEqual(['loopback', 'uniquelocal']);
  });

  it.each([
    ['1', 1],
    ['2', 2],
    ['false', false],
    ['0', false],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.10, fd00::/8, uniquelocal', ['10.0.0.0/8', '192.168.1.10', 'fd00::/8', 'uniquelocal']],
  ])('reads %s', (raw, expected) => {
    expect(loadSettings({ ...base, TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it.each(['true', '11', '1.5', 'proxy.example.com', '10.0.0.0/33', 'loopback,'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadSettings({ ...base, TRUST_PROXY: raw })).toThrow(/^TRUST_PROXY: expected/);
  });
});
