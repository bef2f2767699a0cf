/**
 * Twilio Programmable Voice as our callback meets it: someone dials one of the account's numbers,
 * and Twilio POSTs the call's fields, form-encoded, to the number's voice URL, signed
 * `X-Twilio-Signature` as Twilio documents it (HMAC-SHA1 with the auth token of the URL it was
 * given followed by each POST field sorted by name, name then value, in base64). It reads the
 * TwiML answer as Twilio would: a `<Dial>` puts the call through to its `<Number>`, shown to the
 * recipient as the Dial's `callerId`; `<Hangup/>` or `<Reject/>` ends it after what `<Say>` spoke.
 *
 * The signature is computed here on its own, from Twilio's documentation, not with the service's
 * code: the two must agree for a call to get through.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';

/** What the caller got: put through to a number (shown `callerId`), refused with words spoken, or an HTTP error. */
export type VoiceCallOutcome = { dialled: string; callerId: string | null } | { refused: string } | { httpStatus: number };

export interface TwilioVoiceFake {
  accountSid: string;
  authToken: string;
  /** A call from `from` to the account's number `to`, as Twilio asks the number's voice URL about it. */
  call(from: string, to: string, options?: { signWith?: string }): Promise<VoiceCallOutcome>;
}

/**
 * `postTo` is where the service listens; `voiceUrl` is the URL configured for the number at Twilio
 * (SITE_URL and the path), the one Twilio signs. Behind a proxy the two differ, as here.
 */
export function twilioVoiceFake(options: { postTo: string; voiceUrl: string; authToken?: string }): TwilioVoiceFake {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = options.authToken ?? randomBytes(16).toString('hex');
  return {
    accountSid,
    authToken,
    async call(from, to, { signWith = authToken } = {}) {
      const fields: Record<string, string> = {
        AccountSid: accountSid,
        ApiVersion: '2010-04-01',
        CallSid: `CA${randomBytes(16).toString('hex')}`,
        CallStatus: 'ringing',
        Called: to,
        Caller: from,
        Direction: 'inbound',
        From: from,
        FromCountry: 'GH',
        To: to,
        ToCountry: 'GH',
      };
      const signed = Object.keys(fields)
        .sort()
        .reduce((text, name) => text + name + fields[name], options.voiceUrl);
      const response = await fetch(options.postTo, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Twilio-Signature': createHmac('sha1', signWith).update(signed, 'utf8').digest('base64'),
          'User-Agent': 'TwilioProxy/1.1',
        },
        body: new URLSearchParams(fields).toString(),
      });
      const text = await response.text();
      if (!response.ok) return { httpStatus: response.status };
      if (!/^(text|application)\/xml\b/.test(response.headers.get('content-type') ?? '')) throw new Error(`TwiML answered as ${response.headers.get('content-type')}`);
      return readTwiml(text);
    },
  };
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false });

/** What Twilio does with the answer; anything but these shapes is a mistake in the answer. */
function readTwiml(text: string): VoiceCallOutcome {
  const response = (parser.parse(text, true) as { Response?: Record<string, any> }).Response;
  if (!response) throw new Error(`TwiML without <Response>: ${text}`);
  if (response.Dial !== undefined) {
    const dial = response.Dial as { Number?: string; callerId?: string };
    if (typeof dial.Number !== 'string') throw new Error(`<Dial> without one <Number>: ${text}`);
    return { dialled: dial.Number, callerId: dial.callerId ?? null };
  }
  if (response.Hangup !== undefined || response.Reject !== undefined) return { refused: String(response.Say ?? '') };
  throw new Error(`TwiML that neither dials nor ends the call: ${text}`);
}
