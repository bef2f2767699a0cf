import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import * as accounts from '../../db/accounts';
import { hashSecret, parseSecret, type KeyMode } from '../../domain/api-key';
import { ApiError } from '../api-error';
import { TokenCache } from './token-cache';

export interface PartnerAuth {
  partnerId: string;
  mode: KeyMode;
  keyId: string;
}

/** The partner and mode of the key that authenticated this request. */
export function partnerOf(res: Response): PartnerAuth {
  return res.locals.auth as PartnerAuth;
}

/**
 * The key of `Authorization: Bearer <key>`, or null when there is none. Node keeps the first of
 * several Authorization headers and drops the others; a request carrying more than one is
 * malformed (the field is not a list, RFC 9110), and is refused rather than authenticated by
 * whichever key came first, which a proxy in front may not have read the same way.
 */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  let seen = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') seen += 1;
  }
  if (seen > 1) throw ApiError.unauthorized('Send one Authorization header, not several');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * How long a key found valid is trusted without asking Postgres again. A key revoked through
 * this process is dropped at once (db/accounts.ts tells us); another API process may accept it
 * for at most this long after the revocation.
 */
export const AUTH_CACHE_MS = 2000;

const validKeys = new TokenCache<PartnerAuth>(AUTH_CACHE_MS);
/** Counts revocations heard of, so a lookup that a revocation overtook is not remembered. */
let revocations = 0;
accounts.onApiKeyRevoked((keyId) => {
  revocations += 1;
  validKeys.deleteWhere((auth) => auth.keyId === keyId);
});

/**
 * `Authorization: Bearer sk_live_…|sk_test_…`. The checksum rejects malformed keys without a
 * lookup; known keys are found by their SHA-256 hash; revoked keys are refused. A valid key is
 * remembered for AUTH_CACHE_MS, which takes the lookup off nearly every request of a busy
 * partner; unknown keys are never remembered, so a new key works at once.
 */
export function partnerAuth(orm: MikroORM) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    if (!token) throw ApiError.unauthorized('Send your API key as `Authorization: Bearer <key>`');
    const parsed = parseSecret(token, 'sk');
    if (!parsed) throw ApiError.unauthorized('The API key is malformed');
    const hash = hashSecret(token);
    let auth = validKeys.get(hash);
    if (!auth) {
      const revocationsBefore = revocations;
      const em = orm.em.fork();
      const key = await accounts.findUsableApiKey(em, hash);
      if (!key) {
        validKeys.delete(hash);
        throw ApiError.unauthorized('The API key is unknown or revoked');
      }
      if (key.stale) {
        // Last-used time to the minute is enough, and keeps a write off most requests.
        void accounts.markApiKeyUsed(em, key.id).catch(() => undefined);
      }
      auth = { partnerId: key.partner_id, mode: key.mode, keyId: key.id };
      // A key revoked while this lookup was under way may have been read before the revocation:
      // this request, already in flight, goes on, but the key is not trusted for the next ones.
      if (revocations === revocationsBefore) validKeys.set(hash, auth);
    }
    res.locals.auth = auth;
    res.locals.partnerId = auth.partnerId;
    next();
  };
}
