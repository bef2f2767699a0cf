import { XMLParser } from 'fast-xml-parser';
import { africasTalkingAnswers, escapeXml, twimlAnswers } from '../../integrations/calling/voice-answers';

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false }).parse(xml, true);

/** Text that would add an instruction if it reached the XML unescaped. */
const HOSTILE = `+233241234567"/><Dial phoneNumbers="+233200000000'&`;

describe('what each voice provider is told', () => {
  it('tells Twilio to dial the recipient, shown the pool number, ringing until answered', () => {
    const xml = twimlAnswers.bridge('+233241234567', '+233302000001');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+233302000001" answerOnBridge="true"><Number>+233241234567</Number></Dial></Response>',
    );
    expect(twimlAnswers.contentType).toMatch(/^text\/xml/);
  });

  it('tells Twilio to speak the refusal and hang up', () => {
    expect(twimlAnswers.refuse('No delivery.')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>No delivery.</Say><Hangup/></Response>');
  });

  it("tells Africa's Talking to dial the recipient, shown the pool number, or to speak and reject", () => {
    expect(africasTalkingAnswers.bridge('+233241234567', '+233302000001')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial phoneNumbers="+233241234567" callerId="+233302000001"/></Response>',
    );
    expect(africasTalkingAnswers.refuse('No delivery.')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>No delivery.</Say><Reject/></Response>');
    expect(africasTalkingAnswers.contentType).toMatch(/^application\/xml/);
  });

  it('escapes every value, so none can add an instruction', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
    const twiml = parse(twimlAnswers.bridge(HOSTILE, HOSTILE)).Response;
    expect(twiml.Dial).toEqual({ Number: HOSTILE, '@callerId': HOSTILE, '@answerOnBridge': 'true' });
    const at = parse(africasTalkingAnswers.bridge(HOSTILE, HOSTILE)).Response;
    expect(at).toEqual({ Dial: { '@phoneNumbers': HOSTILE, '@callerId': HOSTILE } });
    expect(parse(twimlAnswers.refuse(HOSTILE)).Response).toEqual({ Say: HOSTILE, Hangup: '' });
    expect(parse(africasTalkingAnswers.refuse(HOSTILE)).Response).toEqual({ Say: HOSTILE, Reject: '' });
  });
});
