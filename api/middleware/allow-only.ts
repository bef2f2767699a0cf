import type { RequestHandler } from 'express';
import { ApiError } from '../api-error';

/**
 * Lets through only the methods a known path serves (GET brings HEAD with it); any other is
 * 405 `method_not_allowed` with `Allow`, as on the API's own routes (DESIGN section 8), rather
 * than the 404 of a path that does not exist.
 */
export function allowOnly(...methods: string[]): RequestHandler {
  const served = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  return (req, _res, next) => {
    if (served.includes(req.method)) next();
    else next(ApiError.methodNotAllowed(methods.join(', ')));
  };
}
