import type { RequestListener } from 'node:http';
import path from 'node:path';
import express, { type Express } from 'express';
import helmet from 'helmet';
import * as OpenApiValidator from 'express-openapi-validator';
import swaggerUi from 'swagger-ui-express';
import { createDashboardRouter } from './dashboard/router';
import { hostRequired } from './middleware/host-required';
import type { AppDeps } from './app-deps';
import { ApiError } from './api-error';
import { allowOnly } from './middleware/allow-only';
import { errorHandler } from './middleware/error-handler';
import { integerQuery } from './middleware/integer-query';
import { jsonBody } from './middleware/json-body';
import { refuseUnknownFields } from './middleware/unknown-fields';
import { DeliveryChangeRequest } from './openapi/schemas';
import { headAsGet } from './middleware/head-as-get';
import { httpMetrics } from './middleware/http-metrics';
import { partnerAuth } from './middleware/partner-auth';
import { stagedPhotoStorage } from './rider/photo-staging';
import {
  partnerIpRateLimit,
  partnerRateLimit,
  partnerTestModeRateLimit,
  placesRateLimit,
  proofPhotoRateLimit,
  riderIpRateLimit,
  riderRateLimit,
  trackingRateLimit,
} from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { RiderTokens, riderAuth } from './middleware/rider-auth';
import { uploadSlots } from './rider/upload-slots';
import { buildOpenApiDocument, forRequestValidation } from './openapi/document';
import { FORMATS } from './openapi/formats';
import { rememberOpenApiRouteMatchers } from './openapi/route-matchers';
import { createDeliveriesRouter } from './partner/deliveries-routes';
import { createHealthRouter } from './ops/health-routes';
import { createMetricsRouter } from './ops/metrics-routes';
import { createPaymentMethodsRouter } from './partner/payment-methods-routes';
import { createPaystackCallbackRouter } from './providers/paystack-callback-routes';
import { createVoiceCallbackRouter } from './providers/voice-callback-routes';
import { createPlacesRouter } from './public/places-routes';
import { createProofPhotoRouter } from './public/proof-photo-routes';
import { PROOF_PHOTO_PATH } from './proof-photo-links';
import { createQuotesRouter } from './partner/quotes-routes';
import { createServiceAreaRouter } from './partner/service-area-routes';
import { SIMULATE_PATH, createSandboxRouter, liveKeysSeeNoSandbox } from './partner/sandbox-routes';
import { createRiderAvailabilityRouter } from './rider/availability-routes';
import { locationFastPath } from './rider/location-fast-path';
import { PositionPings } from './rider/position-pings';
import { createRiderJobRouter } from './rider/job-routes';
import { createRiderOfferRouter } from './rider/offer-routes';
import { createRiderAppRouter } from './public/rider-app-routes';
import { createRiderSignInRouter } from './rider/sign-in-routes';
import { createTrackPageRouter } from './public/track-page-routes';
import { createTrackingRouter, publicCors } from './public/tracking-routes';
import { createWebhookRouter } from './partner/webhook-routes';
import { PHOTO_MAX_BYTES } from '../domain/limits';

export const API_PREFIX = '/api/v1';

/** The HTTP API: the Express app, and the listener a server runs, which serves the rider's position ping ahead of it. */
export interface HttpApi {
  app: Express;
  listener: RequestListener;
}

