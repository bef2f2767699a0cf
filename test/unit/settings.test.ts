import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadSettings, SettingsError } from '../../config/settings';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

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
    expect(s.bookingCommitGraceSeconds).toBe(30);
    expect(s.referencePrefix).toBe('DLV');
    expect(s.paymentGateway).toBe('sandbox');
  });

  it('takes the site address from PORT when SITE_URL is not given', () => {
    expect(loadSettings({ ...base, PORT: '3200' }).siteUrl).toBe('http://localhost:3200');
    expect(loadSettings({ ...base, PORT: '3200', SITE_URL: 'https://track.example.com.gh/' }).siteUrl).toBe('https://track.example.com.gh');
  });

  it.each([
    ['PORT', 'abc'],
    ['DISPATCH_TIMEOUT_SECONDS', '-5'],
    ['WEBHOOK_TIMEOUT_SECONDS', 'ten'],
    // Under a second, a booking whose row commits a moment late would end unstarted.
    ['BOOKING_COMMIT_GRACE_SECONDS', '0.5'],
    ['PAYMENT_GATEWAY', 'cash'],
    ['SITE_URL', 'not a url'],
    // Parses as a URL of scheme `localhost:`; every tracking link would be broken.
    ['SITE_URL', 'localhost:3000'],
    ['PAYSTACK_BASE_URL', 'ftp://api.paystack.co'],
    ['PORT', '70000'],
    ['WORKER_METRICS_PORT', '65536'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
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
    expect(nothing.problems.map((p) => p.variable)).toEqual(['DATABASE_URL', 'SITE_URL']);
    expect(nothing.message).toMatch(/^DATABASE_URL: required/m);
    expect(nothing.message).toMatch(/^SITE_URL: required when NODE_ENV=production/m);

    expect(() => loadSettings({ ...base, NODE_ENV: 'production' })).toThrow(/^SITE_URL: required when NODE_ENV=production/);
    expect(() => loadSettings({ ...base, NODE_ENV: 'production', SITE_URL: '' })).toThrow(/^SITE_URL: required/);
    const production = loadSettings({ ...base, NODE_ENV: 'production', SITE_URL: 'https://track.example.com.gh' });
    expect(production.siteUrl).toBe('https://track.example.com.gh');
    expect(production.rateLimitStore).toBe('postgres');
  });

  it('requires the Paystack key when Paystack is chosen', () => {
    expect(() => loadSettings({ ...base, PAYMENT_GATEWAY: 'paystack' })).toThrow(/PAYSTACK_SECRET_KEY/);
  });

  it.each(['api/main.ts', 'workers/main.ts'])('%s in production without its settings exits 78 with one line per missing setting', (entry) => {
    const root = path.resolve(__dirname, '../..');
    const started = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), [entry], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(78);
    expect(started.stderr.trim().split('\n')).toEqual([
      'Invalid setting DATABASE_URL: required (npm start sets it)',
      'Invalid setting SITE_URL: required when NODE_ENV=production: the address partners and recipients open the site at',
    ]);
  }, 70_000);
});
