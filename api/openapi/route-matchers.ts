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
  const compiled = new Map<string, ReturnType<PathToRegexp>>();
  pathToRegexpModule.pathToRegexp = (route, options) => {
    const keys = options ? Object.keys(options) : [];
    const validatorShape = typeof route === 'string' && keys.length === 2 && keys[0] === 'sensitive' && keys[1] === 'strict';
    if (!validatorShape) return compile(route, options);
    const key = `${options?.sensitive ? 's' : '-'}${options?.strict ? 's' : '-'}${route}`;
    let matcher = compiled.get(key);
    if (!matcher) {
      matcher = compile(route, options);
      compiled.set(key, matcher);
    }
    return matcher;
  };
}
