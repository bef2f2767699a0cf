import type { Readable } from 'node:stream';

/** Where hand-over photos are kept. */
export interface PhotoStore {
  /** Stores the bytes as they are read (a photo is up to 5 MB) and returns a key to find them again. */
  put(name: string, bytes: Readable, contentType: string): Promise<string>;
  get(key: string): Promise<Buffer | null>;
  /** Deletes the photo for good; one already gone is no error, so a retried removal succeeds. */
  remove(key: string): Promise<void>;
}
