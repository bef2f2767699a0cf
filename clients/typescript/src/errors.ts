// Every answer outside 2xx, as one error value: what the API's error envelope says, and the
// request id to quote to support.
import type { ErrorEnvelope } from './types';

export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The envelope's `error.code` (`bad_request`, `payment_required`, `not_found`, `rate_limited`, `unavailable`…). */
    readonly code: string,
    message: string,
    /**
     * The envelope's `error.details`: for a 400, each field at fault and what is wrong with it; for a
     * 402 `payment_required`, `unpaid_deliveries`, `limit` and `what_to_do`.
     */
    readonly details: Record<string, unknown>,
    /** The `X-Request-Id` of the answer, or the envelope's `details.request_id`; null when neither came. */
    readonly requestId: string | null,
    /** Seconds the service asked to wait before trying again (`Retry-After`), or null. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }

  /** Reads the error out of a non-2xx answer. A body that is not the envelope (a proxy's HTML page) still gives a typed error. */
  static async fromResponse(response: Response): Promise<PartnerApiError> {
    const text = await response.text().catch(() => '');
    let envelope: Partial<ErrorEnvelope> | null = null;
    try {
      envelope = JSON.parse(text) as Partial<ErrorEnvelope>;
    } catch {
      // Not JSON: the code and message below say so.
    }
    const error = envelope?.error;
    const details = error?.details && typeof error.details === 'object' ? error.details : {};
    const requestId = response.headers.get('X-Request-Id') ?? (typeof details.request_id === 'string' ? details.request_id : null);
    return new PartnerApiError(
      response.status,
      typeof error?.code === 'string' ? error.code : 'unexpected_response',
      typeof error?.message === 'string' ? error.message : `HTTP ${response.status} without the error envelope`,
      details,
      requestId,
      retryAfterSeconds(response.headers.get('Retry-After')),
    );
  }
}

/** `Retry-After` is seconds or an HTTP date; either becomes seconds from now. */
function retryAfterSeconds(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
