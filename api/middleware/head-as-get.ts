import type { NextFunction, Request, Response } from 'express';

/**
 * HEAD is GET without the body (RFC 9110), but the request validator knows only the documented
 * methods and would answer 405. Node already knows this response carries no body, so the request
 * is served as the GET it stands for and only its headers go out.
 */
export function headAsGet(req: Request, _res: Response, next: NextFunction): void {
  if (req.method === 'HEAD') req.method = 'GET';
  next();
}
