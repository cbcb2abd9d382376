/**
 * Mail through an SMTP server (nodemailer). A send that fails for a reason that may pass
 * (the server out of reach, a timeout, a 4xx answer such as greylisting) is tried again
 * after a growing wait; a permanent refusal (a 5xx answer: unknown mailbox, login refused)
 * is not, since trying again cannot change it. Either way a message is never lost
 * silently: each failed attempt is logged, and the promise rejects with a
 * MailDeliveryError once no attempt is left, for the caller to record or report.
 *
 * Logs and errors carry the recipient, the subject and the server's answer, never the
 * body (an invitation's link is a credential) nor the SMTP password.
 */
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Mailer, OutgoingEmail } from '../ports/mailer';
import { nodemailerDriver } from './lazy-driver';

export interface SmtpMailerOptions {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  /** Both present, or neither (a relay that needs no login). */
  user: string | undefined;
  password: string | undefined;
  /** Sends tried in all before a message is reported undeliverable (at least 1). */
  attempts: number;
  /** The wait before the second attempt; each later wait is twice the one before. */
  retryDelayMs: number;
  /** How long to wait for the connection, the greeting, and each answer (default 30 s). */
  timeoutMs?: number | undefined;
}

/** The last attempt's failure, after which the message was given up. */
export class MailDeliveryError extends Error {
  readonly code = 'MAIL_UNDELIVERABLE';
  constructor(
    message: string,
    readonly attempts: number,
    /** The SMTP reply code of the last attempt, when the server answered. */
    readonly responseCode: number | undefined,
    /** A 5xx refusal: no number of further attempts would deliver it. */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

interface NodemailerFailure {
  message?: string;
  code?: string;
  responseCode?: number;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    private readonly options: SmtpMailerOptions,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = nodemailerDriver().createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure,
      ...(options.user !== undefined ? { auth: { user: options.user, pass: options.password } } : {}),
      // Bounded waits: a server that hangs costs an attempt, not a stuck send.
      connectionTimeout: options.timeoutMs ?? 30_000,
      greetingTimeout: options.timeoutMs ?? 30_000,
      socketTimeout: options.timeoutMs ?? 60_000,
    });
  }

  async send(email: OutgoingEmail): Promise<void> {
    const { attempts, retryDelayMs } = this.options;
    const about = { to: email.to, subject: email.subject };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.transport.sendMail({
          from: this.from,
          to: email.to,
          subject: email.subject,
          text: email.text,
          ...(email.html === undefined ? {} : { html: email.html }),
        });
        if (attempt > 1) this.log.info({ ...about, attempt }, 'email delivered after retrying');
        return;
      } catch (err) {
        const failure = err as NodemailerFailure;
        const reason = this.redact(failure.message ?? String(err));
        const responseCode = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
        const permanent = responseCode !== undefined && responseCode >= 500;
        if (permanent || attempt >= attempts) {
          // With one attempt a call (under the mail outbox) the outbox reports the outcome.
          this.log[attempts === 1 ? 'debug' : 'error']({ ...about, attempts: attempt, code: failure.code, responseCode, reason }, 'email could not be delivered');
          throw new MailDeliveryError(
            `The email "${email.subject}" to ${email.to} could not be delivered (${attempt} attempt${attempt === 1 ? '' : 's'}): ${reason}`,
            attempt,
            responseCode,
            permanent,
          );
        }
        const wait = retryDelayMs * 2 ** (attempt - 1);
        this.log.warn({ ...about, attempt, code: failure.code, responseCode, reason, retryInMs: wait }, 'email not delivered; trying again');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** A server might echo what it was sent; the password never leaves in a log or an error. */
  private redact(text: string): string {
    const { password } = this.options;
    return password ? text.split(password).join('***') : text;
  }
}
