import { createWriteStream } from 'node:fs';
import { mkdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PhotoStore } from './photo-store';

/** The offline default: files under `.data/uploads`. */
export class LocalFilePhotos implements PhotoStore {
  constructor(private readonly dir: string) {}

  async put(name: string, bytes: Readable): Promise<string> {
    const key = name.replace(/[^A-Za-z0-9._-]/g, '_');
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

  async remove(key: string): Promise<void> {
    // A key that is no file name of ours names nothing here: never a path outside the folder.
    if (!isKey(key)) return;
    await unlink(path.join(this.dir, key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/** A key as `put` makes them: one file name in the folder. */
function isKey(key: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(key) && key !== '.' && key !== '..';
}
