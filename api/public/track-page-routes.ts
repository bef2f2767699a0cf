import { readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import helmet from 'helmet';
import { DELIVERY_STATUS_NAMES } from '../../domain/lifecycle';
import { tileSource } from '../../web/map-tiles';
import { pageDirectives } from '../middleware/page-policy';
import type { AppDeps } from '../app-deps';
import { allowOnly } from '../middleware/allow-only';

const WEB_DIR = path.resolve(__dirname, '../../web');
const LEAFLET_DIR = path.dirname(require.resolve('leaflet/dist/leaflet.js'));

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * GET /track?id=<delivery id>: the recipient's page. It is static; the script in it reads the
 * id from the address and polls the public view. Everything it loads comes from this server
 * (Leaflet from node_modules, no tile layer), unless MAP_TILE_URL names a tile server.
 */
export function createTrackPageRouter({ settings }: AppDeps): Router {
  const router = Router();
  const tiles = tileSource(settings.mapTileUrl);
  const html = readFileSync(path.join(WEB_DIR, 'track.html'), 'utf8')
    .replace('{{TILE_URL}}', escapeAttribute(tiles ? (settings.mapTileUrl as string) : ''))
    .replace('{{STATUS_NAMES}}', escapeAttribute(JSON.stringify(DELIVERY_STATUS_NAMES)));

  // Framed by this origin's own pages only, as before; every other page refuses framing.
  const policy = helmet.contentSecurityPolicy({ useDefaults: false, directives: pageDirectives(tiles, { 'frame-ancestors': ["'self'"] }) });
  // The address carries the delivery id, which is the credential: keep it out of logs elsewhere.
  const privateHeaders: express.RequestHandler = (_req, res, next) => {
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    next();
  };

  for (const page of ['/track', '/track/assets/track.js', '/track/assets/track.css']) router.all(page, allowOnly('GET'));
  router.get('/track', policy, privateHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  });
  router.get('/track/assets/track.js', policy, (_req, res) => {
    res.sendFile(path.join(WEB_DIR, 'track.js'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  router.get('/track/assets/track.css', policy, (_req, res) => {
    res.sendFile(path.join(WEB_DIR, 'track.css'), { headers: { 'Cache-Control': 'no-cache' } });
  });
  router.use('/track/assets/leaflet', policy, express.static(LEAFLET_DIR, { maxAge: '1d', index: false, fallthrough: true }));
  return router;
}
