import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LatLng } from '../domain/geo';
import type { NamedArea, ServiceArea } from '../domain/service-area';

/**
 * The areas served unless SERVICE_AREA_FILE names others: Greater Accra and the Kumasi
 * metropolitan area. The build copies it beside the compiled code, so the image carries it too.
 */
export const DEFAULT_SERVICE_AREA_FILE = path.join(__dirname, 'service-area.geojson');

/** What is wrong with a service area file, said at the place in it where it is wrong. */
class AreaFileProblem extends Error {}

function fail(where: string, problem: string): never {
  throw new AreaFileProblem(`${where}: ${problem}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A GeoJSON position, [longitude, latitude] (an altitude after them is allowed and ignored). */
function position(value: unknown, where: string): LatLng {
  const [lng, lat] = Array.isArray(value) ? (value as unknown[]) : [];
  if (typeof lng !== 'number' || typeof lat !== 'number' || !Number.isFinite(lng) || !Number.isFinite(lat)) {
    fail(where, 'expected a position [longitude, latitude]');
  }
  if (lng < -180 || lng > 180) fail(where, `longitude ${lng} is not between -180 and 180`);
  if (lat < -90 || lat > 90) fail(where, `latitude ${lat} is not between -90 and 90 (positions are [longitude, latitude])`);
  return { lat, lng };
}

/** A closed ring of at least four positions, the last repeating the first (RFC 7946, 3.1.6). */
function ring(value: unknown, where: string): LatLng[] {
  if (!Array.isArray(value) || value.length < 4) fail(where, 'expected a ring of at least 4 positions');
  const points = value.map((p, i) => position(p, `${where}[${i}]`));
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (first.lat !== last.lat || first.lng !== last.lng) fail(where, 'the ring is not closed: its last position must repeat its first');
  return points;
}

function area(value: unknown, where: string): NamedArea {
  if (!isObject(value) || value.type !== 'Feature') fail(where, 'expected a Feature');
  const name = isObject(value.properties) ? value.properties.name : undefined;
  if (typeof name !== 'string' || !/\S/.test(name)) fail(`${where}.properties.name`, 'expected the name of the area');
  const geometry = value.geometry;
  if (!isObject(geometry) || geometry.type !== 'Polygon') {
    fail(`${where}.geometry`, 'expected a Polygon (an area in several parts is one Feature per part, under the same name)');
  }
  const rings = geometry.coordinates;
  if (!Array.isArray(rings) || rings.length === 0) fail(`${where}.geometry.coordinates`, 'expected at least one ring');
  return { name, rings: rings.map((r, i) => ring(r, `${where}.geometry.coordinates[${i}]`)) };
}

/** The service area in a parsed GeoJSON document: a FeatureCollection of named Polygon features. */
export function parseServiceArea(document: unknown): ServiceArea {
  if (!isObject(document) || document.type !== 'FeatureCollection') fail('the file', 'expected a GeoJSON FeatureCollection');
  const features = document.features;
  if (!Array.isArray(features) || features.length === 0) fail('features', 'expected at least one Feature');
  return features.map((feature, i) => area(feature, `features[${i}]`));
}

/**
 * Reads and checks a service area file, once at start. Throws an Error whose message names the
 * file and what is wrong in it, for the setting's refusal.
 */
export function readServiceArea(file: string): ServiceArea {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return parseServiceArea(JSON.parse(text));
  } catch (error) {
    if (error instanceof AreaFileProblem) throw new Error(`${file}, ${error.message}`);
    throw new Error(`${file} is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}
