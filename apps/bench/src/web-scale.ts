/**
 * The web client at an organization's scale (issue 41 item 8): a server seeded through
 * the services' bus endpoints (the command path of the HTTP API) with WEB_SCALE_USERS
 * people (default 10,000), WEB_SCALE_CHANNELS channels (default 1,000) the viewer is
 * subscribed to, and WEB_SCALE_TOPICS topics (default 10,000), one unread message each;
 * then, in headless Chromium, as that viewer:
 *
 * - login to first paint: the login button's click to the frame after the combined
 *   feed's first message entered the DOM;
 * - narrow switch: a click on a channel in the sidebar to the frame after the new feed's
 *   first message;
 * - input to paint: each keystroke typed in the compose box (plain words, then an
 *   `@` mention whose suggestions search every person), from the keydown event's
 *   timestamp to the frame after it (requestAnimationFrame, then a task).
 *
 * The page measures itself (a script installed before the page's own), so no driver
 * round trip is in the figures.
 */
import { endpoints, ROLE, type Actor } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import type { EmbeddedServer } from '@teamchat/server';
import type { Browser, Page } from 'playwright-core';
import { percentile } from './latency';
import { settle } from './settle';
import { findChromium } from './web-first-messages';

const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, not ${process.env[name]}`);
  return value;
};

export interface WebScaleSizes {
  users: number;
  channels: number;
  topics: number;
}

export const webScaleSizes = (): WebScaleSizes => ({ users: count('WEB_SCALE_USERS', 10_000), channels: count('WEB_SCALE_CHANNELS', 1_000), topics: count('WEB_SCALE_TOPICS', 10_000) });
/** Fresh contexts (each a login, the switches and the typing). */
const RUNS = count('WEB_SCALE_RUNS', 3);
const SWITCHES = 6;
const TIMEOUT_MS = 120_000;
const CONCURRENCY = 16;
/** The viewer: a development user, subscribed to every channel. */
export const VIEWER = 'moderator@example.com';

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export interface SeedTimes {
  users: number;
  channels: number;
  topics: number;
}

/** Seeds the organization; returns how long each part took (ms). */
export async function seedWebScale(server: EmbeddedServer, sizes: WebScaleSizes, log: (line: string) => void): Promise<SeedTimes> {
  const { bus } = server;
  const key = async (username: string) => (await callContract(bus, endpoints.accounts.devFetchApiKey, { params: { username } })).value.user_id;
  const viewer = await key(VIEWER);
  const ownerId = await key('owner@example.com');
  const owner: Actor = { user_id: ownerId, email: 'owner@example.com', full_name: 'Olivia Owner', role: ROLE.owner, is_bot: false, client: 'web-scale-bench' };
  let after = 0;

  let started = Date.now();
  const users: number[] = [];
  await pool(Array.from({ length: sizes.users }, (_, u) => u), CONCURRENCY, async (u) => {
    const reply = await callContract(bus, endpoints.accounts.createUser, { params: { email: `person${u}@scale.example.com`, full_name: `Person ${u} Scale`, role: ROLE.member } }, { timeoutMs: TIMEOUT_MS });
    users[u] = reply.value.user_id;
    after = Math.max(after, reply.position ?? 0);
    if ((u + 1) % 1_000 === 0) log(`  ${u + 1} of ${sizes.users} users`);
  });
  const usersMs = Date.now() - started;

  started = Date.now();
  const channels: string[] = Array.from({ length: sizes.channels }, (_, c) => `scale-${String(c).padStart(4, '0')}`);
  await pool(channels, CONCURRENCY, async (name, c) => {
    const subscribers = [viewer, ownerId, users[c % users.length]!];
    const reply = await callContract(bus, endpoints.channels.createChannel, { params: { name, description: `Channel ${c}`, subscribers }, after }, { timeoutMs: TIMEOUT_MS });
    after = Math.max(after, reply.position ?? 0);
  });
  const channelsMs = Date.now() - started;

  // One message per topic, from the owner: unread for the viewer, so every topic has a count.
  started = Date.now();
  await pool(Array.from({ length: sizes.topics }, (_, t) => t), 64, async (t) => {
    const params = { type: 'stream' as const, to: channels[t % channels.length]!, topic: `topic ${Math.floor(t / channels.length)} of ${channels[t % channels.length]}`, content: `message ${t} to start a topic` };
    await callContract(bus, endpoints.messaging.sendMessage, { actor: owner, after, params }, { timeoutMs: TIMEOUT_MS });
    if ((t + 1) % 2_000 === 0) log(`  ${t + 1} of ${sizes.topics} topics`);
  });
  return { users: usersMs, channels: channelsMs, topics: Date.now() - started };
}

/** Installed before the page's scripts. */
const PROBE = `
  window.__scale = { keys: [] };
  const marks = window.__scale;
  const afterFrame = (done) => requestAnimationFrame(() => setTimeout(() => done(performance.now())));
  document.addEventListener('click', (e) => {
    if (marks.click === undefined) { marks.click = performance.now(); return; }
    const link = e.target.closest && e.target.closest('a.entry.channel');
    if (link) marks.switch = { start: performance.now(), old: document.querySelector('.feed') };
  }, true);
  new MutationObserver(() => {
    const feed = document.querySelector('.feed');
    if (marks.click !== undefined && marks.dom === undefined && document.querySelector('.feed article[data-id]')) {
      marks.dom = performance.now();
      afterFrame((t) => { marks.paint = t; });
    }
    const s = marks.switch;
    if (s && s.dom === undefined && feed && feed !== s.old && feed.querySelector('article[data-id]')) {
      s.dom = performance.now();
      afterFrame((t) => { s.paint = t; });
    }
  }).observe(document, { subtree: true, childList: true });
  document.addEventListener('keydown', (e) => {
    if (e.target && e.target.id === 'compose-content') { const start = e.timeStamp; afterFrame((t) => marks.keys.push(t - start)); }
  }, true);
