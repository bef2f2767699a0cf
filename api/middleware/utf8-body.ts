import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body parser's error type for a body that is not the UTF-8 it says it is. */
export const INVALID_UTF8 = 'entity.utf8.invalid';

/**
 * express.json's `verify`: a body read as UTF-8 must be UTF-8 (RFC 8259). The decoder would
 * otherwise turn each invalid byte (a name typed in Latin-1, say) into U+FFFD, and the account or
 * booking would keep another text than the one sent without a word. It is the body that is
 * wrong: 400, before anything is parsed or done.
 */
export function requireUtf8(_req: IncomingMessage, _res: ServerResponse, body: Buffer, encoding: string): void {
  if (encoding === 'utf-8' && !isUtf8(body)) {
    throw Object.assign(new Error('The body is not valid UTF-8'), { status: 400, type: INVALID_UTF8 });
  }
}
