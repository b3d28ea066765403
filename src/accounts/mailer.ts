import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/** Sends what accounts need by mail; without SMTP_URL it writes to the log instead. */
export type Mailer = { sendPasswordReset(email: string, token: string): Promise<void> };

export function createMailer(options: { smtpUrl?: string | undefined; from: string; logger: Logger }): Mailer {
  const text = (token: string) =>
    `Someone asked to reset the password of this sync-gateway admin account.\n\n` +
    `Reset token (valid for one hour, usable once): ${token}\n\n` +
    `Enter it under "Set a new password" in the admin console (/admin/?reset=<token>), or send it with\n` +
    `POST /api/v1/auth/password-reset/confirm {"token": "...", "password": "..."}.\n` +
    `If you did not ask for this, ignore this message.`;
  if (!options.smtpUrl) {
    return {
      async sendPasswordReset(email, token) {
        options.logger.warn({ email, resetToken: token }, 'no SMTP_URL configured: password reset token written to the log');
      },
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async sendPasswordReset(email, token) {
      await transport.sendMail({ from: options.from, to: email, subject: 'sync-gateway password reset', text: text(token) });
    },
  };
}
