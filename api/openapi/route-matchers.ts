import path from 'node:path';

type PathToRegexp = (route: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: { name: string }[] };

let installed = false;

/**
 * express-openapi-validator 5.6 compiles a `path-to-regexp` matcher for every documented route on
 * every request, to find the one the request is for (upstream pull request
 * cdimascio/express-openapi-validator#1217 caches them): 5–10% of the CPU of a small request,
 * growing with the number of routes. The compiled matcher depends only on the route and the two
 * flags the validator passes, so it is remembered here, for the module instance the validator
 * loads. Other callers (Express's router compiles its routes once) pass other options and are
 * served by the original function.
 */
export function rememberOpenApiRouteMatchers(): void {
  if (installed) return;
  installed = true;
  const validatorDir = path.dirname(require.resolve('express-openapi-validator'));
  const pathToRegexpModule = require(require.resolve('path-to-regexp', { paths: [validatorDir] })) as { pathToRegexp: PathToRegexp };
  const compile = pathToRegexpModule.pathToRegexp;
  if (typeof compile !== 'function') throw new Error('path-to-regexp no longer exports pathToRegexp; remove api/openapi/route-matchers.ts');
  // One table per combination of the two flags, keyed by the route string the validator keeps,
  // so a lookup builds no key: it runs once per documented route on every request.
  const compiled = [0, 1, 2, 3].map(() => new Map<string, ReturnType<PathToRegexp>>());
  pathToRegexpModule.pathToRegexp = (route, options) => {
    if (typeof route !== 'string' || !isValidatorShape(options)) return compile(route, options);
    const table = compiled[(options.sensitive ? 2 : 0) + (options.strict ? 1 : 0)]!;
    let matcher = table.get(route);
    if (!matcher) {
      matcher = compile(route, options);
      table.set(route, matcher);
    }
    return matcher;
  };
}

/** The validator passes exactly `{ sensitive, strict }`; Express's router never passes `strict`. */
function isValidatorShape(options: Record<string, unknown> | undefined): options is { sensitive: unknown; strict: unknown } {
  if (options === undefined || !('strict' in options) || !('sensitive' in options)) return false;
  let keys = 0;
  for (const key in options) if (Object.hasOwn(options, key)) keys += 1;
  return keys === 2;
}
