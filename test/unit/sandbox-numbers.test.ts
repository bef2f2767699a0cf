import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GatewayUnavailableError, PROVIDERS } from '../../integrations/mobile-money/gateway';
import { NETWORK_PREFIXES } from '../../integrations/mobile-money/networks';
import { SANDBOX_HOLDER_NAME, SandboxNetwork, type SandboxLedger } from '../../integrations/mobile-money/sandbox';
import { isGhanaPhone } from '../../domain/phone';

// Name checks and outages never reach the ledger, so no database is needed for them.
const notInThisTest = (): never => {
  throw new Error('the ledger is not part of this test');
};
const noLedger: SandboxLedger = { record: notInThisTest, find: notInThisTest, settleIfDue: notInThisTest };
const sandbox = new SandboxNetwork({ ledger: noLedger, confirmMs: 0 });

const DOC = readFileSync(path.join(__dirname, '../../docs/sandbox-mobile-money.md'), 'utf8');

/** The numbers the document gives as examples, each with what it says of it and its row's network. */
const EXAMPLES = [...DOC.matchAll(/`(\+233\d{9})` \(([^)]+)\)/g)].map((m) => {
  const phone = m[1] as string;
  const row = DOC.split('\n').find((line) => line.includes(phone)) ?? '';
  return { phone, says: m[2] as string, provider: PROVIDERS.find((p) => row.startsWith(`| \`${p}\``)) };
});
/** The last four digits that make a number behave as the document says, other than paying. */
const SPECIAL_ENDINGS: Record<string, string> = {
  'does not exist': '0000',
  'Ama Serwaa': '1111',
  declined: '2222',
  'no answer': '3333',
};
const MISSING = EXAMPLES.filter(({ says }) => says === 'does not exist');
const SPECIAL = EXAMPLES.filter(({ says }) => says !== 'does not exist' && Object.hasOwn(SPECIAL_ENDINGS, says));
const PAYING = EXAMPLES.filter((example) => !MISSING.includes(example) && !SPECIAL.includes(example));

describe('the sandbox network’s test numbers', () => {
  it.each(PROVIDERS.flatMap((provider) => NETWORK_PREFIXES[provider].map((prefix) => [prefix, provider] as const)))(
    'places numbers starting +233%s… on %s',
    async (prefix, provider) => {
      await expect(sandbox.resolve(provider, `+233${prefix}1230001`)).resolves.toEqual({ exists: true, provider, accountName: null });
    },
  );

  it('knows no number ending in 0000, nor one outside every network’s range', async () => {
    await expect(sandbox.resolve('network_a', '+233241230000')).resolves.toEqual({ exists: false });
    await expect(sandbox.resolve('network_b', '+233500000000')).resolves.toEqual({ exists: false });
    await expect(sandbox.resolve('network_a', '+233281230001')).resolves.toEqual({ exists: false });
  });

  it('holds numbers ending in 1111 under the name Ama Serwaa, on every network', async () => {
    expect(SANDBOX_HOLDER_NAME).toBe('Ama Serwaa');
    for (const phone of ['+233241231111', '+233201231111', '+233571231111']) {
      await expect(sandbox.resolve('network_a', phone)).resolves.toMatchObject({ exists: true, accountName: 'Ama Serwaa' });
    }
  });

  it('answers with the number’s own network whatever provider is asked, so a mismatch can be refused', async () => {
    await expect(sandbox.resolve('network_a', '+233201234567')).resolves.toMatchObject({ provider: 'network_b' });
  });

  it('does not answer a debit of a number ending in 3333', async () => {
    await expect(
      sandbox.debit({ reference: 'r', provider: 'network_a', phone: '+233241233333', amountPesewas: 100 }),
    ).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it('documents at least ten example numbers', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(MISSING)('documents $phone as a number that does not exist', async ({ phone, provider }) => {
    await expect(sandbox.resolve(provider ?? 'network_a', phone)).resolves.toEqual({ exists: false });
  });

  it.each(SPECIAL)('documents $phone ($says) on its network, with the ending that behaves so', async ({ phone, says, provider }) => {
    const resolved = await sandbox.resolve(provider ?? 'network_a', phone);
    expect({ valid: isGhanaPhone(phone), provider: resolved.exists && resolved.provider }).toEqual({ valid: true, provider });
    expect(phone.slice(-4)).toBe(SPECIAL_ENDINGS[says]);
  });

  it.each(PAYING)(
    'documents $phone ($says) on its network as a number that pays',
    async ({ phone, says, provider }) => {
      const resolved = await sandbox.resolve(provider ?? 'network_a', phone);
      expect({ valid: isGhanaPhone(phone), provider: resolved.exists && resolved.provider }).toEqual({ valid: true, provider });
      expect({ says, special: Object.values(SPECIAL_ENDINGS).includes(phone.slice(-4)) }).toEqual({ says: 'paid', special: false });
    },
  );
});
