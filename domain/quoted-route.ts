import type { LatLng } from './geo';

/**
 * Where a booking's route departs from the route its quote priced, by the booking's own field
 * names (as a service-area refusal names them), so the partner sees which coordinate to fix. Empty
 * when the routes are the same: same pickup, same stops in the same order, same drop-off, to the
 * exact coordinate, since the fare was priced on exactly those points.
 */
export function routeDifferences(quoted: readonly LatLng[], booked: readonly LatLng[]): Record<string, string> {
  const differs = 'differs from the quoted route';
  const out: Record<string, string> = {};
  const compare = (a: LatLng | undefined, b: LatLng | undefined, latField: string, lngField: string) => {
    if (a?.lat !== b?.lat) out[latField] = differs;
    if (a?.lng !== b?.lng) out[lngField] = differs;
  };
  compare(quoted[0], booked[0], 'pickup_lat', 'pickup_lng');
  const quotedStops = quoted.slice(1, -1);
  const bookedStops = booked.slice(1, -1);
  if (quotedStops.length !== bookedStops.length) {
    out.additional_stops = `the quote was for ${quotedStops.length} additional stop${quotedStops.length === 1 ? '' : 's'}, not ${bookedStops.length}`;
  } else {
    quotedStops.forEach((stop, i) => compare(stop, bookedStops[i], `additional_stops[${i}].dropoff_lat`, `additional_stops[${i}].dropoff_lng`));
  }
  compare(quoted[quoted.length - 1], booked[booked.length - 1], 'dropoff_lat', 'dropoff_lng');
  return out;
}
