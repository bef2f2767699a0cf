/**
 * The outside providers a live production stack names (a real gateway, SMS provider, masked
 * calling and photo store), with made-up credentials: what production settings refuse to start without.
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
  PHOTO_STORE: 's3',
  S3_ENDPOINT: 'https://s3.example.com.gh',
  S3_BUCKET: 'delivery-photos',
  S3_ACCESS_KEY_ID: 'delivery-api',
  S3_SECRET_ACCESS_KEY: 's3-secret',
} as const;
