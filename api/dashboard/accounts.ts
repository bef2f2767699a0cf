import { createHash, randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../config/logger';
import type { Settings } from '../../config/settings';
import { createPartner } from '../../db/accounts';
import { isUniqueViolation } from '../../db/errors';
import type { Mailer } from '../../integrations/email/mailer';
import { hashPassword, verifyPassword } from './passwords';

/**
 * Sign-up, email confirmation and log-in. Each answers the same way whether or not an account
 * uses the email address, so none of them tells a stranger who has an account.
 */

export const CONFIRM_PURPOSE = 'confirm_email';

export interface Viewer {
  partnerId: string;
  email: string;
  businessName: string;
  confirmed: boolean;
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createAccountService(deps: { orm: MikroORM; settings: Settings; logger: Logger; mailer: Mailer }) {
  const { orm, settings, logger, mailer } = deps;
  // Compared against when no account matches, so a wrong email costs the same time as a wrong password.
  let dummyHash: Promise<string> | null = null;

  async function issueConfirmLink(partnerId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await orm.em
      .fork()
      .execute(
        `insert into email_tokens (token_hash, partner_id, purpose, expires_at) values (?, ?, ?, now() + ? * interval '1 hour')`,
        [tokenHash(token), partnerId, CONFIRM_PURPOSE, settings.emailConfirmHours],
      );
    return `${settings.siteUrl}/dashboard/confirm?token=${token}`;
  }

  function hoursText(): string {
    const hours = settings.emailConfirmHours;
    return hours >= 1 ? `${Math.round(hours)} hour${Math.round(hours) === 1 ? '' : 's'}` : `${Math.max(1, Math.round(hours * 60))} minutes`;
  }

  async function sendConfirmation(partner: { partnerId: string; email: string; businessName: string }): Promise<void> {
    const link = await issueConfirmLink(partner.partnerId);
    await deliver({
      to: partner.email,
      subject: 'Confirm your email address',
      link,
      text: [
        `Hello ${partner.businessName},`,
        '',
        'Confirm your email address for the Partner Delivery dashboard by opening this link:',
        '',
        link,
        '',
        `The link works once and expires in ${hoursText()}. Once your address is confirmed you can create API keys.`,
        'If you did not sign up, ignore this email.',
      ].join('\n'),
    });
  }

  /** A failed send is logged, not shown: the answer must not depend on the account. */
  async function deliver(message: Parameters<Mailer['send']>[0]): Promise<void> {
    try {
      await mailer.send(message);
    } catch (error) {
      logger.error('Email could not be sent', { to: message.to, subject: message.subject, error: error instanceof Error ? error.message : String(error) });
    }
  }

  async function findByEmail(email: string) {
    const [row] = await orm.em
      .fork()
      .execute<{ id: string; email: string; business_name: string; password_hash: string | null; confirmed: boolean }[]>(
        `select id, email, business_name, password_hash, email_confirmed_at is not null as confirmed
         from partners where lower(email) = lower(?)`,
        [email],
      );
    return row ?? null;
  }

  return {
    /**
     * New address: an account and a confirmation link, and its id is returned. Known address: an
     * email to its owner instead, and null.
     */
    async signUp(input: { email: string; password: string; businessName: string }): Promise<string | null> {
      const passwordHash = await hashPassword(input.password);
      const existing = await findByEmail(input.email);
      if (!existing) {
        try {
          const created = await createPartner(orm.em.fork(), { email: input.email, businessName: input.businessName, passwordHash });
          await sendConfirmation({ partnerId: created.partnerId, email: created.email, businessName: input.businessName });
          return created.partnerId;
        } catch (error) {
          // Two sign-ups for one address at once: the loser is treated as a known address.
          if (!isUniqueViolation(error)) throw error;
        }
      }
      const owner = existing ?? (await findByEmail(input.email));
      if (!owner) return null;
      if (!owner.confirmed) {
        await sendConfirmation({ partnerId: owner.id, email: owner.email, businessName: owner.business_name });
        return null;
      }
      await deliver({
        to: owner.email,
        subject: 'Someone tried to sign up with your email address',
        text: [
          `Hello ${owner.business_name},`,
          '',
          'Someone (perhaps you) tried to create a Partner Delivery account with this email address, which already has one.',
          'Nothing was changed. To use your account, log in:',
          '',
          `${settings.siteUrl}/dashboard/login`,
        ].join('\n'),
      });
      return null;
    },

    /** Single use: the first visit confirms (and names the account), later visits and expired links find nothing. */
    async confirm(token: string): Promise<string | null> {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
      return orm.em.fork().transactional(async (em) => {
        const [used] = await em.execute<{ partner_id: string }[]>(
          `update email_tokens set used_at = now()
           where token_hash = ? and purpose = ? and used_at is null and expires_at > now() returning partner_id`,
          [tokenHash(token), CONFIRM_PURPOSE],
        );
        if (!used) return null;
        await em.execute('update partners set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = ?', [used.partner_id]);
        // The other links sent to this address have nothing left to do.
        await em.execute('update email_tokens set used_at = now() where partner_id = ? and purpose = ? and used_at is null', [
          used.partner_id,
          CONFIRM_PURPOSE,
        ]);
        return used.partner_id;
      });
    },

    /** Sends a fresh link when an unconfirmed account uses the address; otherwise nothing, silently. */
    async resend(email: string): Promise<void> {
      const owner = await findByEmail(email);
      if (owner && !owner.confirmed) await sendConfirmation({ partnerId: owner.id, email: owner.email, businessName: owner.business_name });
    },

    /** The partner id when the email and password match an account; null otherwise, in about the same time. */
    async authenticate(email: string, password: string): Promise<string | null> {
      const owner = await findByEmail(email);
      if (!owner?.password_hash) {
        dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
        await verifyPassword(await dummyHash, password);
        return null;
      }
      return (await verifyPassword(owner.password_hash, password)) ? owner.id : null;
    },

    async viewer(partnerId: string): Promise<Viewer | null> {
      const [row] = await orm.em
        .fork()
        .execute<{ id: string; email: string; business_name: string; confirmed: boolean }[]>(
          'select id, email, business_name, email_confirmed_at is not null as confirmed from partners where id = ?',
          [partnerId],
        );
      return row ? { partnerId: row.id, email: row.email, businessName: row.business_name, confirmed: row.confirmed } : null;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
