import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { LatLng } from '../../domain/geo';
import { MapboxTrafficEta } from '../../integrations/routing/mapbox';
import { OsrmRouting } from '../../integrations/routing/osrm';
import { StraightLineRouting } from '../../integrations/routing/straight-line';
import { EtaWithFallback, RoutingWithFallback } from '../../integrations/routing/with-fallback';

const MAKOLA: LatLng = { lat: 5.5497, lng: -0.2096 };
const OSU: LatLng = { lat: 5.556, lng: -0.1769 };
const KOTOKA: LatLng = { lat: 5.6052, lng: -0.1668 };
const TOKEN = 'sk.eyJ1IjoiZGVsaXZlcnkiLCJhIjoiY2xzZWNyZXQifQ.S3cr3tT0k3n-_x';

/** What a fake answers: a JSON body, raw text, or nothing at all. */
type Reply = { status: number; json: unknown } | { status: number; text: string } | 'never';

interface FakeServer {
  baseUrl: string;
  /** Raw request targets (path + query) in arrival order. */
  requests: string[];
}

const servers: Server[] = [];

/** A real HTTP server on loopback that answers every request with `reply`. */
async function startFake(reply: Reply): Promise<FakeServer> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(req.url ?? '');
    if (reply === 'never') return;
    if ('json' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json));
    } else {
      res.writeHead(reply.status, { 'content-type': 'text/html' }).end(reply.text);
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests };
}

/** A loopback address where nothing listens. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`);
  }
  throw new Error('expected a rejection');
}

/** OSRM's documented answer for a two-leg route (trimmed of fields we do not read). */
const OSRM_TWO_LEGS = {
  code: 'Ok',
  routes: [
    {
      geometry: '',
      weight_name: 'routability',
      weight: 1310.4,
      duration: 1290.7,
      distance: 10428.6,
      legs: [
        { steps: [], summary: '', weight: 480.2, duration: 470.9, distance: 4011.3 },
        { steps: [], summary: '', weight: 830.2, duration: 819.8, distance: 6417.3 },
      ],
    },
  ],
  waypoints: [
    { hint: 'a', distance: 3.1, name: 'Kojo Thompson Road', location: [-0.2096, 5.5497] },
    { hint: 'b', distance: 5.2, name: 'Oxford Street', location: [-0.1769, 5.556] },
    { hint: 'c', distance: 8.4, name: 'Airport Bypass', location: [-0.1668, 5.6052] },
  ],
};

/** Mapbox's documented driving-traffic answer for a two-leg route. */
const MAPBOX_TWO_LEGS = {
  code: 'Ok',
  uuid: 'fake-uuid',
  routes: [
    {
      weight_name: 'auto',
      weight: 1702.1,
      duration: 1655.4,
      distance: 10512.9,
      legs: [
        { via_waypoints: [], admins: [{ iso_3166_1: 'GH', iso_3166_1_alpha3: 'GHA' }], weight: 640.3, duration: 611.2, steps: [], distance: 4050.1, summary: '' },
        { via_waypoints: [], admins: [{ iso_3166_1: 'GH', iso_3166_1_alpha3: 'GHA' }], weight: 1061.8, duration: 1044.2, steps: [], distance: 6462.8, summary: '' },
      ],
    },
  ],
  waypoints: [
    { distance: 3.1, name: 'Kojo Thompson Road', location: [-0.2096, 5.5497] },
    { distance: 5.2, name: 'Oxford Street', location: [-0.1769, 5.556] },
    { distance: 8.4, name: 'Airport Bypass', location: [-0.1668, 5.6052] },
  ],
};

