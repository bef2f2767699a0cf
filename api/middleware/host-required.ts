import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, envelope } from '../api-error';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 kB, a broken
 * request line) get the error envelope too, instead of Node's bare status line.
 */
export function answerMalformedRequests(server: Server): void {
  // Node answers an HTTP/1.1 request without a Host header with a bare 400 and no body of its
  // own; with this off, the app answers it (`hostRequired`), in the envelope.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const message =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are larger than the server accepts' : 'The request is not valid HTTP';
    const body = JSON.stringify(envelope('bad_request', message));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused with
 * 400 in the envelope, as Node would have refused it, but in words a client can act on.
 */
export function hostRequired(req: Request, _res: Response, next: NextFunction): void {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
    next(ApiError.badRequest('Send a Host header: HTTP/1.1 requires one'));
    return;
  }
  next();
}
