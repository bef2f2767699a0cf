import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PhotoStore } from './photo-store';

/** The offline default: files under `.data/uploads`. */
export class LocalFilePhotos implements PhotoStore {
  constructor(private readonly dir: string) {}

  async put(name: string, bytes: Buffer): Promise<string> {
    const key = name.replace(/[^A-Za-z0-9._-]/g, '_');
    await mkdir(this.dir, { recursive: true });
    await writeFile(path.join(this.dir, key), bytes);
    return key;
  }

  async get(key: string): Promise<Buffer | null> {
    if (!/^[A-Za-z0-9._-]+$/.test(key)) return null;
    try {
      return await readFile(path.join(this.dir, key));
    } catch {
      return null;
    }
  }
}
