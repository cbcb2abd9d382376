/**
 * The web client's feed keeps its DOM bounded however far a person scrolls (issue 39,
 * item 8), in headless Chromium against the embedded server serving the built client: a
 * channel of a few thousand messages (stored through the bus, not the page), opened at
 * its newest, scrolled with the mouse wheel up to its very first message (through many
 * older-message fetches by anchor) and back down to the newest, which then follows a new
 * message. All along, a watcher in the page records the most message articles ever in the
 * DOM at once, and every sample of the DOM must be a run of the channel's messages in
 * order, without a gap or a duplicate.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { endpoints, type Actor } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '../src/embedded';
import { browserSuite } from './browser';
import { freePort, tempDataDir } from './harness';

const ROOT = join(__dirname, '..', '..', '..');
/** The most message articles the feed may hold in the DOM: apps/web/src/feed.tsx's WINDOW. */
const WINDOW = 150;
/** Twenty times the window, thirty pages of the feed's older-message fetches. */
const MESSAGES = 3000;
const EMAIL = 'member@example.com';

function ensureBuilt(): void {
  if (existsSync(join(ROOT, 'apps', 'web', 'dist', 'index.html'))) return;
  execFileSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: ROOT, stdio: 'inherit' });
}

/** Installed before the page's scripts: the most articles in the DOM at any moment. */
const WATCH = `
  window.__mostArticles = 0;
  new MutationObserver(() => {
    const n = document.querySelectorAll('.feed article[data-id]').length;
    if (n > window.__mostArticles) window.__mostArticles = n;
  }).observe(document, { subtree: true, childList: true });
`;

/** Polls an expression in the page until it is true (page.waitForFunction would eval it, which the page's CSP refuses). */
async function until(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const domIds = (page: Page) => page.evaluate<number[]>(`[...document.querySelectorAll('.feed article[data-id]')].map((a) => Number(a.dataset.id))`);

browserSuite('the web client feed, windowed', (browser) => {
  let server: Awaited<ReturnType<typeof startEmbeddedServer>> | undefined;
  let base: string;
  let actor: Actor;
  /** The store position of the channel's creation: messaging has seen the channel once it reaches it. */
  let after: number;
  /** The channel's message ids, ascending. */
  let ids: number[] = [];

  const send = async (content: string) => {
    const { value } = await callContract(server!.bus, endpoints.messaging.sendMessage, {
      actor,
      after,
      params: { type: 'stream', to: 'long history', topic: `topic ${Math.floor(ids.length / 100) % 7}`, content, read_by_sender: true },
    });
    return value.id;
  };

  beforeAll(async () => {
    ensureBuilt();
    process.env.LOG_LEVEL ??= 'silent';
    const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: tempDataDir() });
    server = await startEmbeddedServer(config, createLogger('web-feed-window'), { host: '127.0.0.1', port: await freePort() });
    base = server.url;
    const key = (await (await fetch(`${base}/api/v1/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: EMAIL }) })).json()) as { api_key: string; user_id: number };
    actor = (await callContract(server.bus, endpoints.accounts.authenticate, { params: { email: EMAIL, api_key: key.api_key, client: 'test' } })).value.actor;
    const created = await callContract(server.bus, endpoints.channels.createChannel, { params: { name: 'long history', subscribers: [key.user_id] } });
    after = created.position ?? 0;
    // Sixteen at a time: the ids are the order the server gave, whatever order the sends finished in.
    let next = 0;
    const sent: number[] = [];
    const worker = async () => {
      for (let i = next++; i < MESSAGES; i = next++) sent.push(await send(`window message ${i}`));
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    ids = sent.sort((a, b) => a - b);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it(`keeps at most ${WINDOW} messages in the DOM from the newest of ${MESSAGES} up to the first and back, in order without gaps`, async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(WATCH);
    const page = await context.newPage();
    page.on('pageerror', (e) => process.stdout.write(`page error: ${e.message}\n`));
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: /member@example\.com/ }).click();
    await page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: /^#long history/ }).click();
    const newest = ids.at(-1)!;
    await page.locator(`.feed article[data-id="${newest}"]`).waitFor();

    /** The DOM's messages: a run of the channel's, in order, none missing or twice, within the window. */
    const check = async () => {
      const shown = await domIds(page);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.length).toBeLessThanOrEqual(WINDOW);
      const from = ids.indexOf(shown[0]!);
      expect(from).toBeGreaterThanOrEqual(0);
      expect(shown).toEqual(ids.slice(from, from + shown.length));
      return shown;
    };
    const feedBox = (await page.locator('.feed').boundingBox())!;
    await page.mouse.move(feedBox.x + feedBox.width / 2, feedBox.y + feedBox.height / 2);

    // Up: each wheel turn to the top slides the window or fetches the page before it.
    let shown = await check();
    let steps = 0;
    while (shown[0] !== ids[0]) {
      expect(++steps).toBeLessThan(400);
      const first = shown[0]!;
      await page.mouse.wheel(0, -20_000);
      await until(page, `document.querySelector('.feed article[data-id]')?.dataset.id !== '${first}'`);
      shown = await check();
    }
    await page.getByText('This is the start of the conversation.').waitFor();
    const upSteps = steps;

    // Down again to the newest.
    steps = 0;
    while (shown.at(-1) !== newest) {
      expect(++steps).toBeLessThan(400);
      const last = shown.at(-1)!;
      await page.mouse.wheel(0, 20_000);
      await until(page, `[...document.querySelectorAll('.feed article[data-id]')].at(-1)?.dataset.id !== '${last}'`);
      shown = await check();
    }
    // The window's last slide kept the reader's place; one more turn reaches the bottom,
    // where the feed follows what is sent next.
    await page.mouse.wheel(0, 20_000);
    await until(page, `(() => { const f = document.querySelector('.feed'); return f.scrollHeight - f.scrollTop - f.clientHeight < 2; })()`);
    const latest = await send('the newest, sent after the round trip');
    ids.push(latest);
    await page.locator(`.feed article[data-id="${latest}"]`).waitFor({ timeout: 15_000 });
    shown = await check();
    expect(shown.at(-1)).toBe(latest);

    // The whole history went through the DOM (scrolling took many turns each way), never more than the window at once.
    expect(upSteps).toBeGreaterThan(MESSAGES / WINDOW);
    expect(steps).toBeGreaterThan(MESSAGES / WINDOW);
    const most = await page.evaluate<number>('window.__mostArticles');
    expect(most).toBeGreaterThan(WINDOW / 2);
    expect(most).toBeLessThanOrEqual(WINDOW);
    await context.close();
  }, 300_000);
});
