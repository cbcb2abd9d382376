/**
 * The registration page in a real headless browser (issue 16, item 4): an administrator
 * invites by email, the browser opens the emailed link, fills in the form and submits it,
 * and the new account then works through the API. Also: a used link, and a revoked one,
 * show their page in the browser and create nothing.
 *
 * Chromium comes from the Debian package (`TEAMCHAT_CHROMIUM`, default /usr/bin/chromium),
 * driven by puppeteer-core. Without either the test is skipped with the reason printed,
 * and fails under CI=true, where the browser must be there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded, tempDataDir, type RunningServer } from './harness';

const CHROMIUM = process.env.TEAMCHAT_CHROMIUM ?? '/usr/bin/chromium';

type Puppeteer = typeof import('puppeteer-core');

async function loadPuppeteer(): Promise<{ puppeteer?: Puppeteer; reason?: string }> {
  if (!existsSync(CHROMIUM)) return { reason: `no Chromium at ${CHROMIUM} (install the Debian package chromium, or set TEAMCHAT_CHROMIUM)` };
  try {
    // Node's own require (puppeteer-core is an ES module, which jest's module system does not load).
    const nativeRequire = createRequire(__filename);
    return { puppeteer: nativeRequire('puppeteer-core') as Puppeteer };
  } catch (err) {
    return { reason: `puppeteer-core does not load: ${(err as Error).message.split('\n')[0]}` };
  }
}

describe('the registration page in a headless browser', () => {
  let loaded: Awaited<ReturnType<typeof loadPuppeteer>>;
  let server: RunningServer;
  let admin: Client;
  let base: string;
  let browser: import('puppeteer-core').Browser | undefined;
  const dataDir = tempDataDir();

  beforeAll(async () => {
    loaded = await loadPuppeteer();
    if (!loaded.puppeteer) return;
    server = await startEmbedded(dataDir);
    base = server.api.replace(/\/api\/v1$/, '');
    admin = await Client.login(server.api, 'admin@example.com');
    const p = loaded.puppeteer as unknown as { default?: Puppeteer } & Puppeteer;
    browser = await (p.default ?? p).launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const linkFor = (email: string) => {
    const dir = join(dataDir, 'fallback-outbox');
    const text = readdirSync(dir)
      .sort()
      .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as { to: string; text: string })
      .filter((m) => m.to === email)
      .at(-1)!.text;
    return /(https?:\/\/\S+\/join\/\S+\/)/.exec(text)![1]!.replace(/^https?:\/\/[^/]+/, base);
  };

  /** Skips (printing why) unless the browser is there; under CI the browser must be there. */
  function needsBrowser(): boolean {
    if (browser) return true;
    if (process.env.CI === 'true') throw new Error(`the browser test cannot run under CI: ${loaded.reason}`);
    console.log(`skipping the browser test: ${loaded.reason}`);
    return false;
  }

  it('opens the emailed link, fills in the form, submits, and the account works through the API', async () => {
    if (!needsBrowser()) return;
    const registered = await admin.post('/register', { fetch_event_types: ['subscription'] });
    const engineering = registered.body.subscriptions.find((s: { name: string }) => s.name === 'engineering').stream_id;
    expect((await admin.post('/invites', { invitee_emails: 'browser@example.org', stream_ids: [engineering] })).body.result).toBe('success');
    const page = await browser!.newPage();
    const opened = await page.goto(linkFor('browser@example.org'));
    expect(opened?.status()).toBe(200);
    expect(await page.$eval('#invited-email', (el) => el.textContent)).toBe('browser@example.org');
    await page.type('#full_name', 'Bea Browser');
    await page.type('#password', 'a browser password');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    const done = await page.content();
    expect(done).toContain('id="account-email"');
    expect(await page.$eval('#account-email', (el) => el.textContent)).toBe('browser@example.org');

    const res = await fetch(`${server.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'browser@example.org', password: 'a browser password' }) });
    const { api_key } = (await res.json()) as { api_key: string };
    const bea = new Client(server.api, 'browser@example.org', api_key);
    expect((await bea.get('/users/me')).body).toMatchObject({ result: 'success', full_name: 'Bea Browser', role: 400 });
    const names = (await bea.get('/users/me/subscriptions')).body.subscriptions.map((s: { name: string }) => s.name);
    expect(names).toContain('engineering');
    expect((await bea.post('/messages', { type: 'stream', to: 'engineering', topic: 'hello', content: 'Signed up in a browser' })).body.result).toBe('success');

    // The link is used now: the browser shows so, and submitting again creates nothing.
    const again = await page.goto(linkFor('browser@example.org'));
    expect(again?.status()).toBe(410);
    expect(await page.$eval('#invitation-state', (el) => el.getAttribute('data-state'))).toBe('accepted');
    await page.close();
  }, 60_000);

  it('a form posted from another site is refused (CSRF) and creates nothing', async () => {
    if (!needsBrowser()) return;
    await admin.post('/invites', { invitee_emails: 'forged@example.org', stream_ids: [] });
    const link = linkFor('forged@example.org');
    // Another origin (another port) whose page posts the form to the link by itself.
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${link}"><input name="csrf_token" value="${'a'.repeat(64)}"><input name="full_name" value="Mallory"><input name="password" value="forged password"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const page = await browser!.newPage();
      // The victim opened the real page first, so a cookie of the server exists in the browser.
      await page.goto(link);
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
      // The other site's script submits at once: the server's refusal page is what loads.
      expect(await page.waitForSelector('#csrf-refused', { timeout: 15_000 })).not.toBeNull();
      await page.close();
    } finally {
      evil.closeAllConnections();
      await new Promise((resolve) => evil.close(resolve));
    }
    const res = await fetch(`${server.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'forged@example.org', password: 'forged password' }) });
    expect(res.status).toBe(401);
    await res.text();
    const still = await fetch(link);
    await still.text();
    expect(still.status).toBe(200);
  }, 60_000);

  it('a revoked link shows its page and no form', async () => {
    if (!needsBrowser()) return;
    await admin.post('/invites', { invitee_emails: 'revoked@example.org', stream_ids: [] });
    const id = ((await admin.get('/invites')).body.invites as { id: number; email: string }[]).find((i) => i.email === 'revoked@example.org')!.id;
    await admin.request('DELETE', `/invites/${id}`);
    const page = await browser!.newPage();
    const opened = await page.goto(linkFor('revoked@example.org'));
    expect(opened?.status()).toBe(410);
    expect(await page.$eval('#invitation-state', (el) => el.getAttribute('data-state'))).toBe('revoked');
    expect(await page.$('form')).toBeNull();
    await page.close();
  }, 60_000);
});
