import path from 'node:path';
import { rememberOpenApiRouteMatchers } from '../../api/openapi/route-matchers';

type Compile = (route: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: { name: string }[] };

/** The path-to-regexp instance express-openapi-validator loads. */
const validatorsPathToRegexp = require(
  require.resolve('path-to-regexp', { paths: [path.dirname(require.resolve('express-openapi-validator'))] }),
) as { pathToRegexp: Compile };

describe('OpenAPI route matchers', () => {
  beforeAll(() => rememberOpenApiRouteMatchers());

  it('are compiled once per route and flags for the validator, and still match', () => {
    const route = '/api/v1/partner/deliveries/:id';
    const first = validatorsPathToRegexp.pathToRegexp(route, { sensitive: false, strict: false });
    expect(validatorsPathToRegexp.pathToRegexp(route, { sensitive: false, strict: false })).toBe(first);
    expect(validatorsPathToRegexp.pathToRegexp(route, { sensitive: false, strict: true })).not.toBe(first);
    expect(first.keys.map((k) => k.name)).toEqual(['id']);
    expect(first.regexp.exec('/api/v1/partner/deliveries/6f1c')?.[1]).toBe('6f1c');
    expect(first.regexp.exec('/api/v1/partner/deliveries')).toBeNull();
  });

  it('leave other callers compiling as before', () => {
    const once = validatorsPathToRegexp.pathToRegexp('/track/:id', { end: false });
    expect(validatorsPathToRegexp.pathToRegexp('/track/:id', { end: false })).not.toBe(once);
    expect(once.regexp.test('/track/abc/public')).toBe(true);
    // The validator's two flags plus another option are not the validator's call.
    const withEnd = { sensitive: false, strict: false, end: false };
    expect(validatorsPathToRegexp.pathToRegexp('/track/:id', withEnd)).not.toBe(validatorsPathToRegexp.pathToRegexp('/track/:id', withEnd));
  });
});
