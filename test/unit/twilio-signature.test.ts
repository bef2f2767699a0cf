import { createHmac } from 'node:crypto';
import { hasValidTwilioSignature, twilioSignature } from '../../integrations/calling/twilio-signature';

// Twilio's own worked example of its request signature (docs, "Secure webhooks", and the
// signature-validation snippet of its helper libraries): this URL, these fields, auth token 12345.
const DOCUMENTED = {
  authToken: '12345',
  url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
  params: [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+14158675309'],
    ['Digits', '1234'],
    ['From', '+14158675309'],
    ['To', '+18005551212'],
  ] as [string, string][],
  signature: 'RSOYDt4T1cUTdK1PDd93/VVr8B8=',
};

/** The documented algorithm written out once more, for a case Twilio's example does not cover. */
function byTheDocument(authToken: string, url: string, params: [string, string][]): string {
  const signed = [...params].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1)).reduce((text, [name, value]) => text + name + value, url);
  return createHmac('sha1', authToken).update(signed).digest('base64');
}

describe("Twilio's request signature", () => {
  it('matches the signature of Twilio’s documented example, whatever order the fields came in', () => {
    expect(twilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, DOCUMENTED.params)).toBe(DOCUMENTED.signature);
    expect(twilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, [...DOCUMENTED.params].reverse())).toBe(DOCUMENTED.signature);
    expect(hasValidTwilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, DOCUMENTED.params, DOCUMENTED.signature)).toBe(true);
  });

  it('refuses a changed field, another URL, another token, and no header', () => {
    const changed = DOCUMENTED.params.map(([name, value]) => [name, name === 'From' ? '+233241234567' : value] as [string, string]);
    expect(hasValidTwilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, changed, DOCUMENTED.signature)).toBe(false);
    expect(hasValidTwilioSignature(DOCUMENTED.authToken, 'https://mycompany.com/myapp.php?foo=1&bar=3', DOCUMENTED.params, DOCUMENTED.signature)).toBe(false);
    expect(hasValidTwilioSignature('54321', DOCUMENTED.url, DOCUMENTED.params, DOCUMENTED.signature)).toBe(false);
    expect(hasValidTwilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, DOCUMENTED.params, undefined)).toBe(false);
    expect(hasValidTwilioSignature(DOCUMENTED.authToken, DOCUMENTED.url, DOCUMENTED.params, `${DOCUMENTED.signature}=`)).toBe(false);
  });

  it('signs a field sent twice with each of its values, sorted', () => {
    const params: [string, string][] = [
      ['To', '+233302000001'],
      ['StirVerstat', 'TN-Validation-Passed-B'],
      ['StirVerstat', 'TN-Validation-Passed-A'],
      ['From', '+233241234567'],
    ];
    const url = 'https://deliveries.example.com.gh/api/v1/calls/twilio/voice';
    expect(twilioSignature('token', url, params)).toBe(byTheDocument('token', url, params));
  });
});