describe('OsrmRouting', () => {
  it('asks OSRM for the route with coordinates as lng,lat in visiting order and no geometry or steps', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });

    await new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, OSU, KOTOKA]);

    expect(fake.requests).toHaveLength(1);
    const url = new URL(fake.requests[0]!, fake.baseUrl);
    expect(url.pathname).toBe('/route/v1/driving/-0.2096,5.5497;-0.1769,5.556;-0.1668,5.6052');
    expect(url.searchParams.get('overview')).toBe('false');
    expect(url.searchParams.get('steps')).toBe('false');
  });

  it('uses the configured profile and tolerates a trailing slash on the base URL', async () => {
    const fake = await startFake({ status: 200, json: { ...OSRM_TWO_LEGS, routes: [{ ...OSRM_TWO_LEGS.routes[0], legs: [OSRM_TWO_LEGS.routes[0]!.legs[0]] }] } });

    await new OsrmRouting({ baseUrl: `${fake.baseUrl}/`, profile: 'bike' }).route([MAKOLA, OSU]);

    expect(new URL(fake.requests[0]!, fake.baseUrl).pathname).toBe('/route/v1/bike/-0.2096,5.5497;-0.1769,5.556');
  });

  it('writes coordinates near the Greenwich meridian as plain decimals, never as exponents', async () => {
    const fake = await startFake({ status: 200, json: { ...OSRM_TWO_LEGS, routes: [{ ...OSRM_TWO_LEGS.routes[0], legs: [OSRM_TWO_LEGS.routes[0]!.legs[0]] }] } });
    const tema = { lat: 5.6698, lng: 0.00000004 };
    const nearTema = { lat: 5.6703, lng: -0.0000049 };

    await new OsrmRouting({ baseUrl: fake.baseUrl }).route([tema, nearTema]);

    expect(new URL(fake.requests[0]!, fake.baseUrl).pathname).toBe('/route/v1/driving/0,5.6698;-0.000005,5.6703');
  });

  it('reports the road distance in metres and the duration in seconds, not estimated', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });

    const route = await new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, OSU, KOTOKA]);

    expect(route).toEqual({ distanceMeters: 10428.6, durationSeconds: 1290.7, estimated: false });
  });

  it('reports each leg duration in order', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });

    const legs = await new OsrmRouting({ baseUrl: fake.baseUrl }).legs([MAKOLA, OSU, KOTOKA]);

    expect(legs).toEqual({ legSeconds: [470.9, 819.8], estimated: false });
  });

  it('answers zero without calling OSRM for fewer than two points', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });
    const osrm = new OsrmRouting({ baseUrl: fake.baseUrl });

    await expect(osrm.route([MAKOLA])).resolves.toEqual({ distanceMeters: 0, durationSeconds: 0, estimated: false });
    await expect(osrm.legs([])).resolves.toEqual({ legSeconds: [], estimated: false });
    expect(fake.requests).toHaveLength(0);
  });

  it('throws with the OSRM code and message when there is no route', async () => {
    const fake = await startFake({ status: 400, json: { code: 'NoRoute', message: 'Impossible route between points' } });

    const error = await caught(new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, KOTOKA]));

    expect(error.message).toBe('OSRM route failed: NoRoute (Impossible route between points)');
  });

  it('throws with the OSRM code and message for an invalid query', async () => {
    const fake = await startFake({ status: 400, json: { code: 'InvalidQuery', message: 'Query string malformed close to position 9' } });

    await expect(new OsrmRouting({ baseUrl: fake.baseUrl }).legs([MAKOLA, KOTOKA])).rejects.toThrow(
      'OSRM route failed: InvalidQuery (Query string malformed close to position 9)',
    );
  });

  it('throws when a proxy in front of OSRM answers with an HTML error page', async () => {
    const fake = await startFake({ status: 502, text: '<html><body>Bad Gateway</body></html>' });

    await expect(new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, KOTOKA])).rejects.toThrow(
      'OSRM route failed: HTTP 502 without an OSRM answer',
    );
  });

  it('throws when an Ok answer does not have one leg per pair of points', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });

    await expect(new OsrmRouting({ baseUrl: fake.baseUrl }).legs([MAKOLA, KOTOKA])).rejects.toThrow(
      'OSRM route has 2 legs, expected 1',
    );
  });

  it('throws when an Ok answer has no routes', async () => {
    const fake = await startFake({ status: 200, json: { code: 'Ok', routes: [] } });

    await expect(new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, KOTOKA])).rejects.toThrow(
      'OSRM answered Ok without a route',
    );
  });

  it('throws a timeout error when the server never answers', async () => {
    const fake = await startFake('never');
    const started = Date.now();

    const error = await caught(new OsrmRouting({ baseUrl: fake.baseUrl, timeoutMs: 150 }).route([MAKOLA, KOTOKA]));

    expect(error.message).toBe('OSRM route request timed out after 150 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('throws a clear error when nothing listens at the address', async () => {
    const baseUrl = await closedPortUrl();

    await expect(new OsrmRouting({ baseUrl }).route([MAKOLA, KOTOKA])).rejects.toThrow(
      'OSRM route request failed: no usable answer (ECONNREFUSED)',
    );
  });

  it('rejects out-of-range coordinates before calling OSRM', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });

    await expect(new OsrmRouting({ baseUrl: fake.baseUrl }).route([MAKOLA, { lat: -0.2096, lng: 185.5 }])).rejects.toThrow(
      RangeError,
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe('MapboxTrafficEta', () => {
  it('asks the driving-traffic profile with lng,lat coordinates, the access token and no overview', async () => {
    const fake = await startFake({ status: 200, json: MAPBOX_TWO_LEGS });

    await new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs([MAKOLA, OSU, KOTOKA]);

    expect(fake.requests).toHaveLength(1);
    const url = new URL(fake.requests[0]!, fake.baseUrl);
    expect(url.pathname).toBe('/directions/v5/mapbox/driving-traffic/-0.2096,5.5497;-0.1769,5.556;-0.1668,5.6052');
    expect(url.searchParams.get('access_token')).toBe(TOKEN);
    expect(url.searchParams.get('overview')).toBe('false');
  });

  it('reports the traffic-aware duration of each leg in order, not estimated', async () => {
    const fake = await startFake({ status: 200, json: MAPBOX_TWO_LEGS });

    const legs = await new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs([MAKOLA, OSU, KOTOKA]);

    expect(legs).toEqual({ legSeconds: [611.2, 1044.2], estimated: false });
  });

  it('answers no legs without calling Mapbox for fewer than two points', async () => {
    const fake = await startFake({ status: 200, json: MAPBOX_TWO_LEGS });

    await expect(new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs([KOTOKA])).resolves.toEqual({
      legSeconds: [],
      estimated: false,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses more than 25 points without calling Mapbox', async () => {
    const fake = await startFake({ status: 200, json: MAPBOX_TWO_LEGS });
    const points = Array.from({ length: 26 }, (_, i) => ({ lat: 5.55 + i * 0.001, lng: -0.2 }));

    await expect(new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs(points)).rejects.toThrow(
      'at most 25 points, got 26',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ['no route', 200, { code: 'NoRoute', message: 'No route found', routes: [] }, 'Mapbox directions failed: NoRoute (No route found)'],
    ['invalid input', 422, { code: 'InvalidInput', message: 'Coordinate is invalid: 185.5,5.5' }, 'Mapbox directions failed: HTTP 422 InvalidInput (Coordinate is invalid: 185.5,5.5)'],
    ['a rejected token', 401, { message: 'Not Authorized - Invalid Token' }, 'Mapbox directions failed: HTTP 401 (Not Authorized - Invalid Token)'],
    ['rate limiting', 429, { message: 'Too Many Requests' }, 'Mapbox directions failed: HTTP 429 (Too Many Requests)'],
  ])('throws with Mapbox’s code and message on %s', async (_case, status, json, expected) => {
    const fake = await startFake({ status, json });

    await expect(new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs([MAKOLA, KOTOKA])).rejects.toThrow(
      expected,
    );
  });

  it('throws a timeout error when Mapbox never answers', async () => {
    const fake = await startFake('never');

    await expect(
      new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl, timeoutMs: 100 }).legs([MAKOLA, KOTOKA]),
    ).rejects.toThrow('Mapbox directions request timed out after 100 ms');
  });

  it('masks the access token even when Mapbox echoes the request URL in its error message', async () => {
    const fake = await startFake({
      status: 401,
      json: { message: `Invalid token in /directions/v5/mapbox/driving-traffic?access_token=${encodeURIComponent(TOKEN)} (${TOKEN})` },
    });

    const error = await caught(new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }).legs([MAKOLA, KOTOKA]));

    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain(encodeURIComponent(TOKEN));
    expect(inspect(error, { depth: 10 })).not.toContain(TOKEN);
  });

  it.each([
    ['a timeout', async () => (await startFake('never')).baseUrl],
    ['a refused connection', closedPortUrl],
    ['a malformed answer', async () => (await startFake({ status: 200, json: { code: 'Ok', routes: [{ legs: 'x' }] } })).baseUrl],
  ])('keeps the access token out of the error, its cause and stack on %s', async (_case, baseUrl) => {
    const eta = new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: await baseUrl(), timeoutMs: 100 });

    const error = await caught(eta.legs([MAKOLA, KOTOKA]));

    expect(error.message).not.toContain(TOKEN);
    expect(error.stack ?? '').not.toContain(TOKEN);
    expect(error.cause).toBeUndefined();
    expect(inspect(error, { depth: 10 })).not.toContain(TOKEN);
  });

  it('does not show the access token when the provider itself is logged', () => {
    const eta = new MapboxTrafficEta({ accessToken: TOKEN });

    expect(inspect(eta, { depth: 10 })).not.toContain(TOKEN);
    expect(JSON.stringify(eta)).not.toContain(TOKEN);
  });
});

