import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { photoKeyOf, type PhotoStore } from './photo-store';

export interface S3PhotosOptions {
  bucket: string;
  region: string;
  /** The S3 API this process talks to; unset for AWS S3 itself. */
  endpoint?: string;
  /** Where partners open signed links; the endpoint when unset. */
  publicUrl?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Hand-over photos in an S3-compatible bucket, so every API process on every host reads the
 * same ones. Partners fetch a photo from the store itself, by a presigned GET.
 */
export class S3Photos implements PhotoStore {
  private readonly client: S3Client;
  /** Signs links only (no request is sent through it), for the address partners reach. */
  private readonly signer: S3Client;

  constructor(private readonly options: S3PhotosOptions) {
    const config = (endpoint: string | undefined): S3ClientConfig => ({
      region: options.region,
      endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      // A checksum header on every upload is newer than most S3-compatible servers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.client = new S3Client(config(options.endpoint));
    this.signer = new S3Client(config(options.publicUrl ?? options.endpoint));
  }

  /** The origin signed links point at, for the dashboard's image policy. */
  get linkOrigin(): string {
    const base = this.options.publicUrl ?? this.options.endpoint ?? `https://s3.${this.options.region}.amazonaws.com`;
    const url = new URL(base);
    if (!this.options.forcePathStyle) url.hostname = `${this.options.bucket}.${url.hostname}`;
    return url.origin;
  }

  async put(name: string, bytes: Readable, contentType: string): Promise<string> {
    const key = photoKeyOf(name);
    // S3 wants the length before the body; a photo is at most 5 MB and the API reads a bounded
    // number at once (UPLOADS_MAX_CONCURRENT), so it is read whole first.
    const body = Buffer.concat(await bytes.toArray());
    await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: body, ContentType: contentType }));
    return key;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : null;
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers a delete of a missing key as done.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  signedUrl(key: string, seconds: number): Promise<string> {
    return getSignedUrl(this.signer, new GetObjectCommand({ Bucket: this.options.bucket, Key: key }), { expiresIn: Math.max(1, Math.round(seconds)) });
  }

  close(): void {
    this.client.destroy();
    this.signer.destroy();
  }
}
