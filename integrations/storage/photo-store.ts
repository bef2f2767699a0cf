import type { Readable } from 'node:stream';

/** The key a store keeps `name` under: the name with anything but letters, digits, `.`, `_` and `-` made `_`. */
export function photoKeyOf(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Where hand-over photos are kept. */
export interface PhotoStore {
  /** Stores the bytes as they are read (a photo is up to 5 MB) and returns a key to find them again (`photoKeyOf(name)`). */
  put(name: string, bytes: Readable, contentType: string): Promise<string>;
  get(key: string): Promise<Buffer | null>;
  /** Removes a photo; one already gone is no error. */
  delete(key: string): Promise<void>;
  /**
   * A link that serves the photo to whoever holds it for `seconds`, signed by the store itself
   * (an S3 presigned GET). A store without one (local files) is served through the API's own
   * signed route (api/proof-photo-links.ts).
   */
  signedUrl?(key: string, seconds: number): Promise<string>;
  /** The origin those links point at, for the dashboard's image policy. */
  readonly linkOrigin?: string;
}
