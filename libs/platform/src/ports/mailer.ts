/**
 * The outgoing email port. Invitations, email-change confirmations and welcome emails go
 * through it; which adapter answers is configuration (a development outbox under the data
 * directory, or SMTP in production), so the services that send mail never know how.
 *
 * `send` resolves once the message is accepted for delivery (written to the outbox, or
 * handed to the SMTP server after any retries); it rejects when delivery finally failed,
 * so a caller can record and report the failure instead of losing it.
 */
export interface OutgoingEmail {
  /** One address per message: each recipient gets their own link. */
  readonly to: string;
  readonly subject: string;
  /** Plain-text body; always present so every mail reader can show it. */
  readonly text: string;
  /** Optional HTML alternative of the same content. */
  readonly html?: string;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
}
