import { VersionedViewCache } from '../../api/view-cache';

describe('VersionedViewCache', () => {
  it('answers only for the version the bytes were built from', () => {
    const cache = new VersionedViewCache(10, 60_000);
    cache.set('a', 'v1', '{"status":"pending"}');
    expect(cache.get('a', 'v1')?.toString()).toBe('{"status":"pending"}');
    expect(cache.get('a', 'v2')).toBeUndefined();
    expect(cache.get('b', 'v1')).toBeUndefined();
    cache.set('a', 'v2', '{"status":"accepted"}');
    expect(cache.get('a', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v2')?.toString()).toBe('{"status":"accepted"}');
  });

  it('returns the bytes it keeps, as UTF-8', () => {
    const cache = new VersionedViewCache(10, 60_000);
    cache.set('a', 'v1', '{"recipient_name":"Ɛfua K."}');
    expect(cache.get('a', 'v1')?.equals(Buffer.from('{"recipient_name":"Ɛfua K."}', 'utf8'))).toBe(true);
  });

  it('forgets bytes older than its age limit', async () => {
    const cache = new VersionedViewCache(10, 20);
    cache.set('a', 'v1', '{}');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('a', 'v1')).toBeUndefined();
  });

  it('lets go of answers too old to send as new ones come, so a busy day does not stay in memory', async () => {
    const cache = new VersionedViewCache(10_000, 20);
    for (let i = 0; i < 100; i++) cache.set(`delivery-${i}`, 'v', '{"status":"delivered"}');
    expect(cache.size).toBe(100);
    await new Promise((resolve) => setTimeout(resolve, 40));
    cache.set('delivery-new', 'v', '{"status":"pending"}');
    expect(cache.size).toBe(1);
    expect(cache.get('delivery-new', 'v')?.toString()).toBe('{"status":"pending"}');
  });

  it('keeps at most its size, dropping the longest-kept first', () => {
    const cache = new VersionedViewCache(2, 60_000);
    cache.set('a', 'v', 'A');
    cache.set('b', 'v', 'B');
    cache.set('a', 'v', 'A2'); // refreshed: now the newest
    cache.set('c', 'v', 'C');
    expect(cache.get('b', 'v')).toBeUndefined();
    expect(cache.get('a', 'v')?.toString()).toBe('A2');
    expect(cache.get('c', 'v')?.toString()).toBe('C');
  });
});
