import {
  areaHolds,
  OUTSIDE_SERVICE_AREA,
  pointsOutside,
  routeTooLong,
  serviceAreaGeoJson,
  type NamedArea,
  type ServiceArea,
} from '../../domain/service-area';

/** A closed ring from [lng, lat] corners. */
function ring(...corners: [number, number][]) {
  return [...corners, corners[0]!].map(([lng, lat]) => ({ lat, lng }));
}

/** A square 0..10 × 0..10 with a square hole 4..6 × 4..6. */
const square: NamedArea = {
  name: 'Square',
  rings: [ring([0, 0], [10, 0], [10, 10], [0, 10]), ring([4, 4], [4, 6], [6, 6], [6, 4])],
};

/** A U: two arms 0..3 and 7..10 wide, joined below lat 3; the notch between the arms is outside. */
const u: NamedArea = { name: 'U', rings: [ring([0, 0], [10, 0], [10, 10], [7, 10], [7, 3], [3, 3], [3, 10], [0, 10])] };

/** Two areas much like the shipped ones: around central Accra and around Kumasi. */
const GHANA: ServiceArea = [
  { name: 'Accra', rings: [ring([-0.35, 5.48], [0.05, 5.48], [0.05, 5.75], [-0.35, 5.75])] },
  { name: 'Kumasi', rings: [ring([-1.73, 6.58], [-1.52, 6.58], [-1.52, 6.8], [-1.73, 6.8])] },
];
const MAKOLA = { lat: 5.5497, lng: -0.2096 };
const AIRPORT = { lat: 5.6052, lng: -0.1668 };
const OSU = { lat: 5.556, lng: -0.1823 };
const route = { pickup_lat: MAKOLA.lat, pickup_lng: MAKOLA.lng, dropoff_lat: AIRPORT.lat, dropoff_lng: AIRPORT.lng };

describe('whether an area holds a point', () => {
  it('holds a point inside its outline, and not one outside it', () => {
    expect(areaHolds(square, { lat: 2, lng: 2 })).toBe(true);
    expect(areaHolds(square, { lat: 9.99, lng: 0.01 })).toBe(true);
    for (const outside of [{ lat: -1, lng: 5 }, { lat: 5, lng: 11 }, { lat: 10.01, lng: 5 }, { lat: 5, lng: -0.01 }]) {
      expect(areaHolds(square, outside)).toBe(false);
    }
  });

  it('does not hold a point in a hole, but holds one on the hole’s edge', () => {
    expect(areaHolds(square, { lat: 5, lng: 5 })).toBe(false);
    expect(areaHolds(square, { lat: 5, lng: 4 })).toBe(true);
  });

  it('holds a point on its outline or at a corner', () => {
    for (const edge of [{ lat: 0, lng: 5 }, { lat: 5, lng: 10 }, { lat: 10, lng: 10 }, { lat: 0, lng: 0 }]) {
      expect(areaHolds(square, edge)).toBe(true);
    }
  });

  it('does not hold the notch of a concave outline, even level with its corners', () => {
    expect(areaHolds(u, { lat: 5, lng: 5 })).toBe(false);
    expect(areaHolds(u, { lat: 10, lng: 5 })).toBe(false);
    expect(areaHolds(u, { lat: 3, lng: 5 })).toBe(true); // the notch's floor is the outline
    expect(areaHolds(u, { lat: 5, lng: 1.5 })).toBe(true);
    expect(areaHolds(u, { lat: 5, lng: 8.5 })).toBe(true);
    expect(areaHolds(u, { lat: 1, lng: 5 })).toBe(true);
  });
});

describe('the points of a route outside the service area', () => {
  it('names none when the pickup, every stop and the drop-off are inside', () => {
    expect(pointsOutside(GHANA, { ...route, additional_stops: [{ dropoff_lat: OSU.lat, dropoff_lng: OSU.lng }] })).toEqual({});
  });

  it('names the drop-off of a mistyped latitude, 56.0 for 5.60', () => {
    expect(pointsOutside(GHANA, { ...route, dropoff_lat: 56.0 })).toEqual({ dropoff_lat: OUTSIDE_SERVICE_AREA });
    expect(OUTSIDE_SERVICE_AREA).toBe('outside the service area');
  });

  it('names a point by its latitude field when only its longitude is wrong', () => {
    expect(pointsOutside(GHANA, { ...route, pickup_lng: -2.096 })).toEqual({ pickup_lat: OUTSIDE_SERVICE_AREA });
  });

  it('names each point outside, stops as the API names nested fields', () => {
    const outside = pointsOutside(GHANA, {
      ...route,
      pickup_lat: 0,
      pickup_lng: 0,
      additional_stops: [
        { dropoff_lat: OSU.lat, dropoff_lng: OSU.lng },
        { dropoff_lat: 6.4541, dropoff_lng: 3.3947 }, // Lagos
      ],
      dropoff_lat: -5.6052,
    });
    expect(outside).toEqual({
      pickup_lat: OUTSIDE_SERVICE_AREA,
      'additional_stops[1].dropoff_lat': OUTSIDE_SERVICE_AREA,
      dropoff_lat: OUTSIDE_SERVICE_AREA,
    });
  });

  it('takes a route whose points lie in different areas: their distance is the route limit’s to refuse', () => {
    expect(pointsOutside(GHANA, { ...route, dropoff_lat: 6.6885, dropoff_lng: -1.6244 })).toEqual({});
  });
});

describe('the route limit', () => {
  it('takes a route up to the limit as a partner is shown it, and refuses one longer', () => {
    expect(routeTooLong(79_999, 80)).toBeNull();
    expect(routeTooLong(80_000, 80)).toBeNull();
    expect(routeTooLong(80_004, 80)).toBeNull(); // shown as 80.00 km
    expect(routeTooLong(80_005, 80)).toEqual({ route: 'longer than 80 km' }); // shown as 80.01 km
    expect(routeTooLong(250_000, 80)).toEqual({ route: 'longer than 80 km' });
  });

  it('says the limit it was given', () => {
    expect(routeTooLong(30_000, 25)).toEqual({ route: 'longer than 25 km' });
    expect(routeTooLong(30_000, 32.5)).toBeNull();
  });
});

describe('the service area as GeoJSON', () => {
  it('is a FeatureCollection of named polygons with [lng, lat] positions, rings kept closed', () => {
    const geoJson = serviceAreaGeoJson([square]);
    expect(geoJson.type).toBe('FeatureCollection');
    expect(geoJson.features).toHaveLength(1);
    const [feature] = geoJson.features;
    expect(feature).toMatchObject({ type: 'Feature', properties: { name: 'Square' }, geometry: { type: 'Polygon' } });
    expect(feature!.geometry.coordinates[0]).toEqual([[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]);
    expect(feature!.geometry.coordinates[1]).toEqual([[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]);
  });
});
