/**
 * The production path end to end in a headless browser (issue 38, item 11): the operator
 * creates the organization with the tool, the owner sets a password through the printed
 * link and logs in with it (POST /fetch_api_key), invites a user, who follows the mailed
 * link (its host the configured realm URI, not the listening address), signs up, resets the
 * password through the reset pages, logs in, and both chat in `general`.
 *
 * The server is the embedded one in production mode, on a port chosen first so that the
 * realm URI (http://localhost:<port>) can name it; mail is read from the outbox a
 * production server without SMTP writes. Every control is found by its accessible name.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createLogger, loadConfig } from '@teamchat/platform';
import type { Page } from 'playwright-core';
import { startEmbeddedServer } from '../src/embedded';
import { browserSuite } from './browser';
import { Client, freePort, tempDataDir } from './harness';
import { mailOf } from './suite-kit';

browserSuite('production, end to end in a headless browser', (browser) => {
  const dataDir = tempDataDir();
  let realm: string;
  let api: string;
  let env: Record<string, string>;
  let server: Awaited<ReturnType<typeof startEmbeddedServer>> | undefined;

  beforeAll(async () => {
    const port = await freePort();
    // localhost, where the server listens on 127.0.0.1: a link on this host can only come from the setting.
    realm = `http://localhost:${port}`;
    api = `http://127.0.0.1:${port}/api/v1`;
    env = { TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: '', TEAMCHAT_REALM_URI: realm, TEAMCHAT_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  });

  afterAll(async () => {
    await server?.stop();
  });

  const login = async (username: string, password: string) => {
    const res = await fetch(`${api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username, password }) });
    return { status: res.status, body: (await res.json()) as { api_key: string } };
  };
  const lastLink = async (to: string, path: string) => {
    const mail = (await mailOf(dataDir)).filter((m) => m.to === to && m.text.includes(path)).at(-1);
    if (!mail) throw new Error(`no mail with ${path} to ${to}`);
    return new RegExp(`(https?://\\S+${path}\\S+/)`).exec(mail.text)![1]!;
  };
  async function setPassword(page: Page, link: string, password: string) {
    expect((await page.goto(link))?.status()).toBe(200);
    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByLabel('New password again').fill(password);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Set the password' }).click()]);
    expect(await page.locator('#password-set').count()).toBe(1);
    // Every page ends with where to log in: the web client's login page, on the organization's own address.
    expect(await page.getByRole('link', { name: /^Log in to / }).getAttribute('href')).toBe(`${realm}/login`);
  }

  it('an owner set up by the tool, an invitee who signs up and resets the password, and a conversation in general', async () => {
    // 1. The operator's tool, on the fresh store, before the server starts.
    const output = execFileSync(process.execPath, [join(__dirname, '..', 'dist', 'create-organization.js'), '--name', 'Acme', '--email', 'ada@acme.test', '--full-name', 'Ada Owner'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(output).not.toMatch(/API key/);
    const ownerLink = /(https?:\/\/\S+\/accounts\/password\/reset\/\S+\/)/.exec(output)![1]!;
    expect(new URL(ownerLink).origin).toBe(realm);

    server = await startEmbeddedServer(loadConfig({ ...process.env, ...env, TEAMCHAT_CHECK_REPLIES: '1' }), createLogger('test'), { host: '127.0.0.1', port: Number(new URL(realm).port) });
    const page = await browser().newPage();

    // 2. The owner sets a password through the printed link and logs in with it.
    await setPassword(page, ownerLink, 'owner password 1');
    const ownerKey = await login('ada@acme.test', 'owner password 1');
    expect(ownerKey.status).toBe(200);
    const ada = new Client(api, 'ada@acme.test', ownerKey.body.api_key);

    // 3. The owner invites Bea to general; the mailed link is on the realm URI.
    const general = ((await ada.post('/register', { fetch_event_types: ['subscription'] })).body.subscriptions as { name: string; stream_id: number }[]).find((s) => s.name === 'general')!.stream_id;
    expect((await ada.post('/invites', { invitee_emails: 'bea@acme.test', stream_ids: [general] })).body.result).toBe('success');
    const invitation = await lastLink('bea@acme.test', '/join/');
    expect(new URL(invitation).origin).toBe(realm);

    // 4. Bea signs up on the page the link opens.
    expect((await page.goto(invitation))?.status()).toBe(200);
    await page.getByLabel('Full name').fill('Bea Browser');
    await page.getByLabel('Password').fill('first password');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign up' }).click()]);
    expect(await page.locator('#account-email').textContent()).toBe('bea@acme.test');

    // 5. Bea forgets it and resets it through the reset pages.
    expect((await page.goto(`${realm}/accounts/password/reset/`))?.status()).toBe(200);
    expect(await page.title()).toBe('Reset your password for Acme');
    await page.getByLabel('Email address').fill('bea@acme.test');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Send the reset link' }).click()]);
    expect(await page.locator('#reset-requested').count()).toBe(1);
    const reset = await lastLink('bea@acme.test', '/accounts/password/reset/');
    expect(new URL(reset).origin).toBe(realm);
    await setPassword(page, reset, 'second password');
    expect((await login('bea@acme.test', 'first password')).status).toBe(401);
    const beaKey = await login('bea@acme.test', 'second password');
    expect(beaKey.status).toBe(200);
    const bea = new Client(api, 'bea@acme.test', beaKey.body.api_key);
    await page.close();

    // 6. Both chat in general, under the notification bot's welcome.
    expect((await bea.post('/messages', { type: 'stream', to: 'general', topic: 'hello', content: 'Hi Ada, I made it in.' })).body.result).toBe('success');
    expect((await ada.post('/messages', { type: 'stream', to: 'general', topic: 'hello', content: 'Welcome, Bea!' })).body.result).toBe('success');
    const seen = await bea.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) });
    expect(seen.body.messages.map((m: { sender_email: string; content: string }) => [m.sender_email, m.content.replace(/<[^>]+>/g, '')])).toEqual([
      ['notification-bot@zulip.com', expect.stringContaining('Welcome to Acme!')],
      ['bea@acme.test', 'Hi Ada, I made it in.'],
      ['ada@acme.test', 'Welcome, Bea!'],
    ]);
  }, 120_000);
});
