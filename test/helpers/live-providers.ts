/**
 * The outside providers a live production stack names (a real gateway, SMS provider and masked
 * calling), with made-up credentials: what production settings refuse to start without.
 */
export const LIVE_PROVIDERS = {
  PAYMENT_GATEWAY: 'paystack',
  PAYSTACK_SECRET_KEY: 'sk_live_0000000000000000000000000000',
  SMS_PROVIDER: 'http',
  SMS_URL: 'https://sms.example.com.gh/v1/send',
  SMS_API_KEY: 'sms-key',
  CALL_MASKING: 'twilio-proxy',
  TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
  TWILIO_AUTH_TOKEN: 'twilio-token',
  TWILIO_PROXY_SERVICE_SID: 'KS00000000000000000000000000000000',
} as const;
