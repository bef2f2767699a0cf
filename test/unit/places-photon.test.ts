import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GazetteerPlaces } from '../../integrations/places/gazetteer';
import { PhotonPlaces } from '../../integrations/places/photon';
import type { PlacesProvider } from '../../integrations/places/provider';
import { PlacesWithFallback } from '../../integrations/places/with-fallback';

/** A Photon search answer in its documented shape: a GeoJSON FeatureCollection of points. */
const PHOTON_ANSWER = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-0.2093, 5.5489] },
      properties: {
        osm_type: 'W',
        osm_id: 28_193_456,
        osm_key: 'amenity',
        osm_value: 'marketplace',
        type: 'house',
        name: 'Makola Market',
        street: 'Kojo Thompson Road',
        district: 'Central Accra',
        city: 'Accra',
        county: 'Accra Metropolitan',
        state: 'Greater Accra Region',
        country: 'Ghana',
        countrycode: 'GH',
      },
    },
    {
      // The same market again, as a node: shown once.
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-0.2093, 5.5489] },
      properties: {
        osm_type: 'N',
        osm_id: 3_120_458_871,
        name: 'Makola Market',
        street: 'Kojo Thompson Road',
        district: 'Central Accra',
        city: 'Accra',
        state: 'Greater Accra Region',
        country: 'Ghana',
      },
    },
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-0.1821, 5.5561] },
      properties: {
        osm_type: 'N',
        osm_id: 9_001,
        housenumber: '12',
        street: 'Oxford Street',
        district: 'Osu',
        city: 'Accra',
        state: 'Greater Accra Region',
        country: 'Ghana',
      },
    },
    {
      // Lomé, Togo: outside Ghana, so never offered.
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [1.2255, 6.1228] },
      properties: { osm_type: 'R', osm_id: 1, name: 'Makola Market Lomé', city: 'Lomé', country: 'Togo' },
    },
    { type: 'Feature', geometry: { type: 'Point', coordinates: [] }, properties: { name: 'No coordinates' } },
    { type: 'Feature', geometry: { type: 'Point', coordinates: [-0.2, 5.6] }, properties: { osm_id: 2 } },
  ],
};

type Mode = 'ok' | 'error' | 'garbage' | 'hang';

class FakePhoton {
  mode: Mode = 'ok';
  readonly requests: URL[] = [];
  private server: Server | null = null;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push(new URL(req.url ?? '/', this.baseUrl));
    if (this.mode === 'hang') return; // never answers
    if (this.mode === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"internal error"}');
      return;
    }
    if (this.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(PHOTON_ANSWER));
  }
}

const fake = new FakePhoton();
let photon: PhotonPlaces;

beforeAll(async () => {
  await fake.start();
  photon = new PhotonPlaces({ baseUrl: `${fake.baseUrl}/`, timeoutMs: 1_000 });
});

afterAll(async () => {
  await fake.stop();
});

beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
});

