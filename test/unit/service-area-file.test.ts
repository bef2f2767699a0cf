import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ourProgram } from '../helpers/child-process';
import { ACCRA } from '../helpers/bookings';
import { ACCRA as BENCH_PLACES, ACCRA_BOUNDS } from '../../bench/lib/client.mjs';
import bundledPlaces from '../../integrations/places/ghana-places.json';
import { loadSettings, SettingsError } from '../../config/settings';
import { DEFAULT_SERVICE_AREA_FILE, readServiceArea } from '../../config/service-area-file';
import { serviceAreaHolds } from '../../domain/service-area';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };
const shipped = readServiceArea(DEFAULT_SERVICE_AREA_FILE);

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'service-area-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A file holding `content` (JSON unless a string), for SERVICE_AREA_FILE. */
function areaFile(name: string, content: unknown): string {
  const file = path.join(folder, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function refusal(file: string): string {
  try {
    loadSettings({ ...base, SERVICE_AREA_FILE: file });
  } catch (error) {
    if (error instanceof SettingsError) return error.message;
    throw error;
  }
  throw new Error('expected SERVICE_AREA_FILE to be refused');
}

const square = [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]];
const feature = (geometry: unknown, properties: unknown = { name: 'Square' }) => ({ type: 'Feature', properties, geometry });
const collection = (...features: unknown[]) => ({ type: 'FeatureCollection', features });

describe('the shipped service area', () => {
  it('is read by default: Greater Accra and Kumasi, and an 80 km route limit', () => {
    const settings = loadSettings(base);
    expect(settings.serviceAreaFile).toBe(DEFAULT_SERVICE_AREA_FILE);
    expect(settings.serviceArea.map((area) => area.name)).toEqual(['Greater Accra', 'Kumasi']);
    expect(settings.maxRouteKm).toBe(80);
  });

  it('holds every bundled place of Accra, Tema and Kumasi, and none of Tamale, Cape Coast or Sekondi-Takoradi', () => {
    const served = new Set(['Accra', 'Tema', 'Kumasi']);
    const places = bundledPlaces as { name: string; city: string; lat: number; lng: number }[];
    const misplaced = places.filter((place) => serviceAreaHolds(shipped, place) !== served.has(place.city));
    expect(misplaced.map((place) => `${place.name}, ${place.city}`)).toEqual([]);
    expect(places.filter((place) => !served.has(place.city)).length).toBeGreaterThan(40);
  });

  it('holds the places the tests, the demo and the bench book at, and the corners of the bench’s city', () => {
    const { south, north, west, east } = ACCRA_BOUNDS;
    const corners = [
      { lat: south, lng: west },
      { lat: south, lng: east },
      { lat: north, lng: west },
      { lat: north, lng: east },
    ];
    const quietSpots = [
      { lat: 5.8, lng: 0.6 }, // Ada (test/integration/delivery-journeys.test.ts)
      { lat: 5.86, lng: 0.35 }, // Sege (test/integration/delivery-journeys.test.ts)
      { lat: 5.88, lng: -0.1 }, // Dodowa (test/workflow/record-histories.ts)
    ];
    for (const point of [...Object.values(ACCRA), ...Object.values(BENCH_PLACES), ...corners, ...quietSpots]) {
      expect([point, serviceAreaHolds(shipped, point)]).toEqual([point, true]);
    }
  });

  it('does not hold a latitude typed ten times too large, nor the sea far off the coast, nor Lomé or Lagos', () => {
    for (const point of [
      { lat: 56.052, lng: -0.1668 },
      { lat: 5.6052, lng: -1.668 },
      { lat: 5.2, lng: -0.2 },
      { lat: 6.1319, lng: 1.2228 },
      { lat: 6.4541, lng: 3.3947 },
      { lat: 0, lng: 0 },
    ]) {
      expect([point, serviceAreaHolds(shipped, point)]).toEqual([point, false]);
    }
  });
});

describe('SERVICE_AREA_FILE and MAX_ROUTE_KM', () => {
  it('reads the areas of another file, and another route limit', () => {
    const settings = loadSettings({ ...base, SERVICE_AREA_FILE: areaFile('square.geojson', collection(feature({ type: 'Polygon', coordinates: square }))), MAX_ROUTE_KM: '25' });
    expect(settings.serviceArea).toEqual([{ name: 'Square', rings: [square[0]!.map(([lng, lat]) => ({ lat, lng }))] }]);
    expect(settings.maxRouteKm).toBe(25);
  });

  it('refuses a file that is missing, or not JSON', () => {
    expect(refusal(path.join(folder, 'missing.geojson'))).toMatch(/^SERVICE_AREA_FILE: cannot read .*missing\.geojson \(ENOENT\)$/);
    expect(refusal(areaFile('broken.geojson', '{"type": "FeatureCollection",'))).toMatch(/^SERVICE_AREA_FILE: .*broken\.geojson is not JSON/);
  });

  it('refuses a file that is not a FeatureCollection of named, closed polygons, saying where', () => {
    const cases: [string, unknown, RegExp][] = [
      ['point.geojson', { type: 'Point', coordinates: [0, 0] }, /the file: expected a GeoJSON FeatureCollection$/],
      ['empty.geojson', collection(), /features: expected at least one Feature$/],
      ['nameless.geojson', collection(feature({ type: 'Polygon', coordinates: square }, {})), /features\[0\]\.properties\.name: expected the name of the area$/],
      ['multi.geojson', collection(feature({ type: 'MultiPolygon', coordinates: [square] })), /features\[0\]\.geometry: expected a Polygon/],
      ['open.geojson', collection(feature({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] })), /features\[0\]\.geometry\.coordinates\[0\]: the ring is not closed/],
      ['short.geojson', collection(feature({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] })), /coordinates\[0\]: expected a ring of at least 4 positions$/],
      ['latitude.geojson', collection(feature({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 95], [0, 0]]] })), /coordinates\[0\]\[2\]: latitude 95 is not between -90 and 90/],
      ['text.geojson', collection(feature({ type: 'Polygon', coordinates: [[[0, 0], ['1', 0], [1, 1], [0, 0]]] })), /coordinates\[0\]\[1\]: expected a position \[longitude, latitude\]$/],
    ];
    for (const [name, content, problem] of cases) {
      const message = refusal(areaFile(name, content));
      expect(message).toMatch(new RegExp(`^SERVICE_AREA_FILE: .*${name.replace('.', '\\.')}, `));
      expect(message).toMatch(problem);
    }
  });

  it('refuses a route limit that is not a positive number of km', () => {
    for (const value of ['0', '-5', 'eighty']) {
      expect(() => loadSettings({ ...base, MAX_ROUTE_KM: value })).toThrow(/^MAX_ROUTE_KM: expected a number >= 1/);
    }
  });

  it('stops the API at start with a line naming SERVICE_AREA_FILE', () => {
    const { command, args, cwd } = ourProgram('api/main.ts');
    const started = spawnSync(command, args, {
      cwd,
      env: { PATH: process.env.PATH, NODE_ENV: 'development', ...base, SERVICE_AREA_FILE: path.join(folder, 'missing.geojson'), PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(78);
    expect(started.stderr.trim().split('\n')).toEqual([`Invalid setting SERVICE_AREA_FILE: cannot read ${path.join(folder, 'missing.geojson')} (ENOENT)`]);
  }, 70_000);
});
