import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import express from 'express';
import winston from 'winston';
import { createLogger } from '../../config/logger';
import { requestContext } from '../../api/middleware/request-context';

/** Serves one request through `requestContext` with a logger at `level`; returns what was logged. */
async function serveOnce(level: string, requestId: string): Promise<{ header: string | null; lines: string[] }> {
  const logger = createLogger({ level, json: true, service: 'api' });
  logger.clear();
  const written = new PassThrough();
  const lines: string[] = [];
  written.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  logger.add(new winston.transports.Stream({ stream: written }));

  const app = express();
  app.use(requestContext(logger));
  app.get('/thing', (_req, res) => {
    logger.info('inside the handler');
    res.json({ ok: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/thing`, { headers: { 'x-request-id': requestId } });
    await res.json();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { header: res.headers.get('x-request-id'), lines };
  } finally {
    server.close();
  }
}

describe('requestContext', () => {
  it('logs each request with its id at the http level, and every line written while serving it carries the id', async () => {
    const { header, lines } = await serveOnce('http', 'req-abc.1');
    expect(header).toBe('req-abc.1');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(expect.objectContaining({ message: 'inside the handler', requestId: 'req-abc.1' }));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'http', message: 'request', requestId: 'req-abc.1', method: 'GET', path: '/thing', status: 200 }),
    );
  });

  it('builds no request line when the level is above http, and still carries the id', async () => {
    const { header, lines } = await serveOnce('info', 'req-def.2');
    expect(header).toBe('req-def.2');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([expect.objectContaining({ message: 'inside the handler', requestId: 'req-def.2' })]);
  });
});
