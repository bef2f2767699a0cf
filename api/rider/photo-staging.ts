import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';

/** How many leading bytes are kept to tell an image's type (WebP needs twelve). */
export const PHOTO_HEAD_BYTES = 12;

/** A multipart file as the staging storage leaves it on the request. */
export interface StagedUpload {
  fieldname: string;
  /** Bytes written: the upload parser stops the stream at PHOTO_MAX_BYTES (413). */
  size: number;
  /** The staged file; removed when the answer is sent, whatever happened to it. */
  path: string;
  /** The first bytes of the file, read as they passed, to check its type without reading it again. */
  head: Buffer;
}

function noop(): void {}

function removeQuietly(file: string): Promise<void> {
  return unlink(file).catch(() => undefined);
}

/**
 * Multer storage that streams each part to a file under `dir` as it arrives, so an upload holds
 * a few chunks of memory, not the whole photo. The file is staged, not stored: the route decides
 * (delivery, verification method, type) whether it becomes a photo, under what name.
 */
export function stagedPhotoStorage(dir: string): StorageEngine {
  return {
    _handleFile(req: Request, file, done) {
      const staged = path.join(dir, `${randomUUID()}.part`);
      let head = Buffer.alloc(0);
      let size = 0;
      const watch = new Transform({
        transform(chunk: Buffer, _encoding, next) {
          if (head.length < PHOTO_HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, PHOTO_HEAD_BYTES - head.length)]);
          size += chunk.length;
          next(null, chunk);
        },
      });
      const written = mkdir(dir, { recursive: true }).then(() => pipeline(file.stream, watch, createWriteStream(staged, { flags: 'wx' })));
      // Whatever the route did with it (kept, refused, or the client went away), the staged copy
      // goes once the answer is out; after the write settles, so an unfinished write is not left behind.
      req.res?.once('close', () => void written.then(noop, noop).then(() => removeQuietly(staged)));
      written.then(
        () => {
          const info = { path: staged, size, head };
          done(null, info);
        },
        (error: Error) => {
          void removeQuietly(staged);
          done(error);
        },
      );
    },
    _removeFile(_req, file, done) {
      void removeQuietly((file as Partial<StagedUpload>).path ?? '').then(() => done(null));
    },
  };
}
