/**
 * Africa's Talking Voice as our callback meets it: someone dials one of the account's numbers,
 * and Africa's Talking POSTs the call's fields, form-encoded, to the callback URL set for that
 * number (`isActive=1`, `sessionId`, `direction`, `callerNumber`, `destinationNumber`), from its
 * own addresses. It reads the XML answer as Africa's Talking would: `<Dial phoneNumbers=…>` puts
 * the call through, `<Reject/>` ends it after what `<Say>` spoke. When the call is over it POSTs
 * the session's last request (`isActive=0`, with its duration and cost), whose answer it ignores
 * but for its status.
 *
 * The service believes a forwarded address only from a proxy TRUST_PROXY names: `sourceAddress`
 * is sent as `X-Forwarded-For`, as the proxy in front of the API would write it.
 */
import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';

/** What the caller got: put through to a number (shown `callerId`), refused with words spoken, or an HTTP error. */
export type VoiceCallOutcome = { dialled: string; callerId: string | null } | { refused: string } | { httpStatus: number };

export interface AfricasTalkingCall {
  outcome: VoiceCallOutcome;
  /** The status our callback answered the call's last request (isActive=0) with; null when the call never started. */
  endStatus: number | null;
}

export interface AfricasTalkingVoiceFake {
  /** A call from `from` to the account's number `to`. */
  call(from: string, to: string, options?: { sourceAddress?: string }): Promise<AfricasTalkingCall>;
}

/** `callbackUrl` is the URL set for the numbers in Africa's Talking's voice dashboard. */
export function africasTalkingVoiceFake(options: { callbackUrl: string; sourceAddress: string }): AfricasTalkingVoiceFake {
  return {
    async call(from, to, { sourceAddress = options.sourceAddress } = {}) {
      const session = { sessionId: `ATVId_${randomBytes(12).toString('hex')}`, direction: 'Inbound', callerNumber: from, destinationNumber: to };
      const post = (fields: Record<string, string>) =>
        fetch(options.callbackUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': sourceAddress },
          body: new URLSearchParams(fields).toString(),
        });
      const response = await post({ isActive: '1', ...session, callerCarrierName: 'MTN', callStartTime: new Date().toISOString() });
      const text = await response.text();
      if (!response.ok) return { outcome: { httpStatus: response.status }, endStatus: null };
      if (!/^(text|application)\/xml\b/.test(response.headers.get('content-type') ?? '')) throw new Error(`Voice XML answered as ${response.headers.get('content-type')}`);
      const outcome = readVoiceXml(text);
      const bridged = 'dialled' in outcome;
      const ended = await post({
        isActive: '0',
        ...session,
        status: bridged ? 'Success' : 'Rejected',
        durationInSeconds: bridged ? '42' : '3',
        currencyCode: 'GHS',
        amount: bridged ? '0.35' : '0.03',
        ...(bridged ? { dialDestinationNumber: outcome.dialled, dialDurationInSeconds: '40' } : {}),
      });
      await ended.arrayBuffer();
      return { outcome, endStatus: ended.status };
    },
  };
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false });

/** What Africa's Talking does with the answer; anything but these shapes is a mistake in the answer. */
function readVoiceXml(text: string): VoiceCallOutcome {
  const response = (parser.parse(text, true) as { Response?: Record<string, any> }).Response;
  if (!response) throw new Error(`Voice XML without <Response>: ${text}`);
  if (response.Dial !== undefined) {
    const dial = response.Dial as { phoneNumbers?: string; callerId?: string };
    const numbers = dial.phoneNumbers?.split(',') ?? [];
    if (numbers.length !== 1) throw new Error(`<Dial> without exactly one number in phoneNumbers: ${text}`);
    return { dialled: numbers[0]!, callerId: dial.callerId ?? null };
  }
  if (response.Reject !== undefined) return { refused: String(response.Say ?? '') };
  throw new Error(`Voice XML that neither dials nor rejects the call: ${text}`);
}
