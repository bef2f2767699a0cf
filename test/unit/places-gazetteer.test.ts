import { haversineMeters } from '../../domain/geo';
import { GazetteerPlaces, type GazetteerEntry } from '../../integrations/places/gazetteer';
import bundled from '../../integrations/places/ghana-places.json';

const entries = bundled as GazetteerEntry[];
const places = new GazetteerPlaces();
const byId = new Map(entries.map((e) => [e.id, e]));

const CITY_CENTRES: Record<string, { lat: number; lng: number }> = {
  Accra: { lat: 5.56, lng: -0.2057 },
  Tema: { lat: 5.6698, lng: -0.0166 },
  Kumasi: { lat: 6.6981, lng: -1.623 },
  'Sekondi-Takoradi': { lat: 4.9, lng: -1.75 },
  Tamale: { lat: 9.4043, lng: -0.843 },
  'Cape Coast': { lat: 5.1036, lng: -1.2413 },
};

async function titles(query: string, limit = 10): Promise<string[]> {
  return (await places.autocomplete(query, limit)).map((s) => s.title);
}

describe('the bundled Ghana gazetteer', () => {
  it('holds at least 300 places with unique slug ids', () => {
    expect(entries.length).toBeGreaterThanOrEqual(300);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const e of entries) expect(e.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('gives every place a name, area, city and kind', () => {
    for (const e of entries) {
      expect(e.name.trim()).not.toBe('');
      expect(e.area.trim()).not.toBe('');
      expect(e.kind.trim()).not.toBe('');
      expect(Object.keys(CITY_CENTRES)).toContain(e.city);
    }
  });

  it('puts every place inside Ghana', () => {
    for (const e of entries) {
      expect(e.lat).toBeGreaterThanOrEqual(4.74);
      expect(e.lat).toBeLessThanOrEqual(11.17);
      expect(e.lng).toBeGreaterThanOrEqual(-3.26);
      expect(e.lng).toBeLessThanOrEqual(1.2);
    }
  });

  it('puts every place within 25 km of its city, so a flipped sign or swapped pair shows up', () => {
    const far = entries.filter((e) => haversineMeters(e, CITY_CENTRES[e.city]!) > 25_000).map((e) => e.id);
    expect(far).toEqual([]);
  });

  it('covers Accra, Tema, Kumasi, Sekondi-Takoradi, Tamale and Cape Coast, Accra the most', () => {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e.city, (counts.get(e.city) ?? 0) + 1);
    for (const city of Object.keys(CITY_CENTRES)) expect(counts.get(city) ?? 0).toBeGreaterThan(0);
    const accra = counts.get('Accra') ?? 0;
    for (const [city, n] of counts) if (city !== 'Accra') expect(accra).toBeGreaterThan(n);
  });

  it('refuses a list with a repeated id', () => {
    const makola = byId.get('accra-makola-market')!;
    expect(() => new GazetteerPlaces([makola, { ...makola, name: 'Copy' }])).toThrow(/duplicate/);
  });
});

describe('gazetteer autocomplete', () => {
  it('puts Makola Market first for "mak"', async () => {
    expect((await titles('mak'))[0]).toBe('Makola Market');
  });

  it('shows the title with "<area>, <city>" underneath and the entry id as place_id', async () => {
    const [first] = await places.autocomplete('makola', 10);
    expect(first).toEqual({ place_id: 'accra-makola-market', title: 'Makola Market', subtitle: 'Central Accra, Accra' });
  });

  it('shows just the city underneath when the area is the place itself', async () => {
    const [first] = await places.autocomplete('Osu', 10);
    expect(first).toEqual({ place_id: 'accra-osu', title: 'Osu', subtitle: 'Osu, Accra' });
  });

  it('ranks the exact name, then names starting with the query, then names with a later word', async () => {
    const osu = await titles('osu');
    expect(osu[0]).toBe('Osu');
    const castle = osu.indexOf('Osu Castle');
    const trust = osu.indexOf('Trust Hospital Osu');
    expect(castle).toBeGreaterThan(0);
    expect(trust).toBeGreaterThan(castle);
  });

  it('breaks ties by the shorter name, then alphabetically', async () => {
    const osu = await titles('osu');
    const prefixed = osu.filter((t) => t.startsWith('Osu '));
    const sorted = [...prefixed].sort((a, b) => a.length - b.length || a.localeCompare(b));
    expect(prefixed).toEqual(sorted);
  });

  it('finds markets for the word "market"', async () => {
    const found = await places.autocomplete('market', 10);
    expect(found).toHaveLength(10);
    for (const s of found) {
      expect(s.title).toMatch(/market/i);
      expect(byId.get(s.place_id)?.kind).toBe('market');
    }
  });

  it('needs every query word to start a word of the place', async () => {
    expect((await titles('kumasi market'))[0]).toBe('Kumasi Central Market');
    expect(await titles('kejetia')).toContain('Kejetia Market');
    expect(await titles('kejetia accra')).toEqual([]);
  });

  it('matches words of the area and city as well as the name', async () => {
    expect(await titles('legon library')).toContain('Balme Library');
    expect(await titles('tamale hospital')).toContain('Tamale Teaching Hospital');
  });

  it('finds a name typed without its spaces', async () => {
    expect(await titles('eastlegon')).toContain('East Legon');
  });

  it('still finds Makola Market when typed "Makolla"', async () => {
    expect((await titles('Makolla'))[0]).toBe('Makola Market');
  });

  it('still finds the airport when typed "Kotoka Internatonal"', async () => {
    expect((await titles('Kotoka Internatonal'))[0]).toBe('Kotoka International Airport');
  });

  it('allows two slips in a long word: "Korlebu Teeching"', async () => {
    expect(await titles('Korle Bu Teeching')).toContain('Korle Bu Teaching Hospital');
    expect(await titles('Mausuleum')).toContain('Kwame Nkrumah Mausoleum');
  });

  it('does not guess at typos in words shorter than four letters', async () => {
    expect(await titles('xsu')).not.toContain('Osu');
  });

  it('tolerates a missing accent and matches an accented query', async () => {
    expect((await titles('Movenpick'))[0]).toBe('Mövenpick Ambassador Hotel');
    expect((await titles('MÖVENPICK'))[0]).toBe('Mövenpick Ambassador Hotel');
    expect((await titles('Adabráka'))[0]).toBe('Adabraka');
  });

  it('ignores case, punctuation and extra spaces', async () => {
    expect((await titles('  KWAME-NKRUMAH   circle!! '))[0]).toBe('Kwame Nkrumah Circle');
    expect(await titles("st augustines")).toContain("St. Augustine's College");
  });

  it('returns nothing for an empty or blank query', async () => {
    expect(await places.autocomplete('', 10)).toEqual([]);
    expect(await places.autocomplete('   \t ', 10)).toEqual([]);
    expect(await places.autocomplete('--', 10)).toEqual([]);
  });

  it('returns at most the limit asked for', async () => {
    expect(await places.autocomplete('a', 10)).toHaveLength(10);
    expect(await places.autocomplete('a', 3)).toHaveLength(3);
    expect(await places.autocomplete('a', 0)).toEqual([]);
  });

  it('answers a query in about a millisecond', () => {
    const queries = ['mak', 'market', 'Makolla', 'Kotoka Internatonal', 'east legon', 'zzzzqqqq', 'hospital', 'kum'];
    for (const q of queries) places.search(q, 10);
    const rounds = 50;
    const start = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) for (const q of queries) places.search(q, 10);
    const perQueryMs = Number(process.hrtime.bigint() - start) / 1e6 / (rounds * queries.length);
    // Generous bound so a busy CI machine does not flake; typical is well under 1 ms.
    expect(perQueryMs).toBeLessThan(5);
  });
});

describe('gazetteer resolve', () => {
  it('returns the address and coordinates of a known id', async () => {
    expect(await places.resolve('accra-makola-market')).toEqual({
      address: 'Makola Market, Central Accra, Accra',
      lat: 5.5497,
      lng: -0.2096,
    });
  });

  it('does not repeat the area when it is the place itself', async () => {
    expect((await places.resolve('accra-osu'))?.address).toBe('Osu, Accra');
  });

  it('returns null for an unknown id', async () => {
    expect(await places.resolve('accra-nowhere')).toBeNull();
    expect(await places.resolve('photon:abc.def')).toBeNull();
    expect(await places.resolve('')).toBeNull();
  });

  it('hands out copies, so a caller cannot change the gazetteer', async () => {
    const first = await places.resolve('accra-makola-market');
    first!.lat = 0;
    expect((await places.resolve('accra-makola-market'))?.lat).toBe(5.5497);
  });
});
