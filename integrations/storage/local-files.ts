import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { photoKeyOf, type PhotoStore } from './photo-store';

/** The offline default: files under `.data/uploads`. */
export class LocalFilePhotos implements PhotoStore {
  constructor(private readonly dir: string) {}

  async put(name: string, bytes: Readable): Promise<string> {
    const key = photoKeyOf(name);
    await mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, key);
    try {
      await pipeline(bytes, createWriteStream(file));
    } catch (error) {
      // No half-written photo is left under a key that looks complete.
      await unlink(file).catch(() => undefined);
      throw error;
    }
    return key;
  }

  async get(key: string): Promise<Buffer | null> {
    if (!isKey(key)) return null;
    try {
      return await readFile(path.join(this.dir, key));
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isKey(key)) return;
    await rm(path.join(this.dir, key), { force: true });
  }
}

/** A key this store gave out: one file name in its folder, never a path out of it. */
function isKey(key: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(key) && key !== '.' && key !== '..';
}
