import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { partnerOf } from './partner-auth';
import { riderOf } from './rider-auth';
import { PostgresRateLimitStore } from './rate-limit-store';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

interface LimiterSpec {
  /** Names the policy in the `RateLimit` headers and keeps its counters apart in a shared store. */
  name: string;
  limit: number;
  /** A minute unless said otherwise. */
  windowMs?: number;
  key: (req: Request, res: Response) => string;
  /** Who the budget belongs to, for the 429 message. */
  per: string;
  /** What is counted, for the 429 message. */
  what?: string;
  /** Requests this budget does not count. */
  skip?: (req: Request, res: Response) => boolean;
  /** Count only requests answered with an error (4xx, 5xx): a budget for failures, not for traffic. */
  countOnlyFailures?: boolean;
}

function limiter({ settings, orm, logger }: AppDeps, spec: LimiterSpec): RequestHandler {
  const windowMs = spec.windowMs ?? MINUTE_MS;
  // A count heard from the shared store is counted on top of for the whole window: keys send
  // requests every few seconds for hours (a phone, a partner's server), and every hit counted in
  // the process is written within 50 ms, whose answer brings the other processes' hits. Trusted
  // for less, nearly every request of a key would be a write of its own.
  const store: Store | undefined =
    settings.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(orm, spec.name, undefined, windowMs) : undefined;
  const span = windowMs === HOUR_MS ? 'an hour' : 'a minute';
  return rateLimit({
    windowMs,
    limit: spec.limit,
    // `RateLimit-Limit`, `-Remaining`, `-Reset` and `-Policy`: the `RateLimit-*` of DESIGN section 8.
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    identifier: spec.name,
    keyGenerator: spec.key,
    ...(spec.skip ? { skip: spec.skip } : {}),
    ...(spec.countOnlyFailures ? { skipSuccessfulRequests: true } : {}),
    ...(store ? { store } : {}),
    // A store that cannot be reached is an outage like any other: the error handler answers 503.
    passOnStoreError: false,
    // Retry-After and the RateLimit headers are already set when this runs.
    handler: (_req, _res, next) => {
      next(
        new ApiError(429, 'rate_limited', `Too many ${spec.what ?? 'requests'}: at most ${spec.limit} ${span} ${spec.per}; retry after the Retry-After seconds`, {
          limit: spec.limit,
          window_seconds: windowMs / 1000,
        }),
      );
    },
    // Forwarded headers are trusted only as `trust proxy` says; a client sending them is no misconfiguration.
    validate: { xForwardedForHeader: false, forwardedHeader: false },
    logger: { error: (...args: unknown[]) => logger.error('Rate limiter', { detail: String(args[1] ?? args[0]) }), warn: () => undefined },
  });
}

/**
 * Counts a request Express does not serve (the ping's fast path, api/rider/location-fast-path.ts)
 * against `limiter`: the same limiter, store and headers as its Express requests. `req.ip` is the
 * client as `trust proxy` reads it, `res.locals` holds what the key is made of. Rejects with what
 * the limiter passes on: the 429, or the store's error.
 */
export function spend(
  limiter: RequestHandler,
  req: IncomingMessage & { ip: string },
  res: ServerResponse & { locals: Record<string, unknown> },
): Promise<void> {
  return new Promise((resolve, reject) => {
    void limiter(req as unknown as Request, res as unknown as Response, (error?: unknown) => (error === undefined ? resolve() : reject(error)));
  });
}

/** Per API key on `/partner/...`; runs after partner authentication. */
export function partnerRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'partner',
    limit: deps.settings.rateLimitPartnerPerMinute,
    key: (_req, res) => partnerOf(res).keyId,
    per: 'per API key',
  });
}

/**
 * Test-mode requests of one partner together, on top of each key's own budget: test keys can be
 * many, and trying an integration must not take the API from live work.
 */
export function partnerTestModeRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'partner-test',
    limit: deps.settings.rateLimitPartnerTestPerMinute,
    key: (_req, res) => partnerOf(res).partnerId,
    skip: (_req, res) => partnerOf(res).mode !== 'test',
    per: 'per partner in test mode',
  });
}

/**
 * Per rider token on `/rider/...`; runs after rider authentication. A rider app sends about one
 * request a second (position, offers, steps), so the default of 20 a second only stops a runaway.
 */
export function riderRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'rider',
    limit: deps.settings.rateLimitRiderPerMinute,
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
  return limiter(deps, { name: 'track', limit: deps.settings.rateLimitPublicPerMinute, key: clientIp, per: 'per IP address' });
}

