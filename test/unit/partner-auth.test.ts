import type { MikroORM } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import { revokeApiKey } from '../../db/accounts';
import { generateSecret } from '../../domain/api-key';
import { partnerAuth } from '../../api/middleware/partner-auth';

/**
 * A database stand-in for the key lookup: the key is valid until `revoke` is called, and a
 * lookup can be held between reading its row and answering, as a busy connection would.
 */
function keyStore(keyId: string) {
  let revoked = false;
  let hold: Promise<void> | null = null;
  let lookups = 0;
  const em = {
    execute: async (sql: string) => {
      if (sql.startsWith('update api_keys set revoked_at')) {
        const rows = revoked ? [] : [{ id: keyId }];
        revoked = true;
        return rows;
      }
      if (sql.startsWith('update')) return [];
      lookups += 1;
      const rows = revoked ? [] : [{ id: keyId, partner_id: 'partner-1', mode: 'test', stale: false }];
      if (hold) await hold;
      return rows;
    },
  };
  return {
    orm: { em: { fork: () => em } } as unknown as MikroORM,
    em,
    lookups: () => lookups,
    holdLookups(): () => void {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return () => {
        hold = null;
        release();
      };
    },
  };
}

async function authenticate(orm: MikroORM, key: string): Promise<number> {
  const req = {
    get: (name: string) => (name.toLowerCase() === 'authorization' ? `Bearer ${key}` : undefined),
    headers: { authorization: `Bearer ${key}` },
    rawHeaders: ['Authorization', `Bearer ${key}`],
  } as unknown as Request;
  const res = { locals: {} } as unknown as Response;
  try {
    await partnerAuth(orm)(req, res, () => undefined);
    return 200;
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('partner key authentication', () => {
  it('refuses a key at once after its revocation, even when the revocation overtook a lookup of that key', async () => {
    const key = generateSecret('test');
    const store = keyStore('key-1');
    const release = store.holdLookups();
    const inFlight = authenticate(store.orm, key);
    await new Promise((resolve) => setImmediate(resolve));

    await revokeApiKey(store.em as never, 'partner-1', 'key-1');
    release();

    // The request that was already under way when the key was revoked goes through...
    expect(await inFlight).toBe(200);
    // ...but the next one is checked again, and refused.
    expect(await authenticate(store.orm, key)).toBe(401);
    expect(store.lookups()).toBe(2);
  });

  it('remembers a valid key, so a busy partner’s requests do not each ask the database', async () => {
    const key = generateSecret('test');
    const store = keyStore('key-2');
    expect(await authenticate(store.orm, key)).toBe(200);
    expect(await authenticate(store.orm, key)).toBe(200);
    expect(store.lookups()).toBe(1);
  });
});
