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
  /** The link the message is about, logged when the message goes to a file (development). */
  link?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set. Without it, each message is written as a real
 * RFC 822 `.eml` file under MAIL_DIR and its link is logged, so sign-up works offline.
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
      await writeFile(file, info.message as Buffer);
      logger.info('Email written to a file (no SMTP_URL)', { to: message.to, subject: message.subject, file, link: message.link });
    },
  };
}
