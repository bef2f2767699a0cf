import { loadSettings, SettingsError } from '../../config/settings';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

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
    ['PAYMENT_GATEWAY', 'cash'],
    ['SITE_URL', 'not a url'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
  ])('stops with a message naming %s when it is wrong', (name, value) => {
    expect(() => loadSettings({ ...base, [name]: value })).toThrow(SettingsError);
    expect(() => loadSettings({ ...base, [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('requires the Paystack key when Paystack is chosen', () => {
    expect(() => loadSettings({ ...base, PAYMENT_GATEWAY: 'paystack' })).toThrow(/PAYSTACK_SECRET_KEY/);
  });
});