describe('Photon place search', () => {
  it('asks /api with the query, the limit, a bias to Accra and the Ghana bounding box', async () => {
    await photon.autocomplete('  makola market ', 10);
    expect(fake.requests).toHaveLength(1);
    const url = fake.requests[0]!;
    expect(url.pathname).toBe('/api');
    expect(url.searchParams.get('q')).toBe('makola market');
    expect(url.searchParams.get('limit')).toBe('10');
    expect(url.searchParams.get('lat')).toBe('5.6037');
    expect(url.searchParams.get('lon')).toBe('-0.1870');
    expect(url.searchParams.get('bbox')).toBe('-3.26,4.74,1.20,11.17');
  });

  it('titles a place by its name, or by house number and street, with district, city and state below', async () => {
    const found = await photon.autocomplete('makola', 10);
    expect(found.map(({ title, subtitle }) => ({ title, subtitle }))).toEqual([
      { title: 'Makola Market', subtitle: 'Central Accra, Accra, Greater Accra Region' },
      { title: '12 Oxford Street', subtitle: 'Osu, Accra, Greater Accra Region' },
    ]);
  });

  it('drops duplicates, places outside Ghana and features without a name or a point', async () => {
    const found = await photon.autocomplete('makola', 10);
    expect(found).toHaveLength(2);
    expect(found.map((s) => s.title)).not.toContain('Makola Market Lomé');
  });

  it('never returns more than the limit', async () => {
    expect(await photon.autocomplete('makola', 1)).toHaveLength(1);
  });

  it('does not call Photon for a blank query', async () => {
    expect(await photon.autocomplete('   ', 10)).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('resolves its own ids to the address and point without calling Photon again', async () => {
    const [market, street] = await photon.autocomplete('makola', 10);
    const calls = fake.requests.length;
    expect(market!.place_id).toMatch(/^photon:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await photon.resolve(market!.place_id)).toEqual({
      address: 'Makola Market, Kojo Thompson Road, Central Accra, Accra, Greater Accra Region',
      lat: 5.5489,
      lng: -0.2093,
    });
    expect(await photon.resolve(street!.place_id)).toEqual({
      address: '12 Oxford Street, Osu, Accra, Greater Accra Region',
      lat: 5.5561,
      lng: -0.1821,
    });
    expect(fake.requests).toHaveLength(calls);
  });

  it('still resolves an id after Photon has gone down', async () => {
    const [market] = await photon.autocomplete('makola', 10);
    fake.mode = 'error';
    expect((await photon.resolve(market!.place_id))?.lat).toBe(5.5489);
  });

  it('returns null for ids that were edited, cut short, signed with another key, or are not its own', async () => {
    const [market] = await photon.autocomplete('makola', 10);
    const [payload, tag] = market!.place_id.slice('photon:'.length).split('.');
    const moved = Buffer.from(JSON.stringify({ n: 'Makola Market', a: 5.6, o: -0.2 })).toString('base64url');
    const otherKey = new PhotonPlaces({ baseUrl: fake.baseUrl, signingKey: 'another key' });

    expect(await photon.resolve(`photon:${moved}.${tag}`)).toBeNull();
    expect(await photon.resolve(`photon:${payload}.${tag!.slice(0, -2)}`)).toBeNull();
    expect(await photon.resolve(`photon:${payload}`)).toBeNull();
    expect(await photon.resolve(market!.place_id.slice(0, -1))).toBeNull();
    expect(await otherKey.resolve(market!.place_id)).toBeNull();
    expect(await photon.resolve('photon:%%%.!!!')).toBeNull();
    expect(await photon.resolve('accra-makola-market')).toBeNull();
    expect(await photon.resolve(`photon:${'A'.repeat(5_000)}.x`)).toBeNull();
  });

  it('throws when Photon answers 500', async () => {
    fake.mode = 'error';
    await expect(photon.autocomplete('makola', 10)).rejects.toThrow(/Photon search failed: HTTP 500/);
  });

  it('throws when Photon answers something that is not GeoJSON', async () => {
    fake.mode = 'garbage';
    await expect(photon.autocomplete('makola', 10)).rejects.toThrow(/not a GeoJSON FeatureCollection/);
  });

  it('throws once timeoutMs has passed without an answer', async () => {
    fake.mode = 'hang';
    const impatient = new PhotonPlaces({ baseUrl: fake.baseUrl, timeoutMs: 150 });
    const started = Date.now();
    await expect(impatient.autocomplete('makola', 10)).rejects.toThrow(/no answer within 150 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('throws when nothing listens at the address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = new PhotonPlaces({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1_000 });
    await expect(nowhere.autocomplete('makola', 10)).rejects.toThrow(/Photon search failed/);
  });
});

describe('place search with the gazetteer as fallback', () => {
  const gazetteer = new GazetteerPlaces();

  it('answers from Photon while Photon works', async () => {
    const places = new PlacesWithFallback(photon, gazetteer);
    const found = await places.autocomplete('makola', 10);
    expect(found[0]!.place_id).toMatch(/^photon:/);
  });

  it('answers from the gazetteer when Photon fails, and reports the failure', async () => {
    fake.mode = 'error';
    const errors: unknown[] = [];
    const places = new PlacesWithFallback(photon, gazetteer, (err) => errors.push(err));
    const found = await places.autocomplete('makola', 10);
    expect(found[0]).toEqual({ place_id: 'accra-makola-market', title: 'Makola Market', subtitle: 'Central Accra, Accra' });
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/HTTP 500/);
  });

  it('answers from the gazetteer when Photon does not answer in time', async () => {
    fake.mode = 'hang';
    const impatient = new PhotonPlaces({ baseUrl: fake.baseUrl, timeoutMs: 150 });
    const places = new PlacesWithFallback(impatient, gazetteer);
    expect((await places.autocomplete('kotoka', 10))[0]?.title).toBe('Kotoka International Airport');
  });

  it('still falls back when the error listener itself throws', async () => {
    fake.mode = 'error';
    const places = new PlacesWithFallback(photon, gazetteer, () => {
      throw new Error('listener broke');
    });
    expect((await places.autocomplete('makola', 10))[0]?.place_id).toBe('accra-makola-market');
  });

  it('resolves each id with the provider that issued it', async () => {
    const places = new PlacesWithFallback(photon, gazetteer);
    const [market] = await photon.autocomplete('makola', 10);
    expect((await places.resolve(market!.place_id))?.lat).toBe(5.5489);
    expect((await places.resolve('accra-makola-market'))?.lat).toBe(5.5497);
    expect(await places.resolve('accra-nowhere')).toBeNull();
  });

  it('resolves with the other provider when the matching one throws', async () => {
    const broken: PlacesProvider = {
      autocomplete: async () => {
        throw new Error('down');
      },
      resolve: async () => {
        throw new Error('down');
      },
    };
    const errors: unknown[] = [];
    const places = new PlacesWithFallback(photon, broken, (err) => errors.push(err));
    expect(await places.resolve('accra-makola-market')).toBeNull();
    expect(errors).toHaveLength(1);

    const [market] = await photon.autocomplete('makola', 10);
    const reversed = new PlacesWithFallback(broken, photon);
    expect((await reversed.resolve(market!.place_id))?.lng).toBe(-0.2093);
  });
});