`;

interface Run {
  /** Click to the combined feed's first message painted. */
  paint: number;
  /** Click to the end of POST /json/register's reply, and its size (bytes on the wire). */
  register: number;
  registerBytes: number;
  switches: number[];
  keys: number[];
  /** Keystrokes while the `@` suggestions were open. */
  mentionKeys: number[];
  suggestions: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(page: Page, expression: string): Promise<void> {
  // Polled: page.waitForFunction evaluates its string in the page, which the CSP refuses.
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await pause(10);
  }
}

async function oneRun(browser: Browser, base: string): Promise<Run> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: /moderator@example\.com/ }).click();
    await until(page, 'window.__scale.paint !== undefined');
    const { paint, register, registerBytes } = await page.evaluate<{ paint: number; register: number; registerBytes: number }>(`(() => {
      const marks = window.__scale;
      const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('/json/register'));
      return { paint: marks.paint - marks.click, register: entry ? entry.responseEnd - marks.click : NaN, registerBytes: entry ? entry.encodedBodySize : NaN };
    })()`);
    // The sidebar's topics and the rest of the first screen's requests answered.
    await pause(2_500);

    const switches: number[] = [];
    for (let i = 1; i <= SWITCHES; i++) {
      const links = page.locator('#sidebar a.entry.channel');
      await links.nth(i * 3).click();
      await until(page, 'window.__scale.switch.paint !== undefined');
      switches.push(await page.evaluate<number>('window.__scale.switch.paint - window.__scale.switch.start'));
      await pause(300);
    }

    const box = page.locator('#compose-content');
    await box.click();
    await page.evaluate('window.__scale.keys = []');
    await page.keyboard.type('the quick brown fox jumps over the lazy dog ', { delay: 40 });
    await pause(300);
    const keys = await page.evaluate<number[]>('window.__scale.keys.slice()');
    await page.evaluate('window.__scale.keys = []');
    await page.keyboard.type('@person12', { delay: 40 });
    await pause(300);
    const mentionKeys = await page.evaluate<number[]>('window.__scale.keys.slice()');
    const suggestions = await page.locator('ul.suggestions [role=option]').count();
    return { paint, register, registerBytes, switches, keys, mentionKeys, suggestions };
  } finally {
    await context.close();
  }
}

export type WebScaleReport = { skipped: string } | { runs: Run[]; sizes: WebScaleSizes; seed: SeedTimes };

export async function measureWebScale(base: string, sizes: WebScaleSizes, seed: SeedTimes): Promise<WebScaleReport> {
  const found = findChromium();
  if ('reason' in found) return { skipped: found.reason };
  const { chromium } = await import('playwright-core');
  const probe = await fetch(`${base}/login`, { headers: { accept: 'text/html' } });
  if (!(await probe.text()).includes('/static/')) return { skipped: 'the web client is not built (npm run build:web)' };
  const browser = await chromium.launch({ executablePath: found.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'], timeout: 30_000 });
  try {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await oneRun(browser, base));
      await settle();
    }
    return { runs, sizes, seed };
  } finally {
    await browser.close();
  }
}

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(0));
const sorted = (values: number[]) => values.slice().sort((a, b) => a - b);

export function webScaleLines(report: WebScaleReport): string[] {
  if ('skipped' in report) return [`web at scale: skipped (${report.skipped})`];
  const { runs, sizes, seed } = report;
  const paint = sorted(runs.map((r) => r.paint));
  const switches = sorted(runs.flatMap((r) => r.switches));
  const keys = sorted(runs.flatMap((r) => r.keys));
  const mention = sorted(runs.flatMap((r) => r.mentionKeys));
  return [
    `web at scale (${sizes.users} users, ${sizes.channels} channels, ${sizes.topics} topics unread; ${runs.length} fresh contexts as ${VIEWER}):`,
    `  login → combined feed painted: p50 ${ms(percentile(paint, 50))} ms, max ${ms(paint.at(-1))} ms ` +
      `(POST /json/register answered at p50 ${ms(percentile(sorted(runs.map((r) => r.register)), 50))} ms, ${(runs[0]!.registerBytes / 2 ** 20).toFixed(1)} MiB)`,
    `  narrow switch (sidebar click → new feed painted, ${switches.length} switches): p50 ${ms(percentile(switches, 50))} ms, p99 ${ms(percentile(switches, 99))} ms`,
    `  compose keydown → next frame (${keys.length} keys): p50 ${ms(percentile(keys, 50))} ms, p99 ${ms(percentile(keys, 99))} ms; ` +
      `typing an @-mention (${mention.length} keys, ${runs.at(-1)!.suggestions} suggestions shown): p50 ${ms(percentile(mention, 50))} ms, p99 ${ms(percentile(mention, 99))} ms`,
    `  seeded through the bus in ${(seed.users / 1000).toFixed(1)} s (users) + ${(seed.channels / 1000).toFixed(1)} s (channels) + ${(seed.topics / 1000).toFixed(1)} s (topics)`,
  ];
}
