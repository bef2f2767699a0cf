/** A point on the map, in decimal degrees (WGS 84). */
export interface LatLng {
  lat: number;
  lng: number;
}

const EARTH_RADIUS_M = 6_371_008.8;

function toRadians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

/** Great-circle distance in metres between two points. */
export function haversineMeters(a: LatLng, b: LatLng): number {
  const dLat = toRadians(b.lat - a.lat);
  const dLng = toRadians(b.lng - a.lng);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(a.lat)) * Math.cos(toRadians(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A point `fraction` (0..1) of the way from `a` to `b`; good enough over city distances. */
export function interpolate(a: LatLng, b: LatLng, fraction: number): LatLng {
  const f = Math.max(0, Math.min(1, fraction));
  return { lat: a.lat + (b.lat - a.lat) * f, lng: a.lng + (b.lng - a.lng) * f };
}

/** A box on the map: the latitudes and longitudes it spans, in decimal degrees. */
export interface LatLngBox {
  south: number;
  north: number;
  west: number;
  east: number;
}

/**
 * Grid cells per degree: riders are found by cell (about 550 m across at the equator). Small
 * enough that dispatch's first look reads few riders beyond the nearest; large enough that a
 * rider on a motorbike changes cell about once a minute, the only pings that touch an index.
 */
export const CELLS_PER_DEGREE = 200;

/**
 * The grid cells a box touches, one band a row of cells: cells are numbered as `riders.cell`
 * numbers a rider's position (db/migrations/Migration20261127000000_rider_pings.ts),
 * floor(lat·200)·100000 + floor(lng·200), so a row's cells are the numbers from its first to its
 * last. A 15 km box is 54 bands where it would be 3,000 cells.
 */
export function cellBands(box: LatLngBox): { first: number[]; last: number[] } {
  const row = (degrees: number) => Math.floor(degrees * CELLS_PER_DEGREE);
  const first: number[] = [];
  const last: number[] = [];
  for (let lat = row(box.south); lat <= row(box.north); lat++) {
    first.push(lat * 100_000 + row(box.west));
    last.push(lat * 100_000 + row(box.east));
  }
  return { first, last };
}

/** The box around `center` that holds every point within `radiusKm` of it. */
export function boxAround(center: LatLng, radiusKm: number): LatLngBox {
  const dLat = radiusKm / 111.32;
  const dLng = radiusKm / (111.32 * Math.max(0.1, Math.cos(toRadians(center.lat))));
  return { south: center.lat - dLat, north: center.lat + dLat, west: center.lng - dLng, east: center.lng + dLng };
}
