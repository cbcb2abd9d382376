/**
 * How the accounts handlers mail: through the service's durable outbox (MailOutbox), after
 * the request's facts are stored, and never so that a mail problem undoes or fails the
 * request: the change stands, and the reply's `email_delivery` says where the mail is.
 */
import type { MailQueue, MailState, OutgoingEmail } from '@teamchat/platform';
import type { Logger } from 'pino';

/**
 * Queues one mail and answers its state. A mail that cannot even be queued (the read-model
 * store failing) is reported as failed, and logged without its body: the request that
 * asked for it has already been applied and must say so, not answer an error.
 */
export async function queueMail(mail: MailQueue, log: Logger, email: OutgoingEmail, purpose: string): Promise<MailState> {
  try {
    return (await mail.enqueue(email, purpose)).state;
  } catch (err) {
    log.error({ purpose, to: email.to, subject: email.subject, reason: (err as Error).message }, 'email could not be queued');
    return 'failed';
  }
}

/** The state a reply reports for several mails: failed if any failed, sent if all were, else pending. */
export function deliveryOf(states: readonly MailState[]): MailState | undefined {
  if (states.length === 0) return undefined;
  if (states.includes('failed')) return 'failed';
  return states.every((s) => s === 'sent') ? 'sent' : 'pending';
}
