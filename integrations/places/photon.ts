/**
 * Place search backed by a Photon server (komoot's geocoder over OpenStreetMap data).
 *
 * Why place ids carry the place itself: Photon searches but has no lookup by id, and
 * searching again by OSM id or by name is not reliable (OSM ids change, a repeated text
 * search can rank another place first). So a suggestion's id is
 * `photon:<payload>.<tag>`: payload is base64url of the compact JSON
 * `{"n": address, "a": lat, "o": lng}`, tag a truncated HMAC-SHA256 of the payload.
 * `resolve` decodes it with no second network call, so a booking still resolves while
 * Photon is down. The tag turns a truncated or hand-edited id into null rather than a
 * different place; with `signingKey` set, ids cannot be forged without the key either.
 * Coordinates outside Ghana's box (the only area searched) are refused too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import axios, { type AxiosInstance } from 'axios';
import type { PlaceSuggestion, PlacesProvider, ResolvedPlace } from './provider';

export const PHOTON_ID_PREFIX = 'photon:';

/** Ghana's bounding box; Photon's `bbox` takes minLon,minLat,maxLon,maxLat. */
const GHANA = { minLng: -3.26, minLat: 4.74, maxLng: 1.2, maxLat: 11.17 };
const GHANA_BBOX_PARAM = '-3.26,4.74,1.20,11.17';
/** Ranking bias towards central Accra, where most deliveries are. */
const BIAS = { lat: '5.6037', lon: '-0.1870' };

const DEFAULT_TIMEOUT_MS = 3_000;
/** Photon caps results itself; this keeps a bad caller from asking for thousands. */
const MAX_LIMIT = 50;
const MAX_RESPONSE_BYTES = 2_000_000;
const MAX_ID_LENGTH = 2_048;
const MAX_ADDRESS_LENGTH = 500;
/** 96 bits: ample to catch edits, short enough to keep ids compact. */
const TAG_BYTES = 12;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface PhotonPlacesOptions {
  baseUrl: string;
  timeoutMs?: number;
  http?: AxiosInstance;
  /** Key for the id tag; without one the tag only catches corruption, not forgery. */
  signingKey?: string;
}

interface Place {
  title: string;
  subtitle: string;
  address: string;
  lat: number;
  lng: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function insideGhana(lat: number, lng: number): boolean {
  return (
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    lat >= GHANA.minLat &&
    lat <= GHANA.maxLat &&
    lng >= GHANA.minLng &&
    lng <= GHANA.maxLng
  );
}

/** Non-blank parts, each once, and none repeating an already shown part (e.g. the title). */
function distinct(parts: string[], exclude: string[] = []): string[] {
  const seen = new Set(exclude.map((p) => p.toLowerCase()));
  const kept: string[] = [];
  for (const part of parts) {
    const key = part.toLowerCase();
    if (part === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(part);
  }
  return kept;
}

/** Maps one GeoJSON feature; null for features a rider could not be sent to. */
function toPlace(feature: unknown): Place | null {
  if (!isRecord(feature) || !isRecord(feature.properties) || !isRecord(feature.geometry)) return null;
  const coordinates = feature.geometry.coordinates;
  if (!Array.isArray(coordinates) || coordinates.length < 2) return null;
  const [lng, lat] = coordinates as unknown[];
  if (typeof lat !== 'number' || typeof lng !== 'number' || !insideGhana(lat, lng)) return null;

  const p = feature.properties;
  const streetLine = [text(p.housenumber), text(p.street)].filter(Boolean).join(' ');
  const title = text(p.name) || streetLine;
  if (title === '') return null;
  const context = distinct([text(p.district), text(p.city) || text(p.county), text(p.state)], [title]);
  const subtitle = (context.length > 0 ? context : distinct([text(p.country)], [title])).join(', ');
  const address = distinct([title, ...(text(p.name) ? [streetLine] : []), ...context]).join(', ');
  return { title, subtitle, address: address.slice(0, MAX_ADDRESS_LENGTH), lat, lng };
}

function describe(error: unknown, timeoutMs: number): string {
  if (axios.isAxiosError(error)) {
    if (error.response) return `HTTP ${error.response.status}`;
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT' || error.code === 'ERR_CANCELED') {
      return `no answer within ${timeoutMs} ms`;
    }
    return error.code ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export class PhotonPlaces implements PlacesProvider {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly http: AxiosInstance;
  private readonly signingKey: string;

  constructor(options: PhotonPlacesOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.http = options.http ?? axios.create();
    this.signingKey = options.signingKey ?? '';
  }

  async autocomplete(query: string, limit: number): Promise<PlaceSuggestion[]> {
    const q = query.trim();
    const max = Math.min(Math.floor(limit), MAX_LIMIT);
    if (q === '' || !(max > 0)) return [];

    let body: unknown;
    try {
      const response = await this.http.get<unknown>(`${this.baseUrl}/api`, {
        params: { q, limit: max, lat: BIAS.lat, lon: BIAS.lon, bbox: GHANA_BBOX_PARAM },
        headers: { Accept: 'application/json' },
        responseType: 'json',
        // `timeout` alone is an idle timer; the signal also bounds a slowly dripping body.
        timeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
        maxContentLength: MAX_RESPONSE_BYTES,
      });
      body = response.data;
    } catch (error) {
      throw new Error(`Photon search failed: ${describe(error, this.timeoutMs)}`, { cause: error });
    }
    if (!isRecord(body) || !Array.isArray(body.features)) {
      throw new Error('Photon search failed: the answer is not a GeoJSON FeatureCollection');
    }

    const suggestions: PlaceSuggestion[] = [];
    const seen = new Set<string>();
    for (const feature of body.features) {
      const place = toPlace(feature);
      if (!place) continue;
      const placeId = this.encodeId(place);
      // The same place often comes back as both an OSM node and a way.
      if (seen.has(placeId)) continue;
      seen.add(placeId);
      suggestions.push({ place_id: placeId, title: place.title, subtitle: place.subtitle });
      if (suggestions.length >= max) break;
    }
    return suggestions;
  }

  async resolve(placeId: string): Promise<ResolvedPlace | null> {
    return this.decodeId(placeId);
  }

  private tag(payload: string): string {
    return createHmac('sha256', this.signingKey).update(payload).digest().subarray(0, TAG_BYTES).toString('base64url');
  }

  private encodeId(place: Place): string {
    const json = JSON.stringify({ n: place.address, a: round6(place.lat), o: round6(place.lng) });
    const payload = Buffer.from(json, 'utf8').toString('base64url');
    return `${PHOTON_ID_PREFIX}${payload}.${this.tag(payload)}`;
  }

  private decodeId(placeId: string): ResolvedPlace | null {
    if (typeof placeId !== 'string' || placeId.length > MAX_ID_LENGTH || !placeId.startsWith(PHOTON_ID_PREFIX)) {
      return null;
    }
    const [payload, tag, ...rest] = placeId.slice(PHOTON_ID_PREFIX.length).split('.');
    if (!payload || !tag || rest.length > 0 || !BASE64URL.test(payload) || !BASE64URL.test(tag)) return null;

    const expected = Buffer.from(this.tag(payload), 'base64url');
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;

    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!isRecord(decoded)) return null;
    const { n: address, a: lat, o: lng } = decoded;
    if (typeof address !== 'string' || address.trim() === '' || address.length > MAX_ADDRESS_LENGTH) return null;
    if (typeof lat !== 'number' || typeof lng !== 'number' || !insideGhana(lat, lng)) return null;
    return { address, lat, lng };
  }
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
