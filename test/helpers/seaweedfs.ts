import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startSeaweedfs } from '../../scripts/lib/seaweedfs.mjs';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The settings that point the service's photo store at this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** How long a first build of SeaweedFS may take on a new machine, while the other suites run. */
export const SEAWEEDFS_BUILD_WAIT_MS = 15 * 60_000;

/** Waits for `npm test`'s build of SeaweedFS, under way beside the other suites on a new machine. */
async function builtSeaweedfs(): Promise<void> {
  const statusFile = process.env.TEST_SEAWEEDFS_STATUS;
  if (!statusFile) return;
  const deadline = Date.now() + SEAWEEDFS_BUILD_WAIT_MS;
  while (!existsSync(statusFile)) {
    if (Date.now() > deadline) throw new Error(`SeaweedFS was not built within ${SEAWEEDFS_BUILD_WAIT_MS / 60_000} minutes (see seaweedfs-build.log in the run folder)`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const status = readFileSync(statusFile, 'utf8').trim();
  if (status !== 'ok') throw new Error(`Building SeaweedFS ${status} (see seaweedfs-build.log in the run folder)`);
}

/**
 * A real S3-compatible server (SeaweedFS, built by `npm test`) of this test file's own, on free
 * loopback ports under the run's folder, with one identity and an empty bucket: requests and
 * presigned links are checked as a real store checks them.
 */
export async function startTestS3(): Promise<TestS3> {
  const binary = process.env.TEST_SEAWEEDFS;
  if (!binary) throw new Error('TEST_SEAWEEDFS is missing: run the photo-store tests through `npm test` (`npm test -- <file>`), which builds SeaweedFS');
  await builtSeaweedfs();
  const root = process.env.TEST_RUN_DIR ?? tmpdir();
  const dataDir = mkdtempSync(path.join(root, 'seaweedfs-'));
  const credentials = { accessKeyId: `test${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const bucket = `photos-${randomUUID().slice(0, 8)}`;
  // The gateway listens before its filer is ready: the store is ready once the bucket is made.
  const ready = async (endpoint: string): Promise<boolean> => {
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return true;
    } catch {
      return false;
    } finally {
      client.destroy();
    }
  };
  const start = startSeaweedfs as (options: object) => Promise<{ endpoint: string; stop: () => Promise<void> }>;
  const server = await start({ binary, dataDir, credentials, ready });
  return {
    endpoint: server.endpoint,
    bucket,
    ...credentials,
    env: {
      PHOTO_STORE: 's3',
      S3_ENDPOINT: server.endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
