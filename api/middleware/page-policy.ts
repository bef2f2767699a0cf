/**
 * The content security policy every page the service serves starts from (the dashboard, the
 * hosted tracking page, the rider app): this origin only, no inline script or style, no plugins,
 * forms and framing refused, images also as data: URLs and, for maps, from MAP_TILE_URL's origin
 * (`tiles`). A page adds or loosens only what it needs, in `overrides`.
 */
export function pageDirectives(tiles: string | null, overrides: Record<string, string[]> = {}): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', ...(tiles ? [tiles] : [])],
    'connect-src': ["'self'"],
    'font-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
    ...overrides,
  };
}
