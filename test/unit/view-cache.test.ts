import { VersionedViewCache, keep, type Kept } from '../../api/view-cache';

const limits = { entries: 10, bytes: 1_000_000, idleMs: 60_000 };
const kept = (status: string) => keep({ view: { status } });

describe('VersionedViewCache', () => {
  it('answers only for the version the answer was built from', () => {
    const cache = new VersionedViewCache(limits);
    const pending = kept('pending');
    const accepted = kept('accepted');
    cache.set('a', 'v1', pending);
    expect(cache.get('a', 'v1')).toBe(pending);
    expect(cache.get('a', 'v2')).toBeUndefined();
    expect(cache.get('b', 'v1')).toBeUndefined();
    cache.set('a', 'v2', accepted);
    expect(cache.get('a', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v2')).toBe(accepted);
  });

  it('keeps an answer as long as it is read, and lets go of one nobody read for its idle limit', () => {
    let clock = 0;
    const cache = new VersionedViewCache({ ...limits, idleMs: 60 }, () => clock);
    cache.set('polled', 'v', kept('in_transit'));
    cache.set('forgotten', 'v', kept('delivered'));
    for (let i = 0; i < 4; i++) {
      clock += 30;
      expect(cache.get('polled', 'v')).toBeDefined();
    }
    expect(cache.holds('polled')).toBe(true);
    expect(cache.holds('forgotten')).toBe(false);
    cache.set('new', 'v', kept('pending'));
    expect(cache.size).toBe(2);
    expect(cache.get('forgotten', 'v')).toBeUndefined();
    expect(cache.get('polled', 'v')).toBeDefined();
  });

  it('keeps at most its number of answers, dropping the one read longest ago first', () => {
    const cache = new VersionedViewCache<Kept<{ view: { status: string } }>>({ ...limits, entries: 2 });
    cache.set('a', 'v', kept('A'));
    cache.set('b', 'v', kept('B'));
    cache.get('a', 'v'); // read: now the most recent
    cache.set('c', 'v', kept('C'));
    expect(cache.get('b', 'v')).toBeUndefined();
    expect(cache.get('a', 'v')?.settled.view.status).toBe('A');
    expect(cache.get('c', 'v')?.settled.view.status).toBe('C');
  });

  it('keeps at most its bytes of JSON, counting an answer kept again once', () => {
    const one = kept('pending');
    const cache = new VersionedViewCache({ ...limits, bytes: one.bytes * 3 });
    for (const key of ['a', 'b', 'c']) cache.set(key, 'v', kept('pending'));
    cache.set('c', 'v2', kept('pending'));
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(one.bytes * 3);
    cache.set('d', 'v', kept('pending'));
    expect(cache.size).toBe(3);
    expect(cache.get('a', 'v')).toBeUndefined();
  });

  it('digests the settled JSON, so equal answers built by any process have the same digest', () => {
    expect(kept('pending').digest).toBe(kept('pending').digest);
    expect(kept('pending').digest).not.toBe(kept('accepted').digest);
    expect(kept('Ɛfua').bytes).toBe(JSON.stringify({ status: 'Ɛfua' }).length);
  });
});
