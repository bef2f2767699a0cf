import bundled from './ghana-places.json';
import type { PlaceSuggestion, PlacesProvider, ResolvedPlace } from './provider';

/** One place of the bundled gazetteer. `id` is stable: it is what clients send back. */
export interface GazetteerEntry {
  id: string;
  name: string;
  area: string;
  city: string;
  kind: string;
  lat: number;
  lng: number;
}

/**
 * Lowercase, accents stripped (NFD then drop combining marks), apostrophes dropped so
 * "St. Augustine's" matches "augustines", and any other punctuation or run of spaces
 * collapsed to one space.
 */
export function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function words(text: string): string[] {
  const normalised = normalise(text);
  return normalised === '' ? [] : normalised.split(' ');
}

/**
 * Smallest optimal-string-alignment distance between `query` and any prefix of `word`,
 * so a half-typed word with one slip ("makoll") still reaches "makola".
 * Gives up early (returns max + 1) once every cell of a row is past `max`.
 */
export function prefixDistance(query: string, word: string, max: number): number {
  const m = query.length;
  const n = word.length;
  if (m - n > max) return max + 1;
  let prevPrev: number[] = [];
  let prev: number[] = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const row: number[] = [i];
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = query[i - 1] === word[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && query[i - 1] === word[j - 2] && query[i - 2] === word[j - 1]) {
        d = Math.min(d, prevPrev[j - 2]! + 1);
      }
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return Math.min(...prev);
}

/** Typos allowed in one query word: none under 4 letters, where one slip changes the word. */
function allowedTypos(queryWord: string): number {
  if (queryWord.length >= 8) return 2;
  if (queryWord.length >= 4) return 1;
  return 0;
}

/** Match quality, best first. */
const Tier = {
  ExactName: 0,
  NamePrefix: 1,
  NameWordPrefix: 2,
  PlaceWordPrefix: 3,
  Substring: 4,
  FuzzyName: 5,
  FuzzyPlace: 6,
} as const;
type Tier = (typeof Tier)[keyof typeof Tier];

interface Indexed {
  entry: GazetteerEntry;
  suggestion: PlaceSuggestion;
  resolved: ResolvedPlace;
  name: string;
  /** The name without spaces, so "eastlegon" or "kotobabi" typed run-together still match. */
  compactName: string;
  nameWords: string[];
  /** Name, area and city words together. */
  placeWords: string[];
  /** The same words as indexes into the vocabulary, for typo matching. */
  nameWordIds: number[];
  placeWordIds: number[];
}

interface Match {
  item: Indexed;
  tier: Tier;
  typos: number;
}

/** Joins address parts, skipping blanks and repeats ("Osu, Osu, Accra" reads as "Osu, Accra"). */
function joinDistinct(parts: string[]): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const part of parts) {
    const key = normalise(part);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(part.trim());
  }
  return kept.join(', ');
}

function everyWordIsPrefix(queryWords: string[], candidates: string[]): boolean {
  return queryWords.every((q) => candidates.some((w) => w.startsWith(q)));
}

const NO_MATCH = 255;

/** Fewest typos over each query word's best word among `wordIds`, or null if one has none. */
function fuzzyTypos(typosByWord: Uint8Array[], wordIds: number[]): number | null {
  let total = 0;
  for (const typos of typosByWord) {
    let best = NO_MATCH;
    for (const id of wordIds) best = Math.min(best, typos[id]!);
    if (best === NO_MATCH) return null;
    total += best;
  }
  return total;
}

/**
 * Offline place search over a bundled list of Ghana places: the fallback when the live
 * geocoder is down, and the whole of search in development and tests.
 */
export class GazetteerPlaces implements PlacesProvider {
  private readonly items: Indexed[];
  private readonly byId = new Map<string, Indexed>();
  /** Every distinct word of every place: typo distances are worked out once per word, not per place. */
  private readonly vocabulary: string[] = [];

