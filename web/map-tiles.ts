/**
 * The origin a tile URL template loads images from, as a CSP source: `{s}` subdomains become
 * a wildcard. Null when the template is not an absolute http(s) URL. Shared by every page with a
 * map (tracking, the rider app, the dashboard) and the API that sets their CSP.
 */
export function tileSource(template: string | undefined): string | null {
  if (!template) return null;
  try {
    const url = new URL(template.replace(/\{s\}/g, 'tile-subdomain'));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${url.protocol}//${url.host.replace(/^tile-subdomain\./, '*.')}`;
  } catch {
    return null;
  }
}
