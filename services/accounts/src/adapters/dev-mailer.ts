/**
 * DEVELOPMENT STAND-IN for the outgoing email port, used until the composition root hands
 * the accounts service a real Mailer (the SMTP and outbox adapters are built separately).
 * In development mode each mail is appended, whole, as one JSON line to
 * `<data dir>/dev-mail.jsonl` and its subject and recipient are logged, so a developer (and
 * the HTTP suites) can open an email-change link. In production it refuses to send: links
 * are secrets and must not end up in a file or a log.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '@teamchat/contracts';
import type { Mailer, OutgoingEmail, ServerConfig, ServiceDeps } from '@teamchat/platform';

export const DEV_MAIL_FILE = 'dev-mail.jsonl';

export function developmentMailer(config: Pick<ServerConfig, 'mode' | 'dataDir'>, log: ServiceDeps['log']): Mailer {
  return {
    async send(email: OutgoingEmail) {
      if (config.mode !== 'development') throw new ApiError('BAD_REQUEST', 'This server cannot send email', 400);
      await mkdir(config.dataDir, { recursive: true });
      await appendFile(join(config.dataDir, DEV_MAIL_FILE), `${JSON.stringify({ ...email, sent_at: Date.now() })}\n`);
      log.info({ to: email.to, subject: email.subject, file: DEV_MAIL_FILE }, 'development mail written to the data directory');
    },
  };
}
