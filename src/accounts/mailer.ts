import type { Transporter } from 'nodemailer';
import type { Logger } from '../lib/logger';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** SMTP when SMTP_URL is set; otherwise the mail is written to the log, marked for development only. */
export function createMailer({ smtpUrl, from, logger }: { smtpUrl?: string; from: string; logger: Logger }): Mailer {
  if (!smtpUrl) {
    return {
      async send(mail) {
        logger.warn(
          { mail_to: mail.to, subject: mail.subject, mail_text: mail.text },
          'SMTP_URL is not set: this email was NOT sent; its text is logged for development only',
        );
      },
    };
  }
  // nodemailer is loaded with the first mail, not at start: it held about 2.3 MB of heap in a
  // process that may never send one.
  let transport: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
      await (await transport).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