/** Per client IP on signed photo links (the public budget, counted apart from tracking's). */
export function proofPhotoRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'proof-photos', limit: deps.settings.rateLimitPublicPerMinute, key: clientIp, per: 'per IP address' });
}

/** Per client IP on place search. */
export function placesRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'places', limit: deps.settings.rateLimitPlacesPerMinute, key: clientIp, per: 'per IP address' });
}

/**
 * Per client IP on `/partner/...`, before the key is looked up: unknown keys are never cached, so
 * each costs a lookup, and a flood of made-up keys from one address stops costing any once this
 * budget is spent. Generous, as several partners' servers may share one egress address.
 */
export function partnerIpRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'partner-ip', limit: deps.settings.rateLimitPartnerIpPerMinute, key: clientIp, per: 'per IP address' });
}

/**
 * Per client IP on `/rider/...`, before the token is looked up, for the same reason as the
 * partner's. Very generous: riders' phones reach us through mobile carriers, which put many
 * phones behind one address (carrier-grade NAT), and each app sends about a request a second.
 */
export function riderIpRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'rider-ip', limit: deps.settings.rateLimitRiderIpPerMinute, key: clientIp, per: 'per IP address' });
}

/**
 * Per client IP on the rider app's sign-in, which needs no token: a code is 192 random bits, so the
 * budget is not what keeps guessing hopeless, but it keeps each guess from costing a lookup for
 * long. The dashboard's log-in budget (RATE_LIMIT_AUTH_PER_MINUTE), counted apart.
 */
export function riderSignInRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, { name: 'rider-sign-in', limit: deps.settings.rateLimitAuthPerMinute, key: clientIp, per: 'per IP address', what: 'sign-in attempts' });
}

/**
 * Per client IP on the voice providers' incoming-call callbacks, counting only refused ones (a bad
 * signature, secret or address): a flood of forged callbacks is cut off, while the provider's own,
 * one for each call riders place, are never counted. The log-in budget (RATE_LIMIT_AUTH_PER_MINUTE).
 */
export function voiceCallbackRateLimit(deps: AppDeps): RequestHandler {
  return limiter(deps, {
    name: 'voice-callback',
    limit: deps.settings.rateLimitAuthPerMinute,
    key: clientIp,
    per: 'per IP address',
    what: 'refused callbacks',
    countOnlyFailures: true,
  });
}

/** The partner a request acts for: set by partner authentication, or by the dashboard from its session. */
function partnerKey(_req: Request, res: Response): string {
  const partnerId: unknown = res.locals.partnerId;
  if (typeof partnerId !== 'string') throw new Error('A per-partner rate limit ran before the partner was known');
  return partnerId;
}

/**
 * One limiter per budget and app, shared by the partner API and the dashboard so that both spend
 * one budget even with the in-process store (a store instance may serve only one limiter).
 */
const perPartnerLimiters = new WeakMap<AppDeps, Map<string, RequestHandler>>();
function perPartner(deps: AppDeps, spec: Omit<LimiterSpec, 'key' | 'per' | 'windowMs'>): RequestHandler {
  let limiters = perPartnerLimiters.get(deps);
  if (!limiters) perPartnerLimiters.set(deps, (limiters = new Map()));
  let handler = limiters.get(spec.name);
  if (!handler) limiters.set(spec.name, (handler = limiter(deps, { ...spec, windowMs: HOUR_MS, key: partnerKey, per: 'per partner' })));
  return handler;
}

/**
 * Payment methods registered or removed, per partner and hour: each registration asks the network
 * for the holder's name, so an unbounded number would map phone numbers to names.
 */
export function paymentMethodChangeLimit(deps: AppDeps): RequestHandler {
  return perPartner(deps, { name: 'payment-method-changes', limit: deps.settings.paymentMethodChangesPerHour, what: 'payment-method changes' });
}

/** Test webhooks sent from the dashboard, per partner and hour: each is a call to the partner's URL. */
export function webhookTestLimit(deps: AppDeps): RequestHandler {
  return perPartner(deps, { name: 'webhook-tests', limit: deps.settings.webhookTestsPerHour, what: 'test webhooks' });
}

/** Callbacks sent again, per partner and hour, through the API and the dashboard together. */
export function redeliveryLimit(deps: AppDeps): RequestHandler {
  return perPartner(deps, { name: 'webhook-redeliveries', limit: deps.settings.webhookRedeliveriesPerHour, what: 'redeliveries' });
}
