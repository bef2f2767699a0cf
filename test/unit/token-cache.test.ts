import { TokenCache } from '../../api/middleware/token-cache';

describe('TokenCache', () => {
  it('trusts a credential until its time is up, then asks again', async () => {
    const cache = new TokenCache<{ id: string }>(30);
    cache.set('h1', { id: 'k1' });
    expect(cache.get('h1')).toEqual({ id: 'k1' });
    expect(cache.get('h2')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cache.get('h1')).toBeUndefined();
  });

  it('never trusts a credential past its own expiry, however long the cache would keep it', async () => {
    const cache = new TokenCache<{ id: string }>(60_000);
    cache.set('expiring', { id: 'r1' }, Date.now() + 30);
    cache.set('lasting', { id: 'r2' }, Date.now() + 60_000);
    expect(cache.get('expiring')).toEqual({ id: 'r1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cache.get('expiring')).toBeUndefined();
    expect(cache.get('lasting')).toEqual({ id: 'r2' });
    cache.clear();
    expect(cache.get('lasting')).toBeUndefined();
  });

  it('drops every credential a revocation names, and only those', () => {
    const cache = new TokenCache<{ keyId: string }>(60_000);
    cache.set('h1', { keyId: 'revoked' });
    cache.set('h2', { keyId: 'revoked' });
    cache.set('h3', { keyId: 'kept' });
    cache.deleteWhere((auth) => auth.keyId === 'revoked');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h3')).toEqual({ keyId: 'kept' });
  });

  it('starts over when a burst of credentials would grow it past its size', () => {
    const cache = new TokenCache<number>(60_000, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBe(3);
  });
});