describe('RoutingWithFallback', () => {
  it('passes the primary route through untouched when it succeeds', async () => {
    const fake = await startFake({ status: 200, json: OSRM_TWO_LEGS });
    const routing = new RoutingWithFallback(new OsrmRouting({ baseUrl: fake.baseUrl }), new StraightLineRouting());

    await expect(routing.route([MAKOLA, OSU, KOTOKA])).resolves.toEqual({
      distanceMeters: 10428.6,
      durationSeconds: 1290.7,
      estimated: false,
    });
  });

  it('returns the straight-line estimate and reports the error when OSRM finds no route', async () => {
    const fake = await startFake({ status: 400, json: { code: 'NoRoute', message: 'Impossible route between points' } });
    const errors: unknown[] = [];
    const routing = new RoutingWithFallback(
      new OsrmRouting({ baseUrl: fake.baseUrl }),
      new StraightLineRouting(),
      (error) => errors.push(error),
    );

    const route = await routing.route([MAKOLA, OSU, KOTOKA]);

    expect(route).toEqual(await new StraightLineRouting().route([MAKOLA, OSU, KOTOKA]));
    expect(route.estimated).toBe(true);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('NoRoute');
  });

  it('returns the straight-line estimate when OSRM cannot be reached', async () => {
    const routing = new RoutingWithFallback(new OsrmRouting({ baseUrl: await closedPortUrl() }), new StraightLineRouting());

    await expect(routing.route([MAKOLA, KOTOKA])).resolves.toEqual(await new StraightLineRouting().route([MAKOLA, KOTOKA]));
  });

  it('marks the answer as estimated whatever the fallback claims', async () => {
    const fake = await startFake({ status: 503, text: 'down' });
    const claimsExact = { route: async () => ({ distanceMeters: 1, durationSeconds: 2, estimated: false }) };
    const routing = new RoutingWithFallback(new OsrmRouting({ baseUrl: fake.baseUrl }), claimsExact);

    await expect(routing.route([MAKOLA, KOTOKA])).resolves.toEqual({ distanceMeters: 1, durationSeconds: 2, estimated: true });
  });

  it('still falls back when the error listener itself throws', async () => {
    const fake = await startFake({ status: 400, json: { code: 'NoSegment', message: 'Could not find a matching segment for any coordinate' } });
    const routing = new RoutingWithFallback(new OsrmRouting({ baseUrl: fake.baseUrl }), new StraightLineRouting(), () => {
      throw new Error('logger down');
    });

    await expect(routing.route([MAKOLA, KOTOKA])).resolves.toMatchObject({ estimated: true });
  });
});

