import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import * as idempotency from '../../db/idempotency';
import { KeySettledNotices } from '../../db/idempotency-notices';
import type { PoolQuery } from '../../db/pool-query';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { partnerOf } from '../middleware/partner-auth';
import { KeyWaits, WAIT_OVER } from './key-waits';

/** How long a repeat waits at most for the first request still running, whatever its own deadline. */
const WAIT_FOR_FIRST_MS = 30_000;
/** Told to a repeat answered 409 while the first request is unresolved: when to send it again. */
const RETRY_AFTER_SECONDS = 2;
/** Waits between attempts to record the answer while Postgres is unreachable. */
const SETTLE_RETRY_MS = [100, 300, 1_000, 2_000, 4_000];

/** The key a request owns while it runs, for the work it does to bind its result to. */
export interface IdempotencyClaim {
  ids: idempotency.IdempotencyKeyIds;
}

/** An answer rebuilt from what a request made, when its own answer was never recorded. */
export type ResourceAnswer = (resourceId: string) => Promise<{ status: number; body: unknown } | undefined>;

export interface IdempotencyOptions {
  /** Answers a repeat whose first request made something (`bindClaimedKey`) but recorded no answer. */
  answerFromResource?: ResourceAnswer;
  /**
   * True while the first request, still running, may yet withdraw what it made (`unbindClaimedKey`):
   * a repeat is not answered with it then, but waits, or is told to come back.
   */
  mayBeWithdrawn?: (resourceId: string) => Promise<boolean>;
  /** How long the first request may run before it answers, at most: repeats wait no longer. */
  firstRequestMs?: number;
  /** Request headers that change what the request does (`Sandbox-Rider`): part of what makes two requests the same. */
  headersThatCount?: readonly string[];
}

/**
 * The waits of this process's repeats, one per ORM (an API process has one): a key waited on by
 * many repeats is looked at once per round for all of them, woken by LISTEN/NOTIFY.
 */
const waitsByOrm = new WeakMap<AppDeps['orm'], KeyWaits>();
function keyWaitsOf(orm: AppDeps['orm']): KeyWaits {
  let waits = waitsByOrm.get(orm);
  if (!waits) waitsByOrm.set(orm, (waits = new KeyWaits(KeySettledNotices.from(orm.em))));
  return waits;
}

/** The claim of the running request, if it was sent with an `Idempotency-Key`. */
export function idempotencyClaimOf(res: Response): IdempotencyClaim | undefined {
  return res.locals.idempotencyClaim as IdempotencyClaim | undefined;
}

/**
 * Ties the claimed key to what the request made, inside the transaction that makes it: once that
 * commits, a repeat of the request is answered with it, even if this request's answer is lost
 * (the COMMIT went through but its acknowledgement did not, and the partner was told 503).
 */
export async function bindClaimedKey(tx: PoolQuery, claim: IdempotencyClaim, resourceId: string): Promise<void> {
  await idempotency.bindToResource(tx, claim.ids, resourceId);
}

/**
 * Unties the claimed key from what the request made, inside the transaction that withdraws it: the
 * request then answers an error and the key is let go of, as for a request that made nothing.
 */
export async function unbindClaimedKey(tx: PoolQuery, claim: IdempotencyClaim, resourceId: string): Promise<void> {
  await idempotency.unbindFromResource(tx, claim.ids, resourceId);
}

/** JSON with object keys sorted, so the same fields in another order are the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What makes two requests the same for a key: method, path (below /api/v1), body, and the headers
 * that count which were sent. A request without them hashes as it always did, so keys claimed
 * before a header counted still match their repeats.
 */
