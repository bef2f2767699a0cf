import express, { type RequestHandler } from 'express';
import typeis from 'type-is';
import { JSON_BODY_LIMIT_BYTES } from './body-limit';
import { requireUtf8 } from './utf8-body';

/** The media types read as JSON: `application/json` and `application/<anything>+json`. */
const JSON_TYPES = ['application/json', 'application/*+json'];
const SENDS_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The JSON body parser. A POST, PUT or PATCH that says it sends JSON but frames no body at all (neither
 * Content-Length nor Transfer-Encoding, as `curl -X POST -H 'Content-Type: application/json'`
 * sends) has an empty body, as HTTP reads it: it is taken like `Content-Length: 0`, as `{}`, so the
 * answer names each missing field rather than a missing body. Its media type is matched as the
 * parser matches it (`type-is`), which skips a request that frames no body.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({ limit: JSON_BODY_LIMIT_BYTES, strict: true, type: JSON_TYPES, verify: requireUtf8 });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      const contentType = req.headers['content-type'];
      if (error === undefined && req.body === undefined && SENDS_BODY.has(req.method) && contentType && typeis.is(contentType, JSON_TYPES)) {
        req.body = {};
      }
      next(error);
    });
}
