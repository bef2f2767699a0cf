/** Where hand-over photos are kept. */
export interface PhotoStore {
  /** Stores the bytes and returns a key to find them again. */
  put(name: string, bytes: Buffer, contentType: string): Promise<string>;
  get(key: string): Promise<Buffer | null>;
}
