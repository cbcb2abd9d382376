/**
 * The web client end to end (issue 39, item 9), in headless Chromium against the embedded
 * server serving the built client (apps/web/dist; built here when missing): two people in
 * two browser contexts log in, chat in a channel topic and in a direct message, see each
 * other's messages live, see unread counts rise and clear, keep working through a server
 * restart without reloading, and log out. Also: a wrong password, a CSRF failure and the
 * server going away each show a message in words and lose nothing typed; messages from
 * an XSS corpus show as text; the first load's JavaScript stays within 200 KB gzip.
 *
 * Screenshots at desktop and phone widths go to apps/web/screenshots/ (committed, shown
 * by the README).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '../src/embedded';
import { browserSuite } from './browser';
import { freePort, tempDataDir } from './harness';
import {clocksMasked, DIST, ensureBuilt, SHOTS } from './web-page';


/** The embedded server on a fixed port, so that a restart keeps the page's origin. */
async function start(dataDir: string, port: number) {
  process.env.LOG_LEVEL ??= 'silent';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_HEARTBEAT_SECONDS: '2' });
  return startEmbeddedServer(config, createLogger('web-browser'), { host: '127.0.0.1', port });
}

it('keeps the first load within 200 KB of JavaScript (gzip)', () => {
  ensureBuilt();
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g), ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  expect(scripts.length).toBeGreaterThan(0);
  const total = scripts.reduce((sum, src) => sum + gzipSync(readFileSync(join(DIST, src.replace(/^\//, '')))).length, 0);
  expect(total).toBeLessThan(200 * 1024);
  // Names are hashed (long cache); nothing inline (the CSP allows no inline script).
  for (const src of scripts) expect(src).toMatch(/^\/static\/[\w-]+-[\w-]{8}\.js$/);
  expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>/);
  expect(html).not.toMatch(/style=/);
});

browserSuite('the web client in a headless browser', (browser) => {
  const dataDir = tempDataDir();
  let port: number;
  let base: string;
  let server: Awaited<ReturnType<typeof start>> | undefined;

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(SHOTS, { recursive: true });
    port = await freePort();
    server = await start(dataDir, port);
    base = `http://127.0.0.1:${port}`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function logIn(context: BrowserContext, email: string, password?: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => process.stdout.write(`page error (${email}): ${e.message}\n`));
    await page.goto(`${base}/login`);
    if (password === undefined) {
      await page.getByRole('button', { name: new RegExp(email.replace('.', '\\.')) }).click();
    } else {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
    }
    await page.getByRole('navigation', { name: 'Channels and conversations' }).waitFor();
    return page;
  }

  async function send(page: Page, to: string, topic: string | null, text: string) {
    await page.getByRole('combobox', { name: 'To', exact: true }).fill(to);
    if (topic !== null) await page.getByRole('combobox', { name: 'Topic', exact: true }).fill(topic);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Escape').catch(() => undefined);
    await box.focus();
    await box.press('Enter');
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Channels and conversations' });
  const countOf = async (page: Page, name: RegExp) => {
    const text = (await nav(page).getByRole('link', { name }).first().textContent()) ?? '';
    return Number(/(\d+)\s*unread/.exec(text)?.[1] ?? 0);
  };
  /** Nothing wider than the viewport: no horizontal scroll, and Log out, Topic and Send wholly on screen. */
  async function expectFitsWidth(page: Page, width: number) {
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
    for (const target of [
      page.getByRole('button', { name: 'Log out' }),
      page.getByRole('combobox', { name: 'Topic', exact: true }),
      page.getByRole('combobox', { name: 'To', exact: true }),
      page.getByRole('textbox', { name: 'Message' }),
      page.getByRole('button', { name: 'Send', exact: true }),
    ]) {
      const box = await target.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    }
  }
  const article = (page: Page, sender: string, text: string) => page.getByRole('article', { name: new RegExp(sender) }).filter({ hasText: text });

  it('two people chat live in a topic and a DM, counts rise and clear, they log out, the server goes away (shown in words) and comes back under the open page', async () => {
    const mark = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const mary = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const markPage = await logIn(mark, 'member@example.com');
    const maryPage = await logIn(mary, 'member2@example.com');

    // Mary looks at her starred messages; Mark writes in #general > lunch.
    await nav(maryPage).getByRole('link', { name: /^Starred messages/ }).click();
    await nav(markPage).getByRole('link', { name: /^#general/ }).click();
    await send(markPage, '#general', 'lunch', 'Soup or **salad**?');
    await expect(article(markPage, 'Mark Member', 'Soup or salad?').waitFor()).resolves.toBeUndefined();

    // Mary's count for #general rises live, and the topic shows in her sidebar.
    const generalLink = nav(maryPage).getByRole('link', { name: /^#general\s*\d+ unread/ });
    await generalLink.waitFor({ timeout: 15_000 });
    const before = await countOf(maryPage, /^#general/);
    const topicLink = nav(maryPage).getByRole('link', { name: /^lunch\s*\d+ unread/ });
    await topicLink.waitFor();
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'unread-counts-desktop.png') });

    // She opens the topic: the message is on screen, marked read, and the counts clear.
    await topicLink.click();
    await article(maryPage, 'Mark Member', 'Soup or salad?').waitFor();
    await nav(maryPage).getByRole('link', { name: /^lunch$/ }).waitFor({ timeout: 15_000 });
    expect(await countOf(maryPage, /^#general/)).toBeLessThan(before);

    // She answers; Mark sees it live.
    await send(maryPage, '#general', 'lunch', 'Salad, with :tada:');
    await article(markPage, 'Mary Member', 'Salad, with').waitFor({ timeout: 15_000 });

    // A direct message, both ways.
    await send(markPage, 'Mary Member', null, 'A secret: the soup is cold.');
    const dmLink = nav(maryPage).getByRole('link', { name: /^Mark Member\s*1 unread/ });
    await dmLink.waitFor({ timeout: 15_000 });
    await dmLink.click();
    await article(maryPage, 'Mark Member', 'the soup is cold').waitFor();
    await send(maryPage, 'Mark Member', null, 'Thanks for the warning');
    await nav(markPage).getByRole('link', { name: /^Mary Member/ }).first().waitFor();
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'dm-desktop.png') });

    // Phone width.
    await maryPage.setViewportSize({ width: 375, height: 740 });
    await expectFitsWidth(maryPage, 375);
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'dm-375.png') });
    const menu = maryPage.getByRole('button', { name: 'Channels and conversations' });
    await menu.click();
    await nav(maryPage).getByRole('link', { name: /^#general/ }).waitFor();
    await expectFitsWidth(maryPage, 375);
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'sidebar-375.png') });
    // Esc closes the menu and gives focus back to its button.
    await maryPage.keyboard.press('Escape');
    await nav(maryPage).waitFor({ state: 'hidden' });
    await expect(maryPage.evaluate<string>('document.activeElement?.getAttribute("aria-controls") ?? ""')).resolves.toBe('sidebar');
    await maryPage.setViewportSize({ width: 1280, height: 800 });

    // Logging out ends the session: the login form is back, and the API refuses the cookie.
    await markPage.getByRole('button', { name: 'Log out' }).click();
    await markPage.getByRole('button', { name: 'Log in', exact: true }).waitFor();
    const status = await markPage.evaluate(async () => (await fetch('/json/session')).status);
    expect(status).toBe(401);

    // The server goes away under an open page: it says so in words, and nothing typed is lost.
    await server!.stop();
    server = undefined;
    await send(maryPage, 'Mark Member', null, 'Typed while the server was down');
    await maryPage.getByRole('alert').filter({ hasText: /Cannot reach|unavailable|stopped answering/i }).first().waitFor({ timeout: 30_000 });
    await maryPage.getByRole('alert').filter({ hasText: /was not sent/ }).waitFor({ timeout: 30_000 });
    await expect(maryPage.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toContain('Typed while the server was down');
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'server-down-desktop.png') });
    // The server comes back on the same port and data directory: the open page reconnects by
    // itself (new registration, no reload), the text typed while it was down is sent, and
    // Mark, logging in again, receives it; then a message from Mark reaches Mary's open page live.
    const pageLoads: number[] = [];
    maryPage.on('load', () => pageLoads.push(Date.now()));
    server = await start(dataDir, port);
    // The connection banner (the alert with its "Try again now" button) goes once the page is live again.
    await maryPage.getByRole('alert').filter({ has: maryPage.getByRole('button', { name: 'Try again now' }) }).waitFor({ state: 'detached', timeout: 60_000 });
    const box = maryPage.getByRole('textbox', { name: 'Message' });
    await box.focus();
    await box.press('Enter');
    await article(maryPage, 'Mary Member', 'Typed while the server was down').waitFor({ timeout: 30_000 });
    await maryPage.locator('.feed article.echo').first().waitFor({ state: 'detached', timeout: 15_000 });
    await expect(box.inputValue()).resolves.toBe('');
    const markAgain = await logIn(mark, 'member@example.com');
    await nav(markAgain).getByRole('link', { name: /^Mary Member\s*\d+ unread/ }).click();
    await article(markAgain, 'Mary Member', 'Typed while the server was down').waitFor({ timeout: 15_000 });
    await send(markAgain, 'Mary Member', null, 'Welcome back');
    await article(maryPage, 'Mark Member', 'Welcome back').waitFor({ timeout: 15_000 });
    expect(pageLoads).toEqual([]);
    await maryPage.screenshot({ ...clocksMasked(maryPage), path: join(SHOTS, 'after-restart-desktop.png') });
    await mark.close();
    await mary.close();
  }, 200_000);

  it('shows a wrong password, and a CSRF failure, in words, losing nothing typed', async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').waitFor();
    // A first visit has had no session: nothing says one ended.
    await expect(page.getByText('Your session has ended').count()).resolves.toBe(0);
    await page.getByLabel('Email').fill('member@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('member@example.com');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'login-error-desktop.png') });

    const app = await logIn(context, 'member@example.com');
    // A request without the CSRF token is refused (403).
    const refused = await app.evaluate(async () => (await fetch('/json/messages', { method: 'POST', body: new URLSearchParams({ type: 'stream', to: 'general', topic: 'x', content: 'forged' }) })).status);
    expect(refused).toBe(403);
    // The session's token goes stale (another login elsewhere does not change it, so replace it): the send fails in words and the text stays.
    await app.route('**/json/messages', (route) =>
      route.request().method() === 'POST' ? route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ result: 'error', code: 'CSRF_FAILED', msg: 'CSRF error: CSRF token incorrect.' }) }) : route.continue(),
    );
    await send(app, '#general', 'csrf', 'Please keep me');
    await app.getByRole('alert').filter({ hasText: /security token/ }).waitFor();
    await expect(app.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toContain('Please keep me');
    await context.close();
  }, 90_000);

  it('sends 20 messages typed one after another quickly, all shown in order and all on the server', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await logIn(context, 'member@example.com');
    await nav(page).getByRole('link', { name: /^#general/ }).click();
    await page.getByRole('combobox', { name: 'To', exact: true }).fill('#general');
    await page.getByRole('combobox', { name: 'Topic', exact: true }).fill('rapid');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.focus();
    const texts = Array.from({ length: 20 }, (_, i) => `rapid message ${i + 1} end`);
    // Alternately typed and filled in (the latter leaving the box with Escape and coming back), without waiting for any answer.
    for (const [i, text] of texts.entries()) {
      if (i % 2) {
        await page.keyboard.type(text);
        await page.keyboard.press('Enter');
      } else await send(page, '#general', 'rapid', text);
    }
    await article(page, 'Mark Member', 'rapid message 20 end').waitFor({ timeout: 15_000 });
    // The article above may still be the local echo: read the server once every echo has its copy.
    await page.locator('.feed article.echo').first().waitFor({ state: 'detached', timeout: 15_000 });
    const onServer = await page.evaluate(async () => {
      const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'rapid' }]);
      const reply = (await (await fetch(`/json/messages?anchor=newest&num_before=100&num_after=0&apply_markdown=false&narrow=${encodeURIComponent(narrow)}`)).json()) as { messages: { content: string }[] };
      return reply.messages.map((m) => m.content);
    });
    expect(onServer).toEqual(texts);
    const shown = (await page.locator('.feed article .rendered').allTextContents()).map((t) => t.trim()).filter((t) => t.startsWith('rapid message'));
    expect(shown).toEqual(texts);
    await context.close();
  }, 90_000);

  it('works from the keyboard at 375 px: Tab reaches the sidebar, To, Topic, the message box and Send; Enter sends', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, 'member@example.com');
    await page.setViewportSize({ width: 375, height: 740 });
    await nav(page).waitFor({ state: 'hidden' });
    await expectFitsWidth(page, 375);
    const focused = () =>
      page.evaluate<string>(`(() => {
        const el = document.activeElement;
        return el ? el.tagName.toLowerCase() + '#' + el.id + ':' + (el.closest('nav') ? 'nav' : '') + ':' + (el.textContent ?? '').trim().slice(0, 20) : '';
      })()`);
    // The sidebar, opened from its button with the keyboard, is in the Tab order; Enter follows a link and closes it.
    const menu = page.getByRole('button', { name: 'Channels and conversations' });
    await menu.focus();
    await page.keyboard.press('Enter');
    await nav(page).getByRole('link', { name: /^#general/ }).waitFor();
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = /^a#:nav:#general/.test(await focused());
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await nav(page).waitFor({ state: 'hidden' });
    // Then Tab reaches To, Topic (a topic is typed there) and the message box.
    await menu.focus();
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const now = await focused();
      seen.push(now);
      if (now.startsWith('input#compose-topic') && !seen.includes('typed')) {
        await page.keyboard.type('keys');
        seen.push('typed');
      }
      if (now.startsWith('textarea#compose-content')) break;
    }
    expect(seen).toEqual(expect.arrayContaining([expect.stringMatching(/^input#compose-to/), 'typed', expect.stringMatching(/^textarea#compose-content/)]));
    await expect(page.getByRole('combobox', { name: 'To', exact: true }).inputValue()).resolves.toMatch(/general/);
    // Esc closes an open sidebar from anywhere.
    await menu.click();
    await nav(page).waitFor();
    await page.keyboard.press('Escape');
    await nav(page).waitFor({ state: 'hidden' });
    // Send follows the message box.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.focus();
    await page.keyboard.press('Tab');
    expect(await focused()).toMatch(/^button#:.*Send/);
    // Back in the box: type, and Enter sends.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('Sent from the keyboard');
    await page.keyboard.press('Enter');
    await article(page, 'Mark Member', 'Sent from the keyboard').waitFor({ timeout: 15_000 });
    await expect(box.inputValue()).resolves.toBe('');
    await expectFitsWidth(page, 375);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'topic-375.png') });
    await context.close();
  }, 90_000);

  it('says so when its event queue expired, reloads the feed from a new registration, and keeps what was typed', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, 'member2@example.com');
    await nav(page).getByRole('link', { name: /^#general/ }).click();
    await page.getByRole('combobox', { name: 'To', exact: true }).fill('#general');
    await page.getByRole('combobox', { name: 'Topic', exact: true }).fill('queues');
    await page.getByRole('textbox', { name: 'Message' }).fill('Half a thought');
    // The next poll is answered as the server answers a queue it no longer has.
    let expired = 0;
    await page.route('**/json/events?*', (route) => {
      if (expired++ > 0) return route.continue();
      return route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ result: 'error', code: 'BAD_EVENT_QUEUE_ID', msg: 'Bad event queue ID: gone', queue_id: 'gone' }) });
    });
    const registrations: string[] = [];
    page.on('request', (request) => request.url().endsWith('/json/register') && registrations.push(request.url()));
    // Another person's message makes the pending poll return; the next one meets the expired queue.
    const otherContext = await browser().newContext();
    const other = await logIn(otherContext, 'member@example.com');
    await send(other, '#general', 'queues', 'Sent while the queue expired');
    await page.getByRole('status').filter({ hasText: /reloaded/ }).waitFor({ timeout: 30_000 });
    expect(registrations.length).toBeGreaterThanOrEqual(1);
    await article(page, 'Mark Member', 'Sent while the queue expired').waitFor({ timeout: 15_000 });
    await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe('Half a thought');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'queue-expired-desktop.png') });
    // Live again on the new queue.
    await send(other, '#general', 'queues', 'And after it');
    await article(page, 'Mark Member', 'And after it').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByRole('status').filter({ hasText: /reloaded/ }).waitFor({ state: 'detached' });
    await otherContext.close();
    await context.close();
  }, 90_000);

  it('completes any emoji the server renders, fetched from the server emoji data on the first colon', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, 'member@example.com');
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.getByRole('combobox', { name: 'To', exact: true }).fill('#general');
    await page.getByRole('combobox', { name: 'Topic', exact: true }).fill('emoji');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.focus();
    // "octopus" is not among the common names the page carries: it comes from the server's list.
    await page.keyboard.type('Look :octop');
    const option = page.getByRole('option', { name: /:octopus:/ });
    await option.waitFor({ timeout: 15_000 });
    expect(requested.filter((path) => path.startsWith('/static/generated/emoji/'))).toHaveLength(1);
    await page.keyboard.press('Enter');
    await expect(box.inputValue()).resolves.toBe('Look :octopus: ');
    await page.keyboard.press('Enter');
    await article(page, 'Mark Member', 'Look').filter({ has: page.locator('.emoji') }).waitFor({ timeout: 15_000 });
    await context.close();
  }, 90_000);

  it('shows messages from an XSS corpus as text, running none of them', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await logIn(context, 'member2@example.com');
    const corpus = [
      '<script>window.__xss = 1</script>',
      '<img src=x onerror="window.__xss = 2">',
      '[click](javascript:window.__xss=3)',
      '<svg onload="window.__xss = 4"></svg>',
      '`<b>code</b>` and <iframe src="javascript:window.__xss=5"></iframe>',
    ];
    await nav(page).getByRole('link', { name: /^#general/ }).click();
    // Through the compose box, one after another without waiting.
    for (const text of corpus) await send(page, '#general', 'xss', text);
    await article(page, 'Mary Member', '<iframe').last().waitFor({ timeout: 15_000 });
    for (const text of ['<script>window.__xss = 1</script>', '<img src=x onerror="window.__xss = 2">', '<svg onload="window.__xss = 4"></svg>']) {
      await article(page, 'Mary Member', text).first().waitFor();
    }
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('.rendered script, .rendered iframe, .rendered svg, .rendered img[onerror], .rendered a[href^="javascript"]').count()).toBe(0);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'xss-as-text-desktop.png') });
    await context.close();
  }, 90_000);
});
