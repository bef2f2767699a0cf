/**
 * What each voice provider is told to do with a call to a pool number, in its own XML: put the
 * caller through to the recipient, or say why not and end the call. Every value is escaped, so
 * nothing a caller or a setting holds can add an instruction.
 */
export interface VoiceAnswers {
  contentType: string;
  /** Dial `to`, shown to the recipient as `callerId` (the pool number), so neither side sees the other's phone. */
  bridge(to: string, callerId: string): string;
  /** Speak `message`, then end the call. */
  refuse(message: string): string;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Escapes text for an XML element or a double-quoted attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

/**
 * Twilio Programmable Voice (TwiML). `answerOnBridge` keeps the caller hearing the ring until the
 * recipient answers, as on a direct call; `callerId` must be one of the account's numbers, and
 * without it the recipient would see the rider's own phone.
 */
export const twimlAnswers: VoiceAnswers = {
  contentType: 'text/xml; charset=utf-8',
  bridge: (to, callerId) =>
    `${XML_DECLARATION}<Response><Dial callerId="${escapeXml(callerId)}" answerOnBridge="true"><Number>${escapeXml(to)}</Number></Dial></Response>`,
  refuse: (message) => `${XML_DECLARATION}<Response><Say>${escapeXml(message)}</Say><Hangup/></Response>`,
};

/**
 * Africa's Talking Voice. Its `Dial` takes the numbers in `phoneNumbers`; `callerId` is the
 * number the recipient sees (Africa's Talking's default too, for a call to a plain number).
 */
export const africasTalkingAnswers: VoiceAnswers = {
  contentType: 'application/xml; charset=utf-8',
  bridge: (to, callerId) => `${XML_DECLARATION}<Response><Dial phoneNumbers="${escapeXml(to)}" callerId="${escapeXml(callerId)}"/></Response>`,
  refuse: (message) => `${XML_DECLARATION}<Response><Say>${escapeXml(message)}</Say><Reject/></Response>`,
};
