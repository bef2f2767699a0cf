import type { NextFunction, Request, Response } from 'express';
import { ApiError, envelope } from '../api-error';
import { FORMAT_MESSAGES } from '../openapi/formats';
import { NOT_BLANK } from '../openapi/schemas';
import { UUID_PATTERN } from '../../domain/uuid';
import { PHOTO_MAX_BYTES } from '../../domain/limits';
import { INVALID_UTF8 } from './utf8-body';
import type { Logger } from '../../config/logger';

interface ValidatorError {
  status: number;
  path?: string;
  message?: string;
  errors?: { path: string; message: string }[];
  headers?: Record<string, string>;
}

/** The validator's word for a path that does not percent-decode (`/partner/deliveries/%ff`). */
const MALFORMED_URI = "malformed uri'";

/**
 * Express-openapi-validator error paths look like `/body/additional_stops/0/recipient_phone`; a
 * fault of the body as a whole (an array, or nothing sent) is `/body`, and is named `body`. A
 * fault it finds with the request rather than a field (a multipart body it cannot read, a path
 * that does not decode) carries the request's own path, which names no field: it is `path` when
 * the path is at fault and `body` otherwise.
 */
function fieldName(path: string, message: string): string {
  const location = /^[./]?(body|query|params|headers|path)(?=[./]|$)/.exec(path);
  if (!location) return message === MALFORMED_URI ? 'path' : 'body';
  const parts = path.slice(location[0].length).split(/[./]/).filter(Boolean);
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '') || location[1]!;
}

/** The validator's words for our own rules, as a partner reads them. */
const READABLE: Record<string, string> = {
  ...FORMAT_MESSAGES,
  [`must match pattern "${NOT_BLANK}"`]: 'must not be blank',
  [`must match pattern "${UUID_PATTERN}"`]: 'must be a UUID',
  [MALFORMED_URI]: 'is not valid percent-encoding',
  // A field a request may name only to be told so (a delivery's place, in a change of booking).
  'must NOT be valid': 'cannot be changed',
};

function fieldDetails(errors: { path: string; message: string }[]): Record<string, string> {
  const details: Record<string, string> = {};
  for (const error of errors) {
    const name = fieldName(error.path, error.message);
    if (!details[name]) details[name] = READABLE[error.message] ?? error.message;
  }
  return details;
}

/**
 * True when the cause is a backing service that cannot be reached (Temporal or Postgres). A
 * transaction whose connection died surfaces as "Transaction query already complete".
 */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; name?: string; message?: string; cause?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'ConnectionException' || e.name === 'ServiceError' || e.name === 'TransportError') return true;
  // A masked-calling provider that did not answer (integrations/calling/).
  if (e.name === 'CallProviderUnavailableError') return true;
  // An update whose call ran out of the API's deadline (api/temporal/deadline.ts).
  if (e.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return true;
  // gRPC 14 UNAVAILABLE; 4 DEADLINE_EXCEEDED: Temporal did not answer within the API's deadline.
  if (e.code === 14 || e.code === 4 || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === '57P01' || e.code === '57P03') return true;
  if (
    /Timeout acquiring a connection|Connection terminated|Connection ended unexpectedly|is not queryable|Transaction query already complete|ECONNREFUSED|UNAVAILABLE|DEADLINE_EXCEEDED|connect ETIMEDOUT|Client network socket disconnected/i.test(
      e.message ?? '',
    )
  ) {
    return true;
  }
  return e.cause !== undefined && e.cause !== error && isUnavailable(e.cause);
}

/** Turns anything thrown into the error envelope. Never an HTML page, never a stack trace. */
export function errorHandler(logger: Logger) {
  // Express recognises error handlers by their four parameters.
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = apiErrorFor(error, logger, {
      method: req.method,
      path: typeof res.locals.logPath === 'string' ? res.locals.logPath : req.path,
      requestId: res.locals.requestId as string | undefined,
    });
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    res.status(apiError.status).json(envelope(apiError.code, apiError.message, apiError.details));
  };
}

/**
 * The envelope's error for anything thrown while serving a request, logged when the fault is ours
 * (5xx). The error handler answers with it, and so does the ping's fast path.
 */
export function apiErrorFor(error: unknown, logger: Logger, request: { method: string; path: string; requestId: string | undefined }): ApiError {
  const apiError = toApiError(error, request.requestId);
  if (apiError.status >= 500) {
    logger.error(apiError.status === 503 ? 'Backing service unavailable' : 'Unhandled error', {
      method: request.method,
      path: request.path,
      error: error instanceof Error ? error.message : String(error),
      stack: apiError.status === 500 && error instanceof Error ? error.stack : undefined,
    });
  }
  return apiError;
}

/** Busboy's and multer's words for a multipart body that does not parse. */
const MALFORMED_MULTIPART = /Unexpected end of (form|multipart data)|Malformed part header|Boundary not found|Part terminated early|Unexpected field|Multipart/i;

function isJson(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function toApiError(error: unknown, requestId: string | undefined): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as { type?: string; status?: number; statusCode?: number } & ValidatorError;
  switch (e?.type) {
    case 'entity.parse.failed':
      // The parser takes only objects and arrays; `null` or `42` is JSON, just not a request body.
      return ApiError.badRequest(isJson((e as { body?: unknown }).body) ? 'The body must be a JSON object' : 'The body is not valid JSON');
    case INVALID_UTF8:
      return ApiError.badRequest('The body is not valid UTF-8');
    case 'entity.too.large':
      return new ApiError(413, 'payload_too_large', 'The body is larger than 100 kB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'Send the body as UTF-8 JSON');
  }
  const status = e?.status ?? e?.statusCode;
  // The validator reports a multipart body it cannot parse as a 500; it is the client's body that is broken.
  if (status === 500 && Array.isArray(e.errors) && MALFORMED_MULTIPART.test(e.message ?? '')) {
    return ApiError.badRequest('The multipart body is malformed', { body: e.message ?? 'malformed' });
  }
  if (typeof status === 'number' && status >= 400 && status < 500 && Array.isArray(e.errors)) {
    switch (status) {
      case 400:
        return ApiError.badRequest('The request is not valid', fieldDetails(e.errors));
      case 404:
        return ApiError.notFound('No such route');
      case 405:
        return ApiError.methodNotAllowed(e.headers?.Allow ?? '');
      case 413:
        // Only a multipart upload reaches the validator's limits; JSON bodies stop at the parser.
        // A second file is over the count, not the size: the rider app must hear which.
        if (e.message === 'Too many files') {
          return ApiError.badRequest('Send one photo per hand-over', { photo: 'only one file may be sent' });
        }
        return new ApiError(413, 'payload_too_large', `The photo is larger than ${PHOTO_MAX_BYTES / 1024 / 1024} MB`);
      case 415:
        return new ApiError(415, 'unsupported_media_type', 'Send the body as JSON (Content-Type: application/json)');
      default:
        return ApiError.badRequest(e.message ?? 'The request is not valid', fieldDetails(e.errors));
    }
  }
  // The body parser's other refusals (a compressed body that does not inflate, a body shorter than
  // its Content-Length) and a path that does not decode are the client's request, not our fault.
  if (status === 400 && (error as { expose?: unknown }).expose === true) return ApiError.badRequest('The request could not be read');
  if (isUnavailable(error)) return ApiError.unavailable();
  return new ApiError(500, 'internal_error', 'Something went wrong on our side', { request_id: requestId ?? null });
}
