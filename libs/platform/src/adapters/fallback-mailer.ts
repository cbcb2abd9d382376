/**
 * The mailer a service uses when the composition root gives none: in development mode
 * each message is written as a JSON file to `<data dir>/fallback-outbox/`, so that a
 * developer (and the test suites, in both modes) can follow an invitation's link; in
 * production mode nothing can be delivered, so sending fails and the caller reports it.
 * Logs name the recipient and subject only: a message's body holds its link's secret key.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Mailer, OutgoingEmail } from '../ports/mailer';

export const FALLBACK_OUTBOX_DIR = 'fallback-outbox';

export function fallbackMailer(config: { mode: 'development' | 'production'; dataDir: string }, log: Logger): Mailer {
  const dir = join(config.dataDir, FALLBACK_OUTBOX_DIR);
  return {
    async send(email: OutgoingEmail): Promise<void> {
      if (config.mode !== 'development') {
        log.error({ subject: email.subject }, 'no mailer is configured: an email could not be sent');
        throw new Error('No mailer is configured');
      }
      mkdirSync(dir, { recursive: true });
      // The time first, so that a listing sorts by when they were sent.
      const name = `${Date.now().toString().padStart(15, '0')}-${randomUUID()}.json`;
      writeFileSync(join(dir, name), JSON.stringify({ ...email, date: new Date().toISOString() }));
      log.info({ to: email.to, subject: email.subject }, 'email written to the development outbox');
    },
  };
}
