import { hash, randomBytes } from 'node:crypto';

/**
 * API keys look like `sk_live_<30 base62 chars><6 base62 checksum>`: the CRC32 suffix lets secret
 * scanners (and our own auth) reject a mistyped or made-up key without a database lookup.
 */
export type KeyMode = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  const step = (byte: number) => {
    crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  };
  // Keys are ASCII, whose UTF-8 bytes are their char codes: no buffer on every request.
  if (ASCII.test(text)) for (let i = 0; i < text.length; i++) step(text.charCodeAt(i));
  else for (const byte of Buffer.from(text, 'utf8')) step(byte);
  return (crc ^ 0xffffffff) >>> 0;
}

const ASCII = /^[\x00-\x7f]*$/;

function base62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out.length === length ? out : randomBase62(length);
}

function prefixFor(kind: string, mode: KeyMode): string {
  return `${kind}_${mode}_`;
}

/** A new secret of the given kind (`sk` for partner keys, `rk` for rider tokens). */
export function generateSecret(mode: KeyMode, kind = 'sk'): string {
  const body = randomBase62(BODY_LENGTH);
  return `${prefixFor(kind, mode)}${body}${base62(crc32(body), CHECKSUM_LENGTH)}`;
}

const secretPatterns = new Map<string, RegExp>();

function secretPattern(kind: string): RegExp {
  let pattern = secretPatterns.get(kind);
  if (!pattern) {
    pattern = new RegExp(`^${kind}_(live|test)_([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
    secretPatterns.set(kind, pattern);
  }
  return pattern;
}

/** Parses a presented secret; null when it is malformed or its checksum does not match. */
export function parseSecret(secret: string, kind = 'sk'): { mode: KeyMode } | null {
  const match = secretPattern(kind).exec(secret);
  if (!match) return null;
  const [, mode, body, checksum] = match as unknown as [string, KeyMode, string, string];
  return base62(crc32(body), CHECKSUM_LENGTH) === checksum ? { mode } : null;
}

/** Only this hash is stored. Found again on every request: the one-shot hash, without a Hash object. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** What the dashboard shows of a key after creation: enough to tell keys apart. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 12);
}
