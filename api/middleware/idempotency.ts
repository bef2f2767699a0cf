import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { PoolQuery } from '../../db/pool-query';
import type { AppDeps } from '../deps';
import { ApiError } from '../errors';
import { partnerOf } from './partner-auth';

/** How long a key is remembered (DESIGN section 9). */
const KEY_TTL = '24 hours';
/** How long a duplicate waits for the first request still running. */
const WAIT_FOR_FIRST_MS = 30_000;
/**
 * A claim still without an answer this long after it was made belongs to a request whose
 * process died (every request ends well before): the key is free again.
 */
const ABANDONED_AFTER = '2 minutes';
/** Waits between attempts to record the answer while Postgres is unreachable. */
const SETTLE_RETRY_MS = [100, 300, 1_000, 2_000, 4_000];

interface StoredKey {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  resource_id: string | null;
}

/** The key a request owns while it runs, for the work it does to bind its result to. */
export interface IdempotencyClaim {
  ids: [partnerId: string, mode: string, scope: string, key: string];
}

/** An answer rebuilt from what a request made, when its own answer was never recorded. */
export type ResourceAnswer = (resourceId: string) => Promise<{ status: number; body: unknown } | undefined>;

/** The claim of the running request, if it was sent with an `Idempotency-Key`. */
export function idempotencyClaimOf(res: Response): IdempotencyClaim | undefined {
  return res.locals.idempotencyClaim as IdempotencyClaim | undefined;
}

const BIND_KEY = {
  name: 'idempotency-bind-key',
  text: 'update idempotency_keys set resource_id = $1 where partner_id = $2 and mode = $3 and scope = $4 and key = $5',
};

/**
 * Ties the claimed key to what the request made, inside the transaction that makes it: once that
 * commits, a repeat of the request is answered with it, even if this request's answer is lost
 * (the COMMIT went through but its acknowledgement did not, and the partner was told 503).
 */
export async function bindClaimedKey(tx: PoolQuery, claim: IdempotencyClaim, resourceId: string): Promise<void> {
  await tx.query({ ...BIND_KEY, values: [resourceId, ...claim.ids] });
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

function requestHash(req: Request): string {
  return createHash('sha256').update(`${req.method} ${req.path}\n${canonicalJson(req.body)}`).digest('hex');
}

/** How often this process clears every expired key (each key is also cleared when reused). */
const SWEEP_EVERY_MS = 10 * 60_000;
let nextSweep = 0;

/**
 * `Idempotency-Key`: the first request with a key runs; a repeat with the same body within 24 h
 * gets the first answer replayed (waiting for it if the first is still running); a repeat with
 * a different body is 409. Keys live in Postgres, so every API process shares them.
 * `answerFromResource` answers a repeat whose first request made something (`bindClaimedKey`)
 * but recorded no answer.
 */
export function idempotent({ orm, logger }: AppDeps, scope: string, answerFromResource?: ResourceAnswer) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (key.length === 0 || key.length > 255) throw ApiError.badRequest('Idempotency-Key must be 1 to 255 characters');
    const { partnerId, mode } = partnerOf(res);
    const hash = requestHash(req);
    const em = orm.em.fork();
    const ids: IdempotencyClaim['ids'] = [partnerId, mode, scope, key];

    if (Date.now() > nextSweep) {
      nextSweep = Date.now() + SWEEP_EVERY_MS;
      void em.execute(`delete from idempotency_keys where created_at < now() - interval '${KEY_TTL}'`).catch(() => undefined);
    }

    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      // Forget this key if it is older than 24 h or was abandoned having made nothing, then try to claim it.
      await em.execute(
        `delete from idempotency_keys where partner_id = ? and mode = ? and scope = ? and key = ?
           and (created_at < now() - interval '${KEY_TTL}'
                or (response_status is null and resource_id is null and created_at < now() - interval '${ABANDONED_AFTER}'))`,
        ids,
      );
      const claimed = await em.execute<unknown[]>(
        `insert into idempotency_keys (partner_id, mode, scope, key, request_hash) values (?, ?, ?, ?, ?)
         on conflict do nothing returning key`,
        [...ids, hash],
      );
      if (claimed.length === 1) break;
      const [stored] = await em.execute<StoredKey[]>(
        `select request_hash, response_status, response_body, resource_id from idempotency_keys
         where partner_id = ? and mode = ? and scope = ? and key = ?`,
        ids,
      );
      if (!stored) continue; // The first request failed and let go of the key: claim it now.
      if (stored.request_hash !== hash) {
        throw ApiError.conflict('This Idempotency-Key was used with a different request body');
      }
      if (stored.response_status !== null) {
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(stored.response_status).type('application/json').send(stored.response_body ?? '');
        return;
      }
      const rebuilt = stored.resource_id !== null ? await answerFromResource?.(stored.resource_id) : undefined;
      if (rebuilt) {
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(rebuilt.status).json(rebuilt.body);
        return;
      }
      if (Date.now() > deadline) throw ApiError.conflict('The first request with this Idempotency-Key is still running');
      await new Promise((resolve) => setTimeout(resolve, 50));
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
      const settle = () =>
        status >= 400
          ? em.execute(
              'delete from idempotency_keys where partner_id = ? and mode = ? and scope = ? and key = ? and resource_id is null',
              ids,
            )
          : em.execute(
              `update idempotency_keys set response_status = ?, response_body = ?
               where partner_id = ? and mode = ? and scope = ? and key = ?`,
              [status, JSON.stringify(body), ...ids],
            );
      void (async () => {
        for (let attempt = 0; ; attempt += 1) {
          try {
            await settle();
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