describe('EtaWithFallback', () => {
  it('passes the live traffic ETA through untouched when Mapbox answers', async () => {
    const fake = await startFake({ status: 200, json: MAPBOX_TWO_LEGS });
    const eta = new EtaWithFallback(
      new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }),
      new StraightLineRouting(),
    );

    await expect(eta.legs([MAKOLA, OSU, KOTOKA])).resolves.toEqual({ legSeconds: [611.2, 1044.2], estimated: false });
  });

  it('returns the straight-line leg estimates when Mapbox never answers', async () => {
    const fake = await startFake('never');
    const errors: unknown[] = [];
    const eta = new EtaWithFallback(
      new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl, timeoutMs: 100 }),
      new StraightLineRouting(),
      (error) => errors.push(error),
    );

    const legs = await eta.legs([MAKOLA, OSU, KOTOKA]);

    expect(legs).toEqual(await new StraightLineRouting().legs([MAKOLA, OSU, KOTOKA]));
    expect(legs.estimated).toBe(true);
    expect(String(errors[0])).toContain('timed out');
    expect(String(errors[0])).not.toContain(TOKEN);
  });

  it('returns the straight-line leg estimates when Mapbox rate-limits us', async () => {
    const fake = await startFake({ status: 429, json: { message: 'Too Many Requests' } });
    const eta = new EtaWithFallback(
      new MapboxTrafficEta({ accessToken: TOKEN, baseUrl: fake.baseUrl }),
      new StraightLineRouting(),
    );

    await expect(eta.legs([MAKOLA, KOTOKA])).resolves.toEqual(await new StraightLineRouting().legs([MAKOLA, KOTOKA]));
  });

  it('returns the straight-line leg estimates when OSRM serves the ETA and fails', async () => {
    const fake = await startFake({ status: 400, json: { code: 'NoRoute', message: 'Impossible route between points' } });
    const eta = new EtaWithFallback(new OsrmRouting({ baseUrl: fake.baseUrl }), new StraightLineRouting());

    await expect(eta.legs([MAKOLA, KOTOKA])).resolves.toEqual(await new StraightLineRouting().legs([MAKOLA, KOTOKA]));
  });
});
