import { loadSettings, sandboxedInProduction, SettingsError } from '../../config/settings';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

/** Secrets whose values a refusal must never print. */
const AT_SECRET = 'c0ffee'.repeat(8);
const TWILIO_AUTH_TOKEN = 'twilio-token-5e4d3c2b1a';
const POOL = '+233302000001, +233302000002,+233302000003';

const africastalking = { ...base, CALL_MASKING: 'number-pool', CALL_PROVIDER: 'africastalking', CALL_POOL_NUMBERS: POOL, AFRICASTALKING_CALLBACK_SECRET: AT_SECRET };
const twilio = { ...base, CALL_MASKING: 'number-pool', CALL_PROVIDER: 'twilio', CALL_POOL_NUMBERS: POOL, TWILIO_AUTH_TOKEN };

/** A production process with real providers everywhere, masked calls through a number pool. */
const production = {
  NODE_ENV: 'production',
  SITE_URL: 'https://track.example.com.gh',
  PAYMENT_GATEWAY: 'paystack',
  PAYSTACK_SECRET_KEY: 'sk_live_4d1c0ffee4d1c0ffee4d1c0ffee',
  SMS_PROVIDER: 'http',
  SMS_URL: 'https://sms.example.com.gh/v1/send',
  SMS_API_KEY: 'sms-key-123',
  SMTP_URL: 'smtps://mailer:pass@smtp.example.com.gh:465',
  MAIL_FROM: 'Deliveries <no-reply@example.com.gh>',
  METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
  PHOTO_STORE: 'local',
};

function problems(env: Record<string, string | undefined>) {
  try {
    loadSettings(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as Record<string, string>);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    for (const secret of [AT_SECRET, TWILIO_AUTH_TOKEN]) expect(error.message).not.toContain(secret);
    return error.problems;
  }
  return [];
}

describe('number-pool settings', () => {
  it("reads the provider, its numbers and Africa's Talking's callback secret and addresses", () => {
    expect(loadSettings({ ...africastalking, AFRICASTALKING_CALLBACK_IPS: '196.201.214.0/24, 2001:db8::1' })).toMatchObject({
      callMasking: 'number-pool',
      callProvider: 'africastalking',
      callPoolNumbers: ['+233302000001', '+233302000002', '+233302000003'],
      africastalkingCallbackSecret: AT_SECRET,
      africastalkingCallbackIps: ['196.201.214.0/24', '2001:db8::1'],
    });
    expect(loadSettings(twilio)).toMatchObject({ callProvider: 'twilio', twilioAuthToken: TWILIO_AUTH_TOKEN, africastalkingCallbackIps: [] });
  });

  it('requires a provider and its numbers with CALL_MASKING=number-pool', () => {
    expect(problems({ ...twilio, CALL_PROVIDER: undefined, CALL_POOL_NUMBERS: undefined })).toEqual([
      { variable: 'CALL_PROVIDER', problem: 'required when CALL_MASKING=number-pool: africastalking or twilio, whose numbers CALL_POOL_NUMBERS are' },
      { variable: 'CALL_POOL_NUMBERS', problem: 'required when CALL_MASKING=number-pool: the numbers rented from the provider, comma-separated' },
    ]);
    expect(problems({ ...twilio, CALL_PROVIDER: 'vonage' })).toEqual([{ variable: 'CALL_PROVIDER', problem: 'expected one of africastalking, twilio, got "vonage"' }]);
  });

  it('refuses pool numbers not in international form, and a number listed twice', () => {
    expect(problems({ ...twilio, CALL_POOL_NUMBERS: '+233302000001,0302000002,' })).toEqual([
      { variable: 'CALL_POOL_NUMBERS', problem: 'expected a comma-separated list of numbers in international form like +233302000001; not one: "0302000002", ""' },
    ]);
    expect(problems({ ...twilio, CALL_POOL_NUMBERS: '+233302000001,+233302000001' })).toEqual([{ variable: 'CALL_POOL_NUMBERS', problem: 'lists a number twice' }]);
  });

  it("requires the auth token with Twilio, and a long callback secret with Africa's Talking", () => {
    expect(problems({ ...twilio, TWILIO_AUTH_TOKEN: undefined })).toEqual([
      { variable: 'TWILIO_AUTH_TOKEN', problem: "required when CALL_PROVIDER=twilio: it checks the signature of Twilio's callbacks" },
    ]);
    expect(problems({ ...africastalking, AFRICASTALKING_CALLBACK_SECRET: undefined }).map((p) => p.variable)).toEqual(['AFRICASTALKING_CALLBACK_SECRET']);
    for (const short of ['tooshort', 'c0ffee'.repeat(5), `${'a'.repeat(31)}/`]) {
      const [problem] = problems({ ...africastalking, AFRICASTALKING_CALLBACK_SECRET: short });
      expect(problem).toEqual({ variable: 'AFRICASTALKING_CALLBACK_SECRET', problem: expect.stringMatching(/^expected at least 32 letters, digits, - or _/) });
      expect(problem?.problem).not.toContain(short);
    }
  });

  it('refuses a callback address list that is not addresses and subnets', () => {
    expect(problems({ ...africastalking, AFRICASTALKING_CALLBACK_IPS: '196.201.214.0/24,africastalking.com,10.0.0.0/33' })).toEqual([
      { variable: 'AFRICASTALKING_CALLBACK_IPS', problem: 'expected a comma-separated list of addresses and subnets; not one: "africastalking.com", "10.0.0.0/33"' },
    ]);
  });

  it("accepts a number pool in production, not sandboxed; Africa's Talking's only with the addresses it calls from", () => {
    const settings = loadSettings({ ...production, ...twilio });
    expect(settings.callMasking).toBe('number-pool');
    expect(sandboxedInProduction(settings)).toEqual([]);
    expect(loadSettings({ ...production, ...africastalking, AFRICASTALKING_CALLBACK_IPS: '196.201.214.0/24' }).callProvider).toBe('africastalking');
    expect(problems({ ...production, ...africastalking })).toEqual([
      { variable: 'AFRICASTALKING_CALLBACK_IPS', problem: expect.stringMatching(/^required when NODE_ENV=production with CALL_PROVIDER=africastalking: /) },
    ]);
    // Outside production the secret alone will do, for a local fake.
    expect(problems(africastalking)).toEqual([]);
  });

  it('still refuses the local bridge in production, and names the number pool as the way out', () => {
    expect(problems({ ...production, ...base, CALL_MASKING: 'local' })).toEqual([
      { variable: 'CALL_MASKING', problem: expect.stringMatching(/^local is refused when NODE_ENV=production: .*set CALL_MASKING=number-pool with CALL_PROVIDER \(africastalking or twilio\) and CALL_POOL_NUMBERS/) },
    ]);
  });
});
