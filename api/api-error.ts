import { isUuid } from '../domain/uuid';

/** Error codes of the envelope (DESIGN section 8). */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

/** Thrown anywhere in the API; turned into `{"error": {code, message, details}}` in one place. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(message: string, details: Record<string, unknown> = {}) {
    return new ApiError(400, 'bad_request', message, details);
  }

  static notFound(message = 'Not found') {
    return new ApiError(404, 'not_found', message);
  }

  static conflict(message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    return new ApiError(409, 'conflict', message, details, headers);
  }

  /** A known path asked with a method it does not take; `allow` is the `Allow` header's value. */
  static methodNotAllowed(allow: string) {
    return new ApiError(405, 'method_not_allowed', 'This method is not allowed on this path', {}, { Allow: allow });
  }

  static unauthorized(message: string, details: Record<string, unknown> = {}) {
    return new ApiError(401, 'unauthorized', message, details, { 'WWW-Authenticate': 'Bearer' });
  }

  /** A credential that is no credential of ours, or is past its time: a signed link, say. */
  static forbidden(message: string, details: Record<string, unknown> = {}) {
    return new ApiError(403, 'forbidden', message, details);
  }

  static unavailable(message = 'A backing service is unreachable; try again shortly') {
    return new ApiError(503, 'unavailable', message, {}, { 'Retry-After': '5' });
  }
}

export function envelope(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}

/** Ids in paths that are not UUIDs are simply unknown: 404, like any other unknown id. */
export function requireUuid(id: string | undefined, what = 'Not found'): string {
  if (!id || !isUuid(id)) throw ApiError.notFound(what);
  return id.toLowerCase();
}
