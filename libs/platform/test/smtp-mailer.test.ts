/**
 * The SMTP adapter against a real SMTP server (smtp-server) listening on 127.0.0.1 inside
 * the test: what arrives is parsed back (mailparser), link included; refusals that may
 * pass are retried, permanent ones are not, and a message given up is reported (logged
 * without the password or the body, and the promise rejects).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createMailer, loadConfig, MailDeliveryError, SmtpMailer, type Mailer } from '@teamchat/platform';
import { simpleParser, type ParsedMail } from 'mailparser';
import pino, { type Logger } from 'pino';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

const USER = 'mailer';
const PASSWORD = 'pa55-w0rd-not-in-logs';
const LINK = 'http://127.0.0.1:9991/join/4f2c9a7e1b/';

interface TestServer {
  port: number;
  received: ParsedMail[];
  /** DATA commands seen, accepted or not. */
  attempts: number;
  logins: { username: string | undefined; password: string | undefined }[];
  close(): Promise<void>;
}

/**
 * An SMTP server on a free port of 127.0.0.1, without TLS (nothing leaves the machine).
 * `refuse(attempt)` may answer a delivery attempt (1, 2, ...) with an SMTP reply code.
 */
async function startSmtpServer(refuse: (attempt: number) => number | undefined = () => undefined): Promise<TestServer> {
  const state = { received: [] as ParsedMail[], attempts: 0, logins: [] as TestServer['logins'] };
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      state.logins.push({ username: auth.username, password: auth.password ?? undefined });
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      const err = Object.assign(new Error('Authentication failed'), { responseCode: 535 });
      return callback(err);
    },
    onData(stream, _session, callback) {
      const attempt = ++state.attempts;
      const code = refuse(attempt);
      simpleParser(stream).then(
        (parsed) => {
          if (code !== undefined) return callback(Object.assign(new Error(code < 500 ? 'Try again later' : 'Mailbox unavailable'), { responseCode: code }));
          state.received.push(parsed);
          return callback();
        },
        (err: Error) => callback(err),
      );
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  servers.push(server);
  return {
    port,
    get received() {
      return state.received;
    },
    get attempts() {
      return state.attempts;
    },
    get logins() {
      return state.logins;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const servers: SMTPServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A logger whose lines the test reads. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }), lines };
}

const invitation = {
  to: 'newcomer@example.org',
  subject: 'You are invited to Acme',
  text: `Olivia invited you to Acme.\n\nJoin here: ${LINK}\n`,
  html: `<p>Olivia invited you to Acme.</p><p><a href="${LINK}">Join</a></p>`,
};

function smtpMailer(port: number, log: Logger, overrides: Partial<ConstructorParameters<typeof SmtpMailer>[0]> = {}): Mailer {
  return new SmtpMailer(
    { host: '127.0.0.1', port, secure: false, user: USER, password: PASSWORD, attempts: 3, retryDelayMs: 20, ...overrides },
    'Team chat <noreply@chat.example.org>',
    log,
  );
}

describe('SMTP delivery', () => {
  it('delivers through the server the environment names, logged in, with the link in both parts', async () => {
    const server = await startSmtpServer();
    const dataDir = mkdtempSync(join(tmpdir(), 'teamchat-mail-'));
    dirs.push(dataDir);
    const config = loadConfig({
      TEAMCHAT_DATA_DIR: dataDir,
      TEAMCHAT_MODE: 'production',
      TEAMCHAT_REALM_URI: 'https://chat.example.org',
      TEAMCHAT_SMTP_HOST: '127.0.0.1',
      TEAMCHAT_SMTP_PORT: String(server.port),
      TEAMCHAT_SMTP_SECURE: 'off',
      TEAMCHAT_SMTP_USER: USER,
      TEAMCHAT_SMTP_PASSWORD: PASSWORD,
      TEAMCHAT_EMAIL_FROM: 'Team chat <noreply@chat.example.org>',
    });
    expect(config.mail.transport).toMatchObject({ kind: 'smtp', host: '127.0.0.1', port: server.port, secure: false });
    await createMailer(config.mail, capturingLogger().log).send(invitation);

    expect(server.logins).toEqual([{ username: USER, password: PASSWORD }]);
    expect(server.received).toHaveLength(1);
    const mail = server.received[0]!;
    expect(mail.subject).toBe(invitation.subject);
    expect(mail.from?.value).toEqual([{ address: 'noreply@chat.example.org', name: 'Team chat' }]);
    expect((Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address))).toEqual(['newcomer@example.org']);
    expect(mail.text).toContain(LINK);
    expect(mail.html).toContain(`href="${LINK}"`);
  });

  it('tries again after a temporary refusal and delivers once', async () => {
    const server = await startSmtpServer((attempt) => (attempt === 1 ? 451 : undefined));
    const { log, lines } = capturingLogger();
    await smtpMailer(server.port, log).send(invitation);
    expect(server.attempts).toBe(2);
    expect(server.received.map((m) => m.subject)).toEqual([invitation.subject]);
    expect(lines.some((line) => line.includes('trying again'))).toBe(true);
  });

  it('gives up after the configured attempts: the promise rejects and the failure is logged without secrets', async () => {
    const server = await startSmtpServer(() => 451);
    const { log, lines } = capturingLogger();
    const sending = smtpMailer(server.port, log).send(invitation);
    await expect(sending).rejects.toBeInstanceOf(MailDeliveryError);
    const err = (await sending.catch((e: unknown) => e)) as MailDeliveryError;
    expect(err).toMatchObject({ code: 'MAIL_UNDELIVERABLE', attempts: 3, responseCode: 451, permanent: false });
    expect(err.message).toContain('newcomer@example.org');
    expect(server.attempts).toBe(3);
    expect(server.received).toHaveLength(0);
    const logged = lines.join('');
    expect(lines.filter((line) => line.includes('trying again'))).toHaveLength(2);
    expect(logged).toContain('could not be delivered');
    for (const secret of [PASSWORD, LINK]) {
      expect(logged).not.toContain(secret);
      expect(err.message).not.toContain(secret);
    }
  });

  it('does not retry a permanent refusal', async () => {
    const server = await startSmtpServer(() => 550);
    const sending = smtpMailer(server.port, capturingLogger().log).send(invitation);
    await expect(sending).rejects.toMatchObject({ attempts: 1, responseCode: 550, permanent: true });
    expect(server.attempts).toBe(1);
  });

  it('reports a refused login without the password', async () => {
    const server = await startSmtpServer();
    const { log, lines } = capturingLogger();
    const sending = smtpMailer(server.port, log, { password: 'wrong-secret-xyz' }).send(invitation);
    const err = (await sending.catch((e: unknown) => e)) as MailDeliveryError;
    expect(err).toBeInstanceOf(MailDeliveryError);
    expect(err.permanent).toBe(true);
    expect(server.received).toHaveLength(0);
    expect(err.message + lines.join('')).not.toContain('wrong-secret-xyz');
  });

  it('retries a server that is out of reach, then rejects', async () => {
    const server = await startSmtpServer();
    await server.close();
    const { log, lines } = capturingLogger();
    const sending = smtpMailer(server.port, log, { attempts: 2 }).send(invitation);
    await expect(sending).rejects.toMatchObject({ code: 'MAIL_UNDELIVERABLE', attempts: 2, permanent: false });
    expect(lines.filter((line) => line.includes('trying again'))).toHaveLength(1);
  });
});
