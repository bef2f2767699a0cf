import zlib from 'node:zlib';
import { crc32, displayPrefix, generateSecret, hashSecret, parseSecret } from '../../domain/api-key';

describe('API keys', () => {
  it('makes live and test keys that carry their mode and a valid checksum', () => {
    const live = generateSecret('live');
    const test = generateSecret('test');
    expect(live).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(test).toMatch(/^sk_test_[0-9A-Za-z]{36}$/);
    expect(parseSecret(live)).toEqual({ mode: 'live' });
    expect(parseSecret(test)).toEqual({ mode: 'test' });
  });

  it('rejects a key with one character changed, by its checksum alone', () => {
    const key = generateSecret('live');
    const last = key[10] === 'A' ? 'B' : 'A';
    expect(parseSecret(key.slice(0, 10) + last + key.slice(11))).toBeNull();
    expect(parseSecret(key.slice(0, -1))).toBeNull();
    expect(parseSecret(key.replace('sk_', 'rk_'))).toBeNull();
  });

  it('issues rider tokens of their own kind', () => {
    const token = generateSecret('live', 'rk');
    expect(parseSecret(token, 'rk')).toEqual({ mode: 'live' });
    expect(parseSecret(token)).toBeNull();
  });

  it('stores a SHA-256 hash, never the key', () => {
    const key = generateSecret('test');
    expect(hashSecret(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(key)).not.toContain(key.slice(8));
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });

  it('computes the standard CRC32', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });

  it('computes the CRC32 of the UTF-8 bytes, ASCII or not', () => {
    for (const text of ['', 'sk_live_abc', 'Ama Serwaa', 'Kɔkɔɔ Adwoa', 'Accra → Kumasi 🚚']) {
      expect(crc32(text)).toBe(zlib.crc32(Buffer.from(text, 'utf8')));
    }
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateSecret('live')));
    expect(keys.size).toBe(2000);
  });
});
