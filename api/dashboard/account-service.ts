import { createHash, randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../config/logger';
import type { Settings } from '../../config/settings';
import * as accounts from '../../db/accounts';
import { isUniqueViolation } from '../../db/errors';
import { endPartnerSessions } from '../../db/sessions';
import type { Mailer } from '../../integrations/email/mailer';
import type { Viewer } from '../../web/dashboard/layout';
import { hashPassword, verifyPassword } from './passwords';

/**
 * Sign-up, email confirmation, log-in and passwords. Each answers the same way whether or not an
 * account uses the email address, so none of them tells a stranger who has an account.
 */

/** A sign-up that made or replaced a pending account: its id, and which sign-up of it this was (1 for the first). */
export interface SignUp {
  partnerId: string;
  number: number;
}

/** What the confirmation page needs to know of a link before it is used. */
export interface PendingConfirmation {
  partnerId: string;
  email: string;
  businessName: string;
  /** The number of the account's latest sign-up: the one this link confirms. */
  signUpNumber: number;
  /** Signed up for more than once before confirming: one click confirms only where the latest sign-up was made. */
  contested: boolean;
}

export const CONFIRM_PURPOSE = 'confirm_email';
export const RESET_PURPOSE = 'reset_password';
const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createAccountService(deps: { orm: MikroORM; settings: Settings; logger: Logger; mailer: Mailer }) {
  const { orm, settings, logger, mailer } = deps;
  // Compared against when no account matches, so a wrong email costs the same time as a wrong password.
  let dummyHash: Promise<string> | null = null;

  async function issueConfirmLink(partnerId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await accounts.issueEmailToken(orm.em.fork(), {
      tokenHash: tokenHash(token),
      partnerId,
      purpose: CONFIRM_PURPOSE,
      hours: settings.emailConfirmHours,
    });
    return `${settings.siteUrl}/dashboard/confirm?token=${token}`;
  }

  function hoursText(hours: number): string {
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
        'To confirm your email address for the Partner Delivery dashboard, open this link and press the button on its page:',
        '',
        link,
        '',
        `The link works once and expires in ${hoursText(settings.emailConfirmHours)}. Once your address is confirmed you can create API keys.`,
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

  const findByEmail = (email: string) => accounts.findPartnerByEmail(orm.em.fork(), email);

  async function sendReset(owner: { id: string; email: string; business_name: string }): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    await accounts.issueEmailToken(orm.em.fork(), {
      tokenHash: tokenHash(token),
      partnerId: owner.id,
      purpose: RESET_PURPOSE,
      hours: settings.passwordResetMinutes / 60,
    });
    const link = `${settings.siteUrl}/dashboard/reset-password?token=${token}`;
    await deliver({
      to: owner.email,
      subject: 'Reset your password',
      link,
      text: [
        `Hello ${owner.business_name},`,
        '',
        'Someone (perhaps you) asked to reset the password of your Partner Delivery account. To choose a new one, open this link:',
        '',
        link,
        '',
        `The link works once and expires in ${hoursText(settings.passwordResetMinutes / 60)}. Setting a new password logs out every browser, then shows the account's API keys so you can revoke any you do not know.`,
        'If you did not ask, ignore this email: your password stays as it is.',
      ].join('\n'),
    });
  }

  return {
    /**
     * New address: an account and a confirmation link, and its id is returned. Unconfirmed
     * address: this sign-up's password and name replace the pending ones, older links stop
     * working and a new one is sent, so whoever reads the mailbox confirms the account whose
     * password they chose (a stranger who signed up first with the address keeps nothing); the
     * account is contested from then on, so that link, opened anywhere but this browser, asks its
     * reader for a password rather than confirming this one (an owner who signed up first keeps
     * the account too); its id is returned. Confirmed address: an email to its owner instead, and
     * null. The number says which sign-up of the account this was.
     */
    async signUp(input: { email: string; password: string; businessName: string }): Promise<SignUp | null> {
      const passwordHash = await hashPassword(input.password);
      const existing = await findByEmail(input.email);
      if (!existing) {
        try {
          const created = await accounts.createPartner(orm.em.fork(), { email: input.email, businessName: input.businessName, passwordHash });
          await sendConfirmation({ partnerId: created.partnerId, email: created.email, businessName: input.businessName });
          return { partnerId: created.partnerId, number: 1 };
        } catch (error) {
          // Two sign-ups for one address at once: the loser is treated as a known address.
          if (!isUniqueViolation(error)) throw error;
        }
      }
      const owner = existing ?? (await findByEmail(input.email));
      if (!owner) return null;
      if (!owner.confirmed) {
        const replaced = await accounts.replacePendingSignUp(orm.em.fork(), {
          partnerId: owner.id,
          passwordHash,
          businessName: input.businessName,
          purpose: CONFIRM_PURPOSE,
        });
        if (replaced !== null) {
          // Browsers logged in with the replaced password, or holding its sign-up, lose the account.
          await endPartnerSessions(orm.em.fork(), owner.id);
          await sendConfirmation({ partnerId: owner.id, email: owner.email, businessName: input.businessName.trim() });
          return { partnerId: owner.id, number: replaced };
        }
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

    /**
     * Sends a reset link when an account uses the address, and nothing otherwise: the caller
     * answers the same either way.
     */
    async requestPasswordReset(email: string): Promise<void> {
      const owner = await findByEmail(email);
      if (!owner) return;
      // Not awaited: an SMTP round trip only for known addresses would tell by timing who has an account.
      void sendReset(owner).catch((error: unknown) =>
        logger.error('Password reset link could not be issued', { error: error instanceof Error ? error.message : String(error) }),
      );
    },

    /** Whether a reset link still works, so its page shows the form or says at once that it does not. */
    async resetLinkWorks(token: string): Promise<boolean> {
      return TOKEN.test(token) && accounts.emailTokenUsable(orm.em.fork(), tokenHash(token), RESET_PURPOSE);
    },

    /** Single use: sets the password and ends every session of the account. Its id, or null when the link does not work. */
    async resetPassword(token: string, password: string): Promise<string | null> {
      if (!TOKEN.test(token)) return null;
      return accounts.resetPassword(orm.em.fork(), { tokenHash: tokenHash(token), purpose: RESET_PURPOSE, passwordHash: await hashPassword(password) });
    },

    /** False when `current` is not the password; otherwise sets `next` and ends the partner's other sessions. */
    async changePassword(input: { partnerId: string; current: string; next: string; keepSid: string }): Promise<boolean> {
      const stored = await accounts.findPasswordHash(orm.em.fork(), input.partnerId);
      if (!stored || !(await verifyPassword(stored, input.current))) return false;
      await accounts.setPassword(orm.em.fork(), { partnerId: input.partnerId, passwordHash: await hashPassword(input.next), keepSid: input.keepSid });
      return true;
    },

    /**
     * The account a confirmation link would confirm, without using the link; null when it does not
     * work. An account is contested once a second sign-up replaced the pending one, until confirmed.
     */
    async pendingConfirmation(token: string): Promise<PendingConfirmation | null> {
      if (!TOKEN.test(token)) return null;
      const link = await accounts.findConfirmLink(orm.em.fork(), tokenHash(token), CONFIRM_PURPOSE);
      if (!link) return null;
      return {
        partnerId: link.partner_id,
        email: link.email,
        businessName: link.business_name,
        signUpNumber: link.sign_ups,
        contested: !link.confirmed && link.sign_ups > 1,
      };
    },

    /**
     * Single use: the first confirmation (a POST: opening the link confirms nothing) names the
     * account; later ones and expired links find nothing. A contested account's confirmation
     * revokes its keys and ends every session but `keepSid`, the confirming browser's.
     */
    async confirm(token: string, keepSid: string): Promise<string | null> {
      if (!TOKEN.test(token)) return null;
      return accounts.confirmEmail(orm.em.fork(), { tokenHash: tokenHash(token), purpose: CONFIRM_PURPOSE, keepSid });
    },

    /**
     * Single use, by a confirmation link: its reader (who holds the mailbox) chooses the password
     * and name, the address is confirmed, every key of the account is revoked and every session of
     * it ends, whoever's sign-up the link was sent for. The account's id, or null when the link
     * does not work.
     */
    async claimSignUp(input: { token: string; password: string; businessName: string }): Promise<string | null> {
      if (!TOKEN.test(input.token)) return null;
      return accounts.claimPendingSignUp(orm.em.fork(), {
        tokenHash: tokenHash(input.token),
        purpose: CONFIRM_PURPOSE,
        passwordHash: await hashPassword(input.password),
        businessName: input.businessName,
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
      const row = await accounts.findPartner(orm.em.fork(), partnerId);
      return row ? { partnerId: row.id, email: row.email, businessName: row.business_name, confirmed: row.confirmed } : null;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
