import type { Settings } from '../../config/settings';
import { LocalFilePhotos } from './local-files';
import type { PhotoStore } from './photo-store';
import { S3Photos } from './s3-photos';

/** Where hand-over photos are kept, as PHOTO_STORE says: files under UPLOADS_DIR, or an S3 bucket. */
export function selectPhotoStore(settings: Settings): PhotoStore {
  if (settings.photoStore === 'local') return new LocalFilePhotos(settings.uploadsDir);
  const { s3AccessKeyId, s3SecretAccessKey } = settings;
  return new S3Photos({
    // loadSettings refuses s3 without a bucket, and one of the two keys without the other.
    bucket: settings.s3Bucket as string,
    region: settings.s3Region,
    endpoint: settings.s3Endpoint,
    publicUrl: settings.s3PublicUrl,
    forcePathStyle: settings.s3ForcePathStyle,
    credentials: s3AccessKeyId && s3SecretAccessKey ? { accessKeyId: s3AccessKeyId, secretAccessKey: s3SecretAccessKey } : undefined,
  });
}
