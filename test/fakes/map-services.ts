/**
 * Local stand-ins for the map services, over real HTTP on 127.0.0.1, answering in each one's
 * documented shape:
 *   OSRM    GET /route/v1/{profile}/{lng,lat;…}           {code: 'Ok', routes: [{distance, duration, legs}], waypoints}
 *   Mapbox  GET /directions/v5/mapbox/driving-traffic/{…} the same shape, plus `uuid`; errors as {message}
 *   Photon  GET /api?q=…                                  a GeoJSON FeatureCollection
 * Each can be told to fail (its documented error answer) or to hang (no answer at all).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour = 'ok' | 'error' | 'hang';

export interface RecordedCall {
  path: string;
  query: URLSearchParams;
}

export interface FakeService {
  url: string;
  calls: RecordedCall[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

async function serve(answer: (path: string, query: URLSearchParams) => Answer, error: Answer): Promise<FakeService> {
  const service = { calls: [] as RecordedCall[], behaviour: 'ok' as Behaviour } as FakeService;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    service.calls.push({ path: decodeURIComponent(url.pathname), query: url.searchParams });
    if (service.behaviour === 'hang') return;
    const { status, body } = service.behaviour === 'error' ? error : answer(url.pathname, url.searchParams);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return service;
}

/** `lng,lat;lng,lat…` at the end of a directions path. */
function coordinates(path: string): [number, number][] {
  const last = decodeURIComponent(path.split('/').pop() ?? '');
  return last.split(';').map((pair) => pair.split(',').map(Number) as [number, number]);
}

function directions(path: string, leg: { distance: number; duration: number }, extra: Record<string, unknown> = {}): Answer {
  const points = coordinates(path);
  const legs = points.slice(1).map(() => ({ distance: leg.distance, duration: leg.duration, weight: leg.duration, summary: '', steps: [] }));
  return {
    status: 200,
    body: {
      code: 'Ok',
      routes: [
        {
          distance: leg.distance * legs.length,
          duration: leg.duration * legs.length,
          weight: leg.duration * legs.length,
          weight_name: 'routability',
          legs,
        },
      ],
      waypoints: points.map((location) => ({ name: '', location, distance: 0.5, hint: 'x' })),
      ...extra,
    },
  };
}

/** OSRM: every leg is `leg.distance` metres of road, taking `leg.duration` seconds. */
export function fakeOsrm(leg: { distance: number; duration: number }): Promise<FakeService> {
  return serve(
    (path) => directions(path, leg),
    { status: 400, body: { code: 'NoRoute', message: 'Impossible route between points' } },
  );
}

/** Mapbox driving-traffic: every leg takes `leg.duration` seconds in today's traffic. */
export function fakeMapbox(leg: { distance: number; duration: number }, token: string): Promise<FakeService> {
  return serve(
    (path, query) =>
      query.get('access_token') === token
        ? directions(path, leg, { uuid: 'fake-route' })
        : { status: 401, body: { message: 'Not Authorized - Invalid Token' } },
    { status: 429, body: { message: 'Too Many Requests' } },
  );
}

export interface PhotonPlace {
  name: string;
  lat: number;
  lng: number;
  city?: string;
  state?: string;
  district?: string;
}

/** Photon: answers every search with `places`, in GeoJSON as komoot's server does. */
export function fakePhoton(places: PhotonPlace[]): Promise<FakeService> {
  return serve(
    () => ({
      status: 200,
      body: {
        type: 'FeatureCollection',
        features: places.map((place, i) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [place.lng, place.lat] },
          properties: {
            osm_type: 'N',
            osm_id: 1000 + i,
            osm_key: 'amenity',
            osm_value: 'marketplace',
            type: 'house',
            name: place.name,
            ...(place.district ? { district: place.district } : {}),
            ...(place.city ? { city: place.city } : {}),
            ...(place.state ? { state: place.state } : {}),
            country: 'Ghana',
            countrycode: 'GH',
          },
        })),
      },
    }),
    { status: 500, body: { message: 'Internal server error' } },
  );
}
