import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { Compile } from 'typebox/compile';
import { logContext, type Logger } from '../../config/logger';
import { envelope, type ApiError } from '../api-error';
import { JSON_BODY_LIMIT_BYTES } from '../middleware/body-limit';
import { apiErrorFor } from '../middleware/error-handler';
import { countWhenAnswered } from '../middleware/http-metrics';
import { spend } from '../middleware/rate-limit';
import { startRequest } from '../middleware/request-context';
import type { RiderTokens } from '../middleware/rider-auth';
import { requireUtf8 } from '../middleware/utf8-body';
import { LocationRequest } from '../openapi/schemas';
import type { PositionPings } from './position-pings';

/** What the fast path shares with the app: one budget, one token cache and one batch of pings for both. */
export interface LocationFastPathParts {
  /** The API's mount (`/api/v1`) and the route under it: the one path served, exactly as written. */
  prefix: string;
  route: string;
  /** Its `trust proxy` says who the client is. */
  app: Express;
  logger: Logger;
  /** The app's helmet: the same headers on every answer. */
  securityHeaders: RequestHandler;
  riderIpLimit: RequestHandler;
  tokens: RiderTokens;
  riderLimit: RequestHandler;
  pings: PositionPings;
}

/** JSON in UTF-8, said plainly, as the rider app sends it; any other way of saying so goes to Express. */
const PLAIN_JSON = /^application\/json(\s*;\s*charset=utf-8)?$/i;

/** Express's own `req.ip`: the client as the app's `trust proxy` reads X-Forwarded-For (with proxy-addr). */
const expressIp = Object.getOwnPropertyDescriptor(express.request, 'ip')?.get as (this: unknown) => string;

/**
 * `POST /api/v1/rider/location`, each rider app's position every 5 s, served ahead of Express:
 * the whole stack cost several times the ping itself (docs/decisions/0176-lean-ping.md). It keeps
 * every check and answer of the Express route, through the same limiters, token cache, schema,
 * error envelope and batch of pings; a request it does not take (another method or path, a query,
 * a body not framed by its length, compressed, too large or not plain JSON) goes to Express.
 * Returns whether it took the request.
 */
export function locationFastPath(parts: LocationFastPathParts): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { prefix, route, app, logger, riderIpLimit, tokens, riderLimit, pings } = parts;
  const path = `${prefix}${route}`;
  const securityHeaders = headersSetBy(parts.securityHeaders);
  const location = Compile(LocationRequest);

  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const locals: Record<string, unknown> = { requestId };
    const client = Object.assign(req, { ip: expressIp.call({ app, headers: req.headers, socket: req.socket }) });
    const answer = Object.assign(res, { locals });
    try {
      // In the order of the rider routes (api/app.ts): the budget per IP, the token, the budget per token, then the body.
      await spend(riderIpLimit, client, answer);
      const rider = await tokens.check(req);
      locals.rider = rider;
      await spend(riderLimit, client, answer);
      const body = parseJson(req, res, await readBody(req));
      if (!location.Check(body)) throw Object.assign(new Error('The request is not valid'), { status: 400, errors: validatorErrors(location.Errors(body)) });
      await pings.record(rider.riderId, { lat: body.lat, lng: body.lng });
      res.statusCode = 204;
      res.end();
    } catch (error) {
      sendError(res, apiErrorFor(error, logger, { method: 'POST', path, requestId }));
    }
  }

  return (req, res) => {
    if (!takes(req, path)) return false;
    // As requestContext, httpMetrics and helmet do for every request Express serves.
    // The access line names the path as Express does: a stored ping by its route under the API's
    // mount, a refusal (the error handler's, outside the mount) by the whole path.
    const requestId = startRequest(logger, req, res, () => ({ path: res.statusCode === 204 ? route : path }));
    countWhenAnswered(req, res, () => path);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    void logContext.run({ requestId }, () => serve(req, res, requestId));
    return true;
  };
}

/** A position ping as rider apps send it; anything else is Express's to answer. */
function takes(req: IncomingMessage, path: string): boolean {
  const { headers } = req;
  return (
    req.method === 'POST' &&
    req.url === path &&
    // Without a Host, HTTP/1.1 is refused (hostRequired).
    (headers.host !== undefined || req.httpVersion !== '1.1') &&
    headers['transfer-encoding'] === undefined &&
    headers['content-encoding'] === undefined &&
    headers['content-length'] !== undefined &&
    Number(headers['content-length']) <= JSON_BODY_LIMIT_BYTES &&
    PLAIN_JSON.test(headers['content-type'] ?? '')
  );
}

/** The headers `middleware` sets on every answer, in order: helmet's read nothing of the request. */
function headersSetBy(middleware: RequestHandler): [string, string][] {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  void middleware({} as Request, response as unknown as Response, () => undefined);
  return [...headers];
}

/** The body, as long as its Content-Length says (Node's parser holds it to that). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    // A client gone before its body arrived: what the body parser answers, to nobody.
    req.once('close', () => {
      if (!req.complete) reject(Object.assign(new Error('request aborted'), { status: 400, expose: true }));
    });
  });
}

/**
 * The body as express.json reads it (api/middleware/json-body.ts): UTF-8, a byte-order mark
 * dropped, an empty body `{}`, and only an object or an array taken; its errors are the parser's.
 */
function parseJson(req: IncomingMessage, res: ServerResponse, body: Buffer): unknown {
  requireUtf8(req, res, body, 'utf-8');
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const refused = () => Object.assign(new SyntaxError('The body is not valid JSON'), { status: 400, type: 'entity.parse.failed', body: text });
  if (!/^[\x20\x09\x0a\x0d]*[{[]/.test(text)) throw refused();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw refused();
  }
}

/** Schema errors as the request validator reports them: `/body/lat`, one missing property each. */
function validatorErrors(errors: Iterable<{ keyword: string; instancePath: string; params: unknown; message: string }>) {
  return [...errors].flatMap(({ keyword, instancePath, params, message }) =>
    keyword === 'required'
      ? (params as { requiredProperties: string[] }).requiredProperties.map((name) => ({
          path: `/body${instancePath}/${name}`,
          message: `must have required property '${name}'`,
        }))
      : [{ path: `/body${instancePath}`, message }],
  );
}

/** The error envelope, as the error handler's `res.json` sends it. */
function sendError(res: ServerResponse, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const body = JSON.stringify(envelope(error.code, error.message, error.details));
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
