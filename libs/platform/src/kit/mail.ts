/**
 * Which Mailer a process sends through, from the environment (see README, "Email"):
 * SMTP when TEAMCHAT_SMTP_HOST is set, otherwise the outbox under the data directory, so
 * that a development server needs no mail server and a newcomer reads the mail at /emails.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { OutboxMailer } from '../adapters/outbox-mailer';
import { SmtpMailer, type SmtpMailerOptions } from '../adapters/smtp-mailer';
import type { Mailer } from '../ports/mailer';
import type { ReadModelStore } from '../ports/read-models';
import { MailOutbox, type MailRetryPolicy } from './mail-outbox';

export interface SmtpSettings extends SmtpMailerOptions {
  kind: 'smtp';
}

export interface OutboxSettings {
  kind: 'outbox';
  /** One file per message (see OutboxMailer). */
  dir: string;
}

export interface MailSettings {
  /** The From header of every message. */
  from: string;
  transport: SmtpSettings | OutboxSettings;
}

function wholeNumber(env: NodeJS.ProcessEnv, variable: string, fallback: number, min: number): number {
  const text = env[variable]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${variable}=${JSON.stringify(text)}: expected a whole number of at least ${min}`);
  return value;
}

function onOff(env: NodeJS.ProcessEnv, variable: string): boolean | undefined {
  const text = env[variable]?.trim().toLowerCase();
  if (!text) return undefined;
  if (['on', 'true', '1'].includes(text)) return true;
  if (['off', 'false', '0'].includes(text)) return false;
  throw new Error(`${variable}=${JSON.stringify(text)}: expected on or off`);
}

function seconds(env: NodeJS.ProcessEnv, variable: string, fallback: number, min: number): number {
  const text = env[variable]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!(value >= min) || !Number.isFinite(value)) throw new Error(`${variable}=${JSON.stringify(env[variable])}: expected a number of seconds (${min} or more)`);
  return value;
}

/** An address as in a From header: `name@host` or `Name <name@host>`. */
const FROM_ADDRESS = /^(?:[^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

export function loadMailSettings(env: NodeJS.ProcessEnv, dataDir: string, realmHost: string): MailSettings {
  // Zulip's default sender: noreply at the server's own host name.
  const from = env.TEAMCHAT_EMAIL_FROM?.trim() || `noreply@${realmHost.replace(/:\d+$/, '').replace(/^\[|\]$/g, '')}`;
  if (!FROM_ADDRESS.test(from)) throw new Error(`TEAMCHAT_EMAIL_FROM=${JSON.stringify(from)}: expected an address such as noreply@example.com or "Team chat <noreply@example.com>"`);
  const host = env.TEAMCHAT_SMTP_HOST?.trim();
  if (!host) return { from, transport: { kind: 'outbox', dir: join(dataDir, 'outbox') } };
  const secureSetting = onOff(env, 'TEAMCHAT_SMTP_SECURE');
  const port = wholeNumber(env, 'TEAMCHAT_SMTP_PORT', secureSetting ? 465 : 587, 1);
  if (port > 65535) throw new Error(`TEAMCHAT_SMTP_PORT=${JSON.stringify(env.TEAMCHAT_SMTP_PORT)}: expected a port number (1 to 65535)`);
  const user = env.TEAMCHAT_SMTP_USER || undefined;
  const password = env.TEAMCHAT_SMTP_PASSWORD || undefined;
  // A password without a user (or the reverse) is a typo that would only show at the first send.
  if ((user === undefined) !== (password === undefined)) {
    throw new Error('TEAMCHAT_SMTP_USER and TEAMCHAT_SMTP_PASSWORD: set both (a server that needs a login) or neither');
  }
  const retrySeconds = seconds(env, 'TEAMCHAT_SMTP_RETRY_SECONDS', 2, 0);
  const timeoutSeconds = seconds(env, 'TEAMCHAT_SMTP_TIMEOUT_SECONDS', 30, 0.1);
  return {
    from,
    transport: {
      kind: 'smtp',
      host,
      port,
      secure: secureSetting ?? port === 465,
      user,
      password,
      attempts: wholeNumber(env, 'TEAMCHAT_SMTP_ATTEMPTS', 4, 1),
      retryDelayMs: Math.round(retrySeconds * 1000),
      timeoutMs: Math.round(timeoutSeconds * 1000),
    },
  };
}

/** Where a message goes, for a start-up line: never the password. */
export function describeMailTransport(settings: MailSettings): string {
  const t = settings.transport;
  return t.kind === 'outbox' ? `outbox ${t.dir}` : `smtp${t.secure ? 's' : ''}://${t.user ? `${t.user}@` : ''}${t.host}:${t.port}`;
}

/**
 * The composition roots' one way to a Mailer (ServiceDeps.mailer): one attempt per send.
 * Services do not send through it directly but through a MailOutbox (createMailOutbox),
 * which stores each mail first and does the retrying, so no request waits on the server.
 */
export function createMailer(settings: MailSettings, log: Logger): Mailer {
  const t = settings.transport;
  return t.kind === 'outbox' ? new OutboxMailer(t.dir, settings.from) : new SmtpMailer({ ...t, attempts: 1 }, settings.from, log.child({ component: 'mailer' }));
}

/** The outbox's retries: the SMTP settings' (TEAMCHAT_SMTP_ATTEMPTS, _RETRY_SECONDS, _TIMEOUT_SECONDS), or the same defaults for the file outbox. */
export function mailRetryPolicy(settings: MailSettings): MailRetryPolicy {
  const t = settings.transport;
  if (t.kind === 'outbox') return { attempts: 4, retryDelayMs: 2000, attemptTimeoutMs: 30_000 };
  // An attempt may spend the timeout connecting, again waiting for the greeting, and again on a stalled reply.
  const timeoutMs = t.timeoutMs ?? 30_000;
  return { attempts: t.attempts, retryDelayMs: t.retryDelayMs, attemptTimeoutMs: timeoutMs * 3 + 1000 };
}

/**
 * A service's durable outbox over its own read-model store, sending through `transport`
 * (ServiceDeps.mailer). With the development file transport a request waits for the
 * first attempt (a local write), so /emails lists the mail as soon as the request is answered.
 */
export function createMailOutbox(settings: MailSettings, store: ReadModelStore, transport: Mailer, log: Logger): MailOutbox {
  return new MailOutbox({
    store,
    transport,
    policy: mailRetryPolicy(settings),
    log: log.child({ component: 'mail-outbox' }),
    awaitFirstAttempt: settings.transport.kind === 'outbox',
  });
}

/**
 * The outbox the development page /emails lists: only in development mode (a production
 * server never shows its mail on an unauthenticated page), and only with the outbox transport.
 */
export function developmentOutboxDir(config: { mode: 'development' | 'production'; mail: MailSettings }): string | undefined {
  return config.mode === 'development' && config.mail.transport.kind === 'outbox' ? config.mail.transport.dir : undefined;
}
