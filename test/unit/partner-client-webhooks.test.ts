import fc from 'fast-check';
import { verifyWebhook } from '../../clients/typescript/src';
import { signatureHeader } from '../../domain/webhook-signature';

const secret = 'whsec_test_secret';
const body = JSON.stringify({
  event: 'delivery.accepted',
  delivery_id: '7f7c3f0e-3b7e-4f5e-9d43-0c0a5a2c9b11',
  status: 'accepted',
  occurred_at: '2026-11-21T14:03:00.000+00:00',
  data: { id: '7f7c3f0e-3b7e-4f5e-9d43-0c0a5a2c9b11', status: 'accepted', recipient_name: 'Ama Serwaa — Osu' },
});
const raw = Buffer.from(body, 'utf8');
const header = signatureHeader(secret, body);

describe("the partner client's verifyWebhook", () => {
  it('accepts the signature the service computes over the same bytes, as a Buffer, an ArrayBuffer or the string', () => {
    expect(verifyWebhook(raw, header, secret)).toBe(true);
    expect(verifyWebhook(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length), header, secret)).toBe(true);
    expect(verifyWebhook(body, header, secret)).toBe(true);
  });

  it('agrees with the service on every body and secret', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ minLength: 1 }), (anyBody, anySecret) => {
        expect(verifyWebhook(Buffer.from(anyBody, 'utf8'), signatureHeader(anySecret, anyBody), anySecret)).toBe(true);
      }),
    );
  });

  it('refuses a tampered body, even one byte, and a body re-serialised with the same content', () => {
    const tampered = Buffer.from(raw);
    const at = tampered.length - 2;
    tampered.writeUInt8(tampered.readUInt8(at) ^ 1, at);
    expect(verifyWebhook(tampered, header, secret)).toBe(false);
    expect(verifyWebhook(Buffer.from(JSON.stringify(JSON.parse(body), null, 1)), header, secret)).toBe(false);
  });

  it('refuses a signature made with another secret, and any signature when the secret is empty', () => {
    expect(verifyWebhook(raw, signatureHeader('whsec_other', body), secret)).toBe(false);
    expect(verifyWebhook(raw, signatureHeader('', body), '')).toBe(false);
  });

  it('refuses a missing or malformed header', () => {
    const hex = header.slice('sha256='.length);
    for (const bad of [undefined, null, '', 'sha256=', hex, `sha1=${hex}`, `sha256=${hex.toUpperCase()}`, `${header} `, header.slice(0, -1), `sha256=${'é'.repeat(32)}`, [header]]) {
      expect({ header: bad, valid: verifyWebhook(raw, bad, secret) }).toEqual({ header: bad, valid: false });
    }
  });

  // The scheme signs no timestamp (contract, "Signature"), so there is no old timestamp to refuse:
  // a replayed callback verifies, and receivers de-duplicate on X-Service-Event-Id instead.
  it('verifies the same callback sent again, as a retry is', () => {
    expect([verifyWebhook(raw, header, secret), verifyWebhook(raw, header, secret)]).toEqual([true, true]);
  });
});
