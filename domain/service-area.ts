import type { LatLng } from './geo';
import { distanceKm } from './pricing';

/**
 * One named area riders serve (a city and its surroundings): a polygon whose first ring is its
 * outline and any further rings holes in it, each ring closed (its last point is its first).
 */
export interface NamedArea {
  name: string;
  rings: LatLng[][];
}

/** Where the service delivers: every pickup, stop and drop-off must lie in one of its areas. */
export type ServiceArea = readonly NamedArea[];

/** The points of a route as a quote or a booking sends them, in visiting order. */
export interface RoutePoints {
  pickup_lat: number;
  pickup_lng: number;
  dropoff_lat: number;
  dropoff_lng: number;
  additional_stops?: readonly { dropoff_lat: number; dropoff_lng: number }[];
}

/** What a refused point or route is told, as the value under its field in `details`. */
export const OUTSIDE_SERVICE_AREA = 'outside the service area';

/** Twice the signed area of the triangle a → b → p: positive when p lies left of a → b. */
function cross(a: LatLng, b: LatLng, p: LatLng): number {
  return (b.lng - a.lng) * (p.lat - a.lat) - (p.lng - a.lng) * (b.lat - a.lat);
}

function onSegment(p: LatLng, a: LatLng, b: LatLng): boolean {
  return (
    cross(a, b, p) === 0 &&
    Math.min(a.lng, b.lng) <= p.lng &&
    p.lng <= Math.max(a.lng, b.lng) &&
    Math.min(a.lat, b.lat) <= p.lat &&
    p.lat <= Math.max(a.lat, b.lat)
  );
}

/**
 * Ray casting eastwards from the point: inside when the ray crosses the ring an odd number of
 * times. Which side of an edge the point lies on is the sign of a cross product, not a division,
 * so no rounding moves a point across an edge; a point on the ring itself is `edge`.
 */
function ringHolds(ring: readonly LatLng[], p: LatLng): 'inside' | 'outside' | 'edge' {
  let inside = false;
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i] as LatLng;
    const b = ring[i + 1] as LatLng;
    if (onSegment(p, a, b)) return 'edge';
    if ((a.lat > p.lat) !== (b.lat > p.lat) && (cross(a, b, p) > 0) === (b.lat > a.lat)) inside = !inside;
  }
  return inside ? 'inside' : 'outside';
}

/** True when the point lies in the area's outline and in none of its holes; an edge counts as in. */
export function areaHolds(area: NamedArea, point: LatLng): boolean {
  const [outline, ...holes] = area.rings;
  if (!outline || ringHolds(outline, point) === 'outside') return false;
  return holes.every((hole) => ringHolds(hole, point) !== 'inside');
}

/** True when one of the service's areas holds the point. */
export function serviceAreaHolds(serviceArea: ServiceArea, point: LatLng): boolean {
  return serviceArea.some((area) => areaHolds(area, point));
}

/**
 * Each point of the route outside the service area, named by its latitude field as the API names
 * fields in `details` (`pickup_lat`, `additional_stops[0].dropoff_lat`, `dropoff_lat`): the pair
 * is one point, and either number of it may be the mistake. Empty when every point is inside.
 */
export function pointsOutside(serviceArea: ServiceArea, route: RoutePoints): Record<string, string> {
  const named: [string, LatLng][] = [
    ['pickup_lat', { lat: route.pickup_lat, lng: route.pickup_lng }],
    ...(route.additional_stops ?? []).map((stop, i): [string, LatLng] => [`additional_stops[${i}].dropoff_lat`, { lat: stop.dropoff_lat, lng: stop.dropoff_lng }]),
    ['dropoff_lat', { lat: route.dropoff_lat, lng: route.dropoff_lng }],
  ];
  return Object.fromEntries(named.filter(([, point]) => !serviceAreaHolds(serviceArea, point)).map(([field]) => [field, OUTSIDE_SERVICE_AREA]));
}

/**
 * The refusal of a route longer than `maxKm` by road, as `details` carries it, or null. The
 * distance is compared as a partner is shown it (two decimals of a km), so a route shown as
 * exactly the limit is taken.
 */
export function routeTooLong(distanceMeters: number, maxKm: number): { route: string } | null {
  return distanceKm(distanceMeters) > maxKm ? { route: `longer than ${maxKm} km` } : null;
}

/** The areas as the GeoJSON FeatureCollection partners are served: positions are [lng, lat]. */
export function serviceAreaGeoJson(serviceArea: ServiceArea) {
  return {
    type: 'FeatureCollection' as const,
    features: serviceArea.map((area) => ({
      type: 'Feature' as const,
      properties: { name: area.name },
      geometry: { type: 'Polygon' as const, coordinates: area.rings.map((ring) => ring.map((p) => [p.lng, p.lat])) },
    })),
  };
}
