/**
 * The registration page in a real headless browser (issue 16, item 4): an administrator
 * invites by email, the browser opens the emailed link, fills in the form and submits it,
 * and the new account then works through the API. Also: a used link, and a revoked one,
 * show their page in the browser and create nothing.
 *
 * The browser is the shared harness's (browser.ts): Debian's Chromium driven by
 * playwright-core, skipped with a printed reason where there is none, required under CI=true.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { browserSuite } from './browser';
import { Client, startEmbedded, tempDataDir, type RunningServer } from './harness';
import { invitationLink, onOrigin } from './suite-kit';

browserSuite('the registration page in a headless browser', (browser) => {
  let server: RunningServer;
  let admin: Client;
  let base: string;
  const dataDir = tempDataDir();

  beforeAll(async () => {
    server = await startEmbedded(dataDir);
    base = server.api.replace(/\/api\/v1$/, '');
    admin = await Client.login(server.api, 'admin@example.com');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  const linkFor = async (email: string) => onOrigin(await invitationLink(dataDir, email), base);

  it('opens the emailed link, fills in the form, submits, and the account works through the API', async () => {
    const registered = await admin.post('/register', { fetch_event_types: ['subscription'] });
    const engineering = registered.body.subscriptions.find((s: { name: string }) => s.name === 'engineering').stream_id;
    expect((await admin.post('/invites', { invitee_emails: 'browser@example.org', stream_ids: [engineering] })).body.result).toBe('success');
    const page = await browser().newPage();
    const opened = await page.goto(await linkFor('browser@example.org'));
    expect(opened?.status()).toBe(200);
    expect(await page.locator('#invited-email').textContent()).toBe('browser@example.org');
    await page.fill('#full_name', 'Bea Browser');
    await page.fill('#password', 'a browser password');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    const done = await page.content();
    expect(done).toContain('id="account-email"');
    expect(await page.locator('#account-email').textContent()).toBe('browser@example.org');

    const res = await fetch(`${server.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'browser@example.org', password: 'a browser password' }) });
    const { api_key } = (await res.json()) as { api_key: string };
    const bea = new Client(server.api, 'browser@example.org', api_key);
    expect((await bea.get('/users/me')).body).toMatchObject({ result: 'success', full_name: 'Bea Browser', role: 400 });
    const names = (await bea.get('/users/me/subscriptions')).body.subscriptions.map((s: { name: string }) => s.name);
    expect(names).toContain('engineering');
    expect((await bea.post('/messages', { type: 'stream', to: 'engineering', topic: 'hello', content: 'Signed up in a browser' })).body.result).toBe('success');

    // The link is used now: the browser shows so, and submitting again creates nothing.
    const again = await page.goto(await linkFor('browser@example.org'));
    expect(again?.status()).toBe(410);
    expect(await page.locator('#invitation-state').getAttribute('data-state')).toBe('accepted');
    await page.close();
  }, 60_000);

  it('a form posted from another site is refused (CSRF) and creates nothing', async () => {
    await admin.post('/invites', { invitee_emails: 'forged@example.org', stream_ids: [] });
    const link = await linkFor('forged@example.org');
    // Another origin (another port) whose page posts the form to the link by itself.
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${link}"><input name="csrf_token" value="${'a'.repeat(64)}"><input name="full_name" value="Mallory"><input name="password" value="forged password"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const page = await browser().newPage();
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
    await admin.post('/invites', { invitee_emails: 'revoked@example.org', stream_ids: [] });
    const id = ((await admin.get('/invites')).body.invites as { id: number; email: string }[]).find((i) => i.email === 'revoked@example.org')!.id;
    await admin.request('DELETE', `/invites/${id}`);
    const page = await browser().newPage();
    const opened = await page.goto(await linkFor('revoked@example.org'));
    expect(opened?.status()).toBe(410);
    expect(await page.locator('#invitation-state').getAttribute('data-state')).toBe('revoked');
    expect(await page.locator('form').count()).toBe(0);
    await page.close();
  }, 60_000);
});
