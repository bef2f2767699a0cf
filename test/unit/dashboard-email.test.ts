import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Settings } from '../../config/settings';
import { EMAIL, isEmailAddress } from '../../api/dashboard/respond';
import { createMailer } from '../../integrations/email/mailer';
import { capturingLogger } from '../helpers/captured-logs';

describe('the dashboard email address check', () => {
  it('takes ordinary addresses and refuses malformed ones', () => {
    for (const ok of ['name@example.com', 'kofi.mensah+shop@mail.shop.com.gh']) expect(isEmailAddress(ok)).toBe(true);
    for (const bad of ['not-an-email', 'a@b', 'a@.b', 'a@b.', 'a@b..c', 'a b@c.d', 'a@b@c.d', `${'a'.repeat(250)}@b.cd`]) expect(isEmailAddress(bad)).toBe(false);
  });

  it('refuses a 200 kB run of dots at once, where a backtracking pattern took minutes', () => {
    // The pattern itself, without the length check in front, must stay linear.
    const started = Date.now();
    expect(EMAIL.test(`a@${'.'.repeat(200_000)}@`)).toBe(false);
    expect(EMAIL.test(`a@${'a.'.repeat(100_000)} `)).toBe(false);
    expect(EMAIL.test(`a@${'aaaa.'.repeat(40_000)}.`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('the offline mailer', () => {
  let mailDir: string;
  beforeEach(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'mailer-'));
  });
  afterEach(async () => {
    await rm(mailDir, { recursive: true, force: true });
  });

  async function send(nodeEnv: Settings['nodeEnv']): Promise<string> {
    const { logger, lines } = capturingLogger('debug', 'test');
    const settings = { nodeEnv, mailDir, mailFrom: 'dashboard@example.com', smtpUrl: undefined } as unknown as Settings;
    const link = 'https://example.com/dashboard/confirm?token=SECRET_TOKEN_1234567890';
    await createMailer(settings, logger).send({ to: 'owner@example.com', subject: 'Confirm', text: `Open ${link}`, link });
    expect(await readdir(mailDir)).toHaveLength(1);
    return lines.join('');
  }

  it('never logs the link in test or production', async () => {
    for (const nodeEnv of ['test', 'production'] as const) {
      const logged = await send(nodeEnv);
      expect(logged).toContain('Email written to a file');
      expect(logged).not.toContain('SECRET_TOKEN');
      await rm(mailDir, { recursive: true, force: true });
    }
  });

  it('logs the link in development, where no mailbox is at hand', async () => {
    expect(await send('development')).toContain('SECRET_TOKEN_1234567890');
  });
});
