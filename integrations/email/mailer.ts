import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../../config/logger';
import type { Settings } from '../../config/settings';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The link the message is about, logged when the message goes to a file in development only. */
  link?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * The message nodemailer built, with its text written as is (`8bit`, which RFC 6152 mail and
 * every mail reader take) instead of quoted-printable: a line over 76 characters, as every
 * confirmation link is, would otherwise be cut with `=` and its `=` written `=3D`, and a developer
 * or a script reading the `.eml` file would find no link to open.
 */
function withTextAsWritten(built: Buffer, text: string): Buffer {
  const message = built.toString('utf8');
  const headers = message.slice(0, message.indexOf('\n\n')).replace(/^Content-Transfer-Encoding: .*$/im, 'Content-Transfer-Encoding: 8bit');
  return Buffer.from(`${headers}\n\n${text.replace(/\r\n/g, '\n').replace(/\n?$/, '\n')}`, 'utf8');
}

/**
 * SMTP through nodemailer when SMTP_URL is set. Without it, each message is written as a real
 * RFC 822 `.eml` file under MAIL_DIR, its text readable as is, so sign-up works offline; in
 * development only its link is logged too. A confirmation or reset link is a credential, and
 * logs in test or production reach log stores and people who must not hold one.
 */
export function createMailer(settings: Settings, logger: Logger): Mailer {
  if (settings.smtpUrl) {
    const transport = nodemailer.createTransport(settings.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({ from: settings.mailFrom, to: message.to, subject: message.subject, text: message.text });
        logger.info('Email sent', { to: message.to, subject: message.subject });
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: settings.mailFrom, to: message.to, subject: message.subject, text: message.text });
      await mkdir(settings.mailDir, { recursive: true });
      const file = path.join(settings.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, withTextAsWritten(info.message as Buffer, message.text));
      const link = settings.nodeEnv === 'development' && message.link ? { link: message.link } : {};
      logger.info('Email written to a file (no SMTP_URL)', { to: message.to, subject: message.subject, file, ...link });
    },
  };
}
