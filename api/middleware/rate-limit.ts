import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type { AppDeps } from '../deps';
import { ApiError } from '../errors';
import { partnerOf } from './partner-auth';
import { riderOf } from './rider-auth';
import { PostgresRateLimitStore } from './rate-limit-store';

const WINDOW_MS = 60_000;

interface LimiterSpec {
  /** Names the policy in the `RateLimit` headers and keeps its counters apart in a shared store. */
  name: string;
  perMinute: number;
  key: (req: Request, res: Response) => string;
  /** Who the budget belongs to, for the 429 message. */
  per: string;
}

function limiter({ settings, orm, logger }: AppDeps, spec: LimiterSpec): RequestHandler {
  const store: Store | undefined = settings.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(orm, spec.name) : undefined;
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: spec.perMinute,
    // `RateLimit-Limit`, `-Remaining`, `-Reset` and `-Policy`: the `RateLimit-*` of DESIGN section 8.
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    identifier: spec.name,
    keyGenerator: spec.key,
    ...(store ? { store } : {}),
    // A store that cannot be reached is an outage like any other: the error handler answers 503.
    passOnStoreError: false,
    // Retry-After and the RateLimit headers are already set when this runs.
    handler: (_req, _res, next) => {
      next(
        new ApiError(429, 'rate_limited', `Too many requests: at most ${spec.perMinute} a minute ${spec.per}; retry after the Retry-After seconds`, {
          limit: spec.perMinute,
          window_seconds: WINDOW_MS / 1000,
        }),
      );
    },
    // Forwarded headers are trusted only as `trust proxy` says; a client sending them is no misconfiguration.
    validate: { xForwardedForHeader: false, forwardedHeader: false },
    logger: { error: (...args: unknown[]) => logger.error('Rate limiter', { detail: String(args[1] ?? args[0]) }), warn: () => undefined },
  });
}

/** Per API key on `/partner/...`; runs after partner authentication. */
export function partnerRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'partner',
    perMinute: deps.settings.rateLimitPartnerPerMinute,
    key: (_req, res) => partnerOf(res).keyId,
    per: 'per API key',
  });
}

/**
 * Per rider token on `/rider/...`; runs after rider authentication. A rider app sends about one
 * request a second (position, offers, steps), so the default of 20 a second only stops a runaway.
 */
export function riderRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'rider',
    perMinute: deps.settings.rateLimitRiderPerMinute,
    key: (_req, res) => riderOf(res).riderId,
    per: 'per rider token',
  });
}

/** An IPv4 client seen through a dual-stack socket (`::ffff:203.0.113.7`). */
const MAPPED_IPV4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/**
 * IPv6 clients are counted per /56, the block one customer usually holds; IPv4 clients per
 * address. Mapped IPv4 addresses, most clients on a dual-stack socket, skip the IPv6 parser.
 */
function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return MAPPED_IPV4.exec(ip)?.[1] ?? ipKeyGenerator(ip, 56);
}

/** Per client IP on the public tracking view. */
export function trackingRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'track', perMinute: deps.settings.rateLimitPublicPerMinute, key: clientIp, per: 'per IP address' });
}

/** Per client IP on place search. */
export function placesRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'places', perMinute: deps.settings.rateLimitPlacesPerMinute, key: clientIp, per: 'per IP address' });
}
