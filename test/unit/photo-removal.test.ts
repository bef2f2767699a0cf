import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalFilePhotos } from '../../integrations/storage/local-files';

let root: string;
let photos: LocalFilePhotos;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'photos-'));
  photos = new LocalFilePhotos(path.join(root, 'uploads'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('removing a hand-over photo from the local folder', () => {
  it('deletes the file for good, and a second removal of it is no error', async () => {
    const key = await photos.put('delivery-final.png', Readable.from([Buffer.from('png bytes')]));
    expect(await photos.get(key)).toEqual(Buffer.from('png bytes'));

    await photos.delete(key);
    expect(await photos.get(key)).toBeNull();
    await expect(photos.delete(key)).resolves.toBeUndefined();
  });

  it('never reaches outside its folder, whatever key it is given', async () => {
    await photos.put('kept.png', Readable.from([Buffer.from('kept')]));
    await writeFile(path.join(root, 'outside.png'), 'outside');

    for (const key of ['../outside.png', '..', '.', '/etc/hostname', '']) await photos.delete(key);

    expect((await readdir(root)).sort()).toEqual(['outside.png', 'uploads']);
    expect(await photos.get('kept.png')).toEqual(Buffer.from('kept'));
  });
});
