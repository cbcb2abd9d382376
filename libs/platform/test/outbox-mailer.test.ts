import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createMailer, loadMailSettings, OutboxMailer, readOutbox } from '@teamchat/platform';
import pino from 'pino';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-outbox-'));
  dirs.push(dir);
  return dir;
};

describe('the development outbox', () => {
  it('writes each message as its own file and lists them newest first', async () => {
    const dir = join(tempDir(), 'outbox');
    expect(await readOutbox(dir)).toEqual([]); // not created yet: empty
    const mailer = new OutboxMailer(dir, 'noreply@chat.example.org');
    for (const n of [1, 2, 3]) {
      await mailer.send({ to: `user${n}@example.org`, subject: `Message ${n}`, text: `Body ${n} http://x.test/${n}`, ...(n === 2 ? { html: '<p>2</p>' } : {}) });
    }
    expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(3);
    const listed = await readOutbox(dir);
    expect(listed.map((e) => e.subject)).toEqual(['Message 3', 'Message 2', 'Message 1']);
    expect(listed[1]).toMatchObject({ to: 'user2@example.org', from: 'noreply@chat.example.org', text: 'Body 2 http://x.test/2', html: '<p>2</p>' });
    expect(listed[0]!.html).toBeUndefined();
    expect(new Set(listed.map((e) => e.id)).size).toBe(3);
    expect(Date.parse(listed[0]!.date)).not.toBeNaN();
    expect((await readOutbox(dir, 2)).map((e) => e.subject)).toEqual(['Message 3', 'Message 2']);
  });

  it('skips files that are not messages and unfinished writes', async () => {
    const dir = tempDir();
    await new OutboxMailer(dir, 'noreply@x.test').send({ to: 'a@x.test', subject: 'kept', text: 't' });
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    writeFileSync(join(dir, '000000000000001-abc-000001-abcdef.json'), '{broken');
    writeFileSync(join(dir, '999999999999999-abc-000001-abcdef.json.tmp'), '{}');
    expect((await readOutbox(dir)).map((e) => e.subject)).toEqual(['kept']);
  });
});

describe('mail settings', () => {
  const log = pino({ level: 'silent' });

  it('uses the outbox under the data directory unless an SMTP host is set', () => {
    const settings = loadMailSettings({}, '/data', '127.0.0.1:9991');
    expect(settings).toEqual({ from: 'noreply@127.0.0.1', transport: { kind: 'outbox', dir: '/data/outbox' } });
    expect(createMailer(settings, log)).toBeInstanceOf(OutboxMailer);
    expect(loadMailSettings({}, '/data', 'chat.example.org').from).toBe('noreply@chat.example.org');
  });

  it('reads the SMTP settings, with the port following TLS by default', () => {
    expect(loadMailSettings({ TEAMCHAT_SMTP_HOST: 'smtp.example.org' }, '/d', 'h').transport).toEqual({
      kind: 'smtp', host: 'smtp.example.org', port: 587, secure: false, user: undefined, password: undefined, attempts: 4, retryDelayMs: 2000, timeoutMs: 30_000,
    });
    expect(loadMailSettings({ TEAMCHAT_SMTP_HOST: 's', TEAMCHAT_SMTP_SECURE: 'on' }, '/d', 'h').transport).toMatchObject({ port: 465, secure: true });
    expect(loadMailSettings({ TEAMCHAT_SMTP_HOST: 's', TEAMCHAT_SMTP_PORT: '465' }, '/d', 'h').transport).toMatchObject({ port: 465, secure: true });
    expect(
      loadMailSettings(
        { TEAMCHAT_SMTP_HOST: 's', TEAMCHAT_SMTP_PORT: '2525', TEAMCHAT_SMTP_USER: 'u', TEAMCHAT_SMTP_PASSWORD: 'p', TEAMCHAT_SMTP_ATTEMPTS: '1', TEAMCHAT_SMTP_RETRY_SECONDS: '0.5', TEAMCHAT_EMAIL_FROM: 'Chat <chat@example.org>' },
        '/d',
        'h',
      ),
    ).toEqual({ from: 'Chat <chat@example.org>', transport: { kind: 'smtp', host: 's', port: 2525, secure: false, user: 'u', password: 'p', attempts: 1, retryDelayMs: 500, timeoutMs: 30_000 } });
  });

  it.each([
    [{ TEAMCHAT_SMTP_PORT: '99999' }, 'TEAMCHAT_SMTP_PORT'],
    [{ TEAMCHAT_SMTP_PORT: 'smtp' }, 'TEAMCHAT_SMTP_PORT'],
    [{ TEAMCHAT_SMTP_SECURE: 'maybe' }, 'TEAMCHAT_SMTP_SECURE'],
    [{ TEAMCHAT_SMTP_USER: 'u' }, 'TEAMCHAT_SMTP_PASSWORD'],
    [{ TEAMCHAT_SMTP_PASSWORD: 'p' }, 'TEAMCHAT_SMTP_USER'],
    [{ TEAMCHAT_SMTP_ATTEMPTS: '0' }, 'TEAMCHAT_SMTP_ATTEMPTS'],
    [{ TEAMCHAT_SMTP_RETRY_SECONDS: '-1' }, 'TEAMCHAT_SMTP_RETRY_SECONDS'],
    [{ TEAMCHAT_SMTP_TIMEOUT_SECONDS: '0' }, 'TEAMCHAT_SMTP_TIMEOUT_SECONDS'],
    [{ TEAMCHAT_EMAIL_FROM: 'not an address' }, 'TEAMCHAT_EMAIL_FROM'],
  ])('refuses %j naming the variable', (env, variable) => {
    expect(() => loadMailSettings({ TEAMCHAT_SMTP_HOST: 'smtp.example.org', ...env }, '/d', 'h')).toThrow(variable);
  });

  it('never names the password when refusing a setting', () => {
    expect(() => loadMailSettings({ TEAMCHAT_SMTP_HOST: 's', TEAMCHAT_SMTP_PASSWORD: 'hunter2-secret' }, '/d', 'h')).toThrow(/^(?!.*hunter2-secret)/);
  });
});