export function requestHash(method: string, path: string, body: unknown, headers: Record<string, string> = {}): string {
  const sent = Object.keys(headers)
    .sort()
    .map((name) => `\n${name.toLowerCase()}: ${headers[name]}`)
    .join('');
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}${sent}`).digest('hex');
}

/** The headers of `names` the request carries, by lower-case name. */
function headersSent(req: Request, names: readonly string[]): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const name of names) {
    const value = req.get(name);
    if (value !== undefined) sent[name.toLowerCase()] = value;
  }
  return sent;
}

/** How often this process clears every expired key (each key is also cleared when reused). */
const SWEEP_EVERY_MS = 10 * 60_000;
let nextSweep = 0;

/**
 * `Idempotency-Key`: the first request with a key runs; a repeat with the same body within 24 h
 * gets the first answer replayed, and a repeat with a different body is 409. Keys live in
 * Postgres, so every API process shares them. A repeat that comes while the first is unresolved
 * waits for its answer, never longer than the first may run, then is told 409 with `Retry-After`:
 * it is never answered with something the first may still withdraw. `answerFromResource` answers
 * a repeat whose first request made something that stays (`bindClaimedKey`) but recorded no answer.
 */
export function idempotent({ orm, logger }: AppDeps, scope: string, options: IdempotencyOptions = {}) {
  const { answerFromResource, mayBeWithdrawn, firstRequestMs = WAIT_FOR_FIRST_MS, headersThatCount = [] } = options;
  const waits = keyWaitsOf(orm);
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (key.length === 0 || key.length > 255) throw ApiError.badRequest('Idempotency-Key must be 1 to 255 characters');
    const { partnerId, mode } = partnerOf(res);
    const hash = requestHash(req.method, req.path, req.body, headersSent(req, headersThatCount));
    const em = orm.em.fork();
    const ids: IdempotencyClaim['ids'] = [partnerId, mode, scope, key];
    const digest = idempotency.keyDigest(ids);

    if (Date.now() > nextSweep) {
      nextSweep = Date.now() + SWEEP_EVERY_MS;
      void idempotency.sweepExpired(em).catch(() => undefined);
    }

    const arrived = Date.now();
    let waitUntil: number | undefined;
    let stored: idempotency.StoredKey | undefined;
    for (;;) {
      if (!stored) {
        // A key older than 24 h, or abandoned having made nothing, is forgotten and claimed afresh.
        if (await idempotency.claim(em, ids, hash)) break;
        stored = await idempotency.find(em, ids);
        if (!stored) continue; // The first request failed and let go of the key: claim it now.
      }
      if (stored.request_hash !== hash) {
        const headers = headersThatCount.length > 0 ? ` or ${headersThatCount.join(', ')} header` : '';
        throw ApiError.conflict(`This Idempotency-Key was used with a different request body${headers}`);
      }
      if (stored.response_status !== null) {
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(stored.response_status).type('application/json').send(stored.response_body ?? '');
        return;
      }
      // Once the first has finished (or its process is taken for dead), nobody withdraws what it made.
      const firstOver = stored.first_finished || stored.age_ms > idempotency.ABANDONED_AFTER_MS;
      const made = stored.resource_id;
      const rebuilt = made !== null && (firstOver || !(await mayBeWithdrawn?.(made))) ? await answerFromResource?.(made) : undefined;
      if (rebuilt) {
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(rebuilt.status).json(rebuilt.body);
        return;
      }
      // Unresolved: wait while the first request may still answer, by its own deadline.
      waitUntil ??= arrived + Math.min(WAIT_FOR_FIRST_MS, Math.max(0, firstRequestMs - stored.age_ms));
      if (Date.now() >= waitUntil) {
        throw ApiError.conflict('The first request with this Idempotency-Key has not finished; send it again shortly', {}, {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        });
      }
      const looked = await waits.next(digest, () => idempotency.find(em, ids), waitUntil);
      stored = looked === WAIT_OVER ? await idempotency.find(em, ids) : looked;
    }

    // This request owns the key: remember its answer, or let go of the key if nothing was done.
    // A refusal (4xx: no account registered yet, an unknown payment method, a number the network
    // does not know) books and saves nothing, like a failure on our side (5xx), so the partner
    // may send the request again under the same key once the cause is put right; a key bound to
    // what the request made is kept whatever the answer, for repeats to be answered with it. Both are retried
    // while Postgres is briefly unreachable: a key left claimed would make every retry of this
    // request wait, then be refused, until the claim counts as abandoned.
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const settle = () => (status >= 400 ? idempotency.release(em, ids) : idempotency.recordAnswer(em, ids, status, JSON.stringify(body)));
      void (async () => {
        for (let attempt = 0; ; attempt += 1) {
          try {
            await settle();
            waits.settled(digest);
            return;
          } catch (error) {
            const wait = SETTLE_RETRY_MS[attempt];
            if (wait === undefined) {
              logger.error('Idempotency-Key answer not recorded', { scope, status, error: error instanceof Error ? error.message : String(error) });
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, wait));
          }
        }
      })().then(() => json(body));
      return res;
    };
    res.locals.idempotencyClaim = { ids } satisfies IdempotencyClaim;
    next();
  };
}