  constructor(entries: readonly GazetteerEntry[] = bundled as GazetteerEntry[]) {
    const wordIds = new Map<string, number>();
    const idOf = (word: string): number => {
      let id = wordIds.get(word);
      if (id === undefined) {
        id = this.vocabulary.length;
        this.vocabulary.push(word);
        wordIds.set(word, id);
      }
      return id;
    };
    this.items = entries.map((entry) => {
      const name = normalise(entry.name);
      const nameWords = words(entry.name);
      const placeWords = [...new Set([...nameWords, ...words(entry.area), ...words(entry.city)])];
      return {
        entry,
        suggestion: { place_id: entry.id, title: entry.name, subtitle: joinDistinct([entry.area, entry.city]) },
        resolved: { address: joinDistinct([entry.name, entry.area, entry.city]), lat: entry.lat, lng: entry.lng },
        name,
        compactName: name.replace(/ /g, ''),
        nameWords,
        placeWords,
        nameWordIds: nameWords.map(idOf),
        placeWordIds: placeWords.map(idOf),
      };
    });
    for (const item of this.items) {
      if (this.byId.has(item.entry.id)) throw new Error(`duplicate gazetteer id: ${item.entry.id}`);
      this.byId.set(item.entry.id, item);
    }
  }

  async autocomplete(query: string, limit: number): Promise<PlaceSuggestion[]> {
    return this.search(query, limit);
  }

  async resolve(placeId: string): Promise<ResolvedPlace | null> {
    const item = this.byId.get(placeId);
    return item ? { ...item.resolved } : null;
  }

  /** Synchronous core of `autocomplete`. */
  search(query: string, limit: number): PlaceSuggestion[] {
    const q = normalise(query);
    const max = Math.floor(limit);
    if (q === '' || !(max > 0)) return [];
    const queryWords = q.split(' ');
    const compactQuery = q.replace(/ /g, '');

    const matches: Match[] = [];
    const unmatched: Indexed[] = [];
    for (const item of this.items) {
      const tier = exactTier(item, q, queryWords, compactQuery);
      if (tier === null) unmatched.push(item);
      else matches.push({ item, tier, typos: 0 });
    }
    // Typo matching is the slow part; it is only worth it when exact matches leave room.
    if (matches.length < max && unmatched.length > 0) {
      const typosByWord = queryWords.map((w) => this.typosPerWord(w));
      for (const item of unmatched) {
        const nameTypos = fuzzyTypos(typosByWord, item.nameWordIds);
        if (nameTypos !== null) {
          matches.push({ item, tier: Tier.FuzzyName, typos: nameTypos });
          continue;
        }
        const placeTypos = fuzzyTypos(typosByWord, item.placeWordIds);
        if (placeTypos !== null) matches.push({ item, tier: Tier.FuzzyPlace, typos: placeTypos });
      }
    }

    matches.sort(
      (a, b) =>
        a.tier - b.tier ||
        a.typos - b.typos ||
        a.item.entry.name.length - b.item.entry.name.length ||
        a.item.name.localeCompare(b.item.name) ||
        a.item.entry.id.localeCompare(b.item.entry.id),
    );
    return matches.slice(0, max).map((m) => ({ ...m.item.suggestion }));
  }

  /** Typos from `queryWord` to a prefix of each vocabulary word; NO_MATCH past the allowance. */
  private typosPerWord(queryWord: string): Uint8Array {
    const allowed = allowedTypos(queryWord);
    const typos = new Uint8Array(this.vocabulary.length).fill(NO_MATCH);
    this.vocabulary.forEach((word, id) => {
      if (word.startsWith(queryWord)) typos[id] = 0;
      else if (allowed > 0) {
        const d = prefixDistance(queryWord, word, allowed);
        if (d <= allowed) typos[id] = d;
      }
    });
    return typos;
  }
}

function exactTier(item: Indexed, q: string, queryWords: string[], compactQuery: string): Tier | null {
  if (item.name === q) return Tier.ExactName;
  if (item.name.startsWith(q)) return Tier.NamePrefix;
  if (everyWordIsPrefix(queryWords, item.nameWords)) return Tier.NameWordPrefix;
  if (everyWordIsPrefix(queryWords, item.placeWords)) return Tier.PlaceWordPrefix;
  if (item.name.includes(q) || item.compactName.includes(compactQuery)) return Tier.Substring;
  return null;
}