/** The HTTP API, built from its dependencies; it never listens by itself, so tests drive it in-process. */
export function createApp(deps: AppDeps): HttpApi {
  const app = express();
  app.disable('x-powered-by');
  // Whose X-Forwarded-For names the client (rate limits per IP, logs) is a setting: TRUST_PROXY.
  app.set('trust proxy', deps.settings.trustProxy);
  app.set('json spaces', 0);
  // Express's ETag, a hash of every body, stays off: it cost more than it could save. The polled
  // views (the keyed record, the tracking view) set their own, from their version and live
  // fields (decision 0175); static files keep theirs.
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  app.use(hostRequired);
  app.use(httpMetrics());
  const securityHeaders = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: false });
  app.use(securityHeaders);

  const document = buildOpenApiDocument();
  rememberOpenApiRouteMatchers();
  const api = express.Router();
  // The gateway's and the voice providers' callbacks need their raw bytes, so they come before
  // JSON parsing and validation.
  api.use(createPaystackCallbackRouter(deps));
  api.use(createVoiceCallbackRouter(deps));
  // Keys and rider tokens are checked before a body is read or validated: a request without a
  // valid one is 401 whatever it carries, learns nothing of the schema and uploads no photo.
  // The per-IP budget comes first: once spent, made-up keys and tokens are refused without a lookup.
  api.use('/partner', partnerIpRateLimit(deps), partnerAuth(deps.orm), partnerRateLimit(deps), partnerTestModeRateLimit(deps));
  // A phone signing in has no token yet: its one-time code is the credential, under a per-IP budget.
  api.use(createRiderSignInRouter(deps));
  // One of each for the rider routes and the ping's fast path, so they spend one budget.
  const riderIpLimit = riderIpRateLimit(deps);
  const riderTokens = new RiderTokens(deps.orm);
  const riderLimit = riderRateLimit(deps);
  api.use('/rider', riderIpLimit, riderAuth(riderTokens), riderLimit);
  // Hand-over photos: a bounded number read at once, after the token and before any byte of the body.
  api.post(['/rider/deliveries/:id/deliver', '/rider/deliveries/:id/stops/:index/complete'], uploadSlots(deps.settings.uploadsMaxConcurrent));
  // Before any body is read or validated: to a live key the sandbox's path does not exist.
  api.all(SIMULATE_PATH, liveKeysSeeNoSandbox);
  api.use(jsonBody());
  api.use('/track', publicCors, trackingRateLimit(deps));
  api.use('/places', placesRateLimit(deps));
  api.use(PROOF_PHOTO_PATH, proofPhotoRateLimit(deps));
  api.use(headAsGet);
  // Only the lists take a page; elsewhere `limit` and `offset` are unknown query fields, ignored.
  api.get(['/partner/deliveries', '/partner/webhook/deliveries'], integerQuery);
  // The validator drops fields a schema does not name; a change of a booking refuses them instead,
  // so a misspelled `dry_run` never makes the change real.
  api.use(refuseUnknownFields([{ method: 'PATCH', path: /^\/partner\/deliveries\/[^/]+$/, schema: DeliveryChangeRequest }]));
  api.use(
    OpenApiValidator.middleware({
      apiSpec: forRequestValidation(document) as never,
      validateApiSpec: false,
      // Query and path parameters are always coerced from their strings; a JSON body is taken as
      // typed, so `null` or `"5.5"` for a number is refused rather than read as 0 or 5.5.
      validateRequests: { allErrors: true, removeAdditional: 'all', allowUnknownQueryParameters: true, coerceTypes: false },
      // Formats checked in full: the fast `date-time` pattern lets `2026-02-30T10:00:00Z` through,
      // which Date then reads as 2 March, so a booking would be scheduled for a day nobody asked for.
      ajvFormats: { mode: 'full' },
      formats: FORMATS,
      validateResponses: deps.validateResponses ?? false,
      validateSecurity: false,
      ignoreUndocumented: false,
      ignorePaths: /^\/api\/v1\/(payments|calls)\//,
      // Streamed to a staged file as it arrives, the size cap applied on the way: never a whole photo in memory.
      fileUploader: {
        storage: stagedPhotoStorage(path.join(deps.settings.uploadsDir, '.incoming')),
        limits: { fileSize: PHOTO_MAX_BYTES, files: 1, fields: 5 },
      },
    }),
  );
  api.use(createQuotesRouter(deps));
  api.use(createServiceAreaRouter(deps));
  api.use(createDeliveriesRouter(deps));
  api.use(createSandboxRouter(deps));
  api.use(createPaymentMethodsRouter(deps));
  api.use(createWebhookRouter(deps));
  api.use(createTrackingRouter(deps));
  api.use(createPlacesRouter(deps));
  api.use(createProofPhotoRouter(deps));
  const pings = new PositionPings(deps.orm);
  api.use(createRiderAvailabilityRouter(deps, pings));
  api.use(createRiderOfferRouter(deps));
  api.use(createRiderJobRouter(deps));
  // The API first: every partner, rider and tracking request skips the layers below.
  app.use(API_PREFIX, api);

  app.use(createHealthRouter(deps));
  app.use(createMetricsRouter(deps.settings));
  app.all('/openapi.json', allowOnly('GET'));
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(
    '/docs',
    allowOnly('GET'),
    helmet({
      contentSecurityPolicy: {
        directives: {
          'script-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          // As on the dashboard: only in production, where the site is HTTPS. Elsewhere it would send
          // the page's own assets to https:// on any host but localhost, and the page would be blank.
          'upgrade-insecure-requests': deps.settings.nodeEnv === 'production' ? [] : null,
        },
      },
    }),
    swaggerUi.serve,
    swaggerUi.setup(document, { customSiteTitle: 'Partner Delivery API', swaggerOptions: { url: '/openapi.json' } }),
  );

  // Web pages: the hosted tracking page, the partner dashboard and the rider app.
  app.use('/dashboard', createDashboardRouter(deps));
  app.use(createTrackPageRouter(deps));
  app.use(createRiderAppRouter(deps));

  app.use((_req, _res, next) => next(ApiError.notFound('No such route')));
  app.use(errorHandler(deps.logger));

  // Thousands of phones ping every 5 s: the ping skips the stack, not its checks (rider/location-fast-path.ts).
  const ping = locationFastPath({
    prefix: API_PREFIX,
    route: '/rider/location',
    app,
    logger: deps.logger,
    securityHeaders,
    riderIpLimit,
    tokens: riderTokens,
    riderLimit,
    pings,
  });
  return {
    app,
    listener: (req, res) => {
      if (!ping(req, res)) app(req, res);
    },
  };
}
