import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { httpRequestDuration, httpRequests } from '../metric-registry';
import { buildOpenApiDocument } from '../openapi/document';

type RouteMatcher = { template: string; pattern: RegExp };

/** The documented API paths as patterns, literal ones first (`/rider/deliveries/current` before `{id}`). */
function documentedRoutes(): RouteMatcher[] {
  const document = buildOpenApiDocument() as { servers: { url: string }[]; paths: Record<string, unknown> };
  const base = document.servers[0]?.url ?? '';
  return Object.keys(document.paths)
    .map((path) => {
      const template = `${base}${path}`;
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('');
      return { template, pattern: new RegExp(`^${source}/?$`), params: (path.match(/\{/g) ?? []).length };
    })
    .sort((a, b) => a.params - b.params)
    .map(({ template, pattern }) => ({ template, pattern }));
}

/**
 * Counts and times every request by method, route template and status. The template is the
 * documented API path whichever middleware answered (a 401 from the key check included), else
 * the Express route that served it; unknown paths share one label so ids never become labels.
 */
export function httpMetrics() {
  const routes = documentedRoutes();
  const templateOf = (req: Request, res: Response): string => {
    // The request validator has already matched most requests to their documented route.
    const matched = (req as { openapi?: { openApiRoute?: unknown } }).openapi?.openApiRoute;
    if (typeof matched === 'string') return matched;
    const path = req.originalUrl.split('?')[0] ?? '';
    const documented = routes.find((route) => route.pattern.test(path));
    if (documented) return documented.template;
    const route = req.route as { path?: unknown } | undefined;
    if (typeof route?.path === 'string') return `${req.baseUrl}${route.path}`;
    if (res.statusCode === 404) return 'unmatched';
    // Served by mounted middleware (static files, say): the mount point stands for all of it.
    return req.baseUrl ? `${req.baseUrl}/*` : 'other';
  };

  return (req: Request, res: Response, next: NextFunction) => {
    countWhenAnswered(req, res, () => templateOf(req, res));
    next();
  };
}

/** Counts and times one request once its answer is sent, under the route `routeOf` then names. */
export function countWhenAnswered(req: IncomingMessage, res: ServerResponse, routeOf: () => string): void {
  const stop = httpRequestDuration.startTimer();
  res.on('finish', () => {
    const labels = { method: req.method ?? '', route: routeOf(), status: String(res.statusCode) };
    httpRequests.inc(labels);
    stop(labels);
  });
}
