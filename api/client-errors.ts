import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { envelope } from './errors';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 kB, a broken
 * request line) get the error envelope too, instead of Node's bare status line.
 */
export function answerMalformedRequests(server: Server): void {
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
