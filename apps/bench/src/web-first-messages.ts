/**
 * The web client's first screen (issue 39: at most 1 s from the login button to the first
 * messages on screen with 100,000 messages stored), in a real browser: Debian's Chromium
 * driven by playwright-core, as the browser tests drive it. Each run is a fresh browser
 * context (no cookie, no cache) that opens /login, clicks a development user's one-click
 * login button, and waits for the first message `article` in the feed; the server (in this
 * process) is left to fall idle between runs.
 *
 * The page measures itself, so that the figures hold no driver round trips: a script
 * installed before the page's own notes the click (capture phase), the first article
 * entering the DOM, and the frame after it (requestAnimationFrame, then a task: the frame
 * that shows it has been produced). The breakdown comes from the page's resource timings:
 * when the replies of POST /json/register and the first GET /json/messages ended, and
 * their sizes. Beside it, as the reference for a machine whose speed varies: the same
 * fresh context loading /login to its "Log in" button (the page and its script, no data).
 */
import { accessSync, constants } from 'node:fs';
import type { Browser } from 'playwright-core';
import { percentile } from './latency';
import { settle } from './settle';

/** Runs (each a fresh context); the first is reported too, as the cold one. */
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 7);
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** Installed before the page's scripts: the moments the figures are taken from. */
const PROBE = `
  window.__firstMessages = {};
  document.addEventListener('click', () => { window.__firstMessages.click ??= performance.now(); }, true);
  new MutationObserver((_, observer) => {
    const marks = window.__firstMessages;
    if (marks.click === undefined || !document.querySelector('.feed article[data-id]')) return;
    observer.disconnect();
    marks.dom = performance.now();
    requestAnimationFrame(() => setTimeout(() => { marks.paint = performance.now(); }));
  }).observe(document, { subtree: true, childList: true });
`;

/** What the page reports: times in ms since the click, sizes in bytes as they crossed the wire. */
const READ = `(() => {
  const marks = window.__firstMessages;
  const entry = (part) => performance.getEntriesByType('resource').find((e) => e.name.includes(part));
  const of = (e) => (e ? { start: e.startTime - marks.click, end: e.responseEnd - marks.click, bytes: e.encodedBodySize } : undefined);
  return { dom: marks.dom - marks.click, paint: marks.paint - marks.click, register: of(entry('/json/register')), messages: of(entry('/json/messages')) };
})()`;

/** One request of the page, in ms since the click. */
interface Exchange {
  start: number;
  end: number;
  bytes: number;
}

interface Run {
  dom: number;
  paint: number;
  register?: Exchange;
  messages?: Exchange;
  /** Loading /login in the fresh context to its button, the reference. */
  loginPage: number;
}

export type WebFirstMessagesReport = { skipped: string } | { runs: Run[]; email: string; messages: number };

/** The binary as the browser tests find it (apps/server/test/browser.ts, which production code may not import). */
export function findChromium(): { path: string } | { reason: string } {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const chosen = process.env.TEAMCHAT_CHROMIUM?.trim();
  if (chosen) return executable(chosen) ? { path: chosen } : { reason: `TEAMCHAT_CHROMIUM=${chosen} is not an executable file` };
  const found = CANDIDATES.find(executable);
  return found ? { path: found } : { reason: `no Chromium binary at ${CANDIDATES.join(', ')} (apt-get install -y chromium, or set TEAMCHAT_CHROMIUM)` };
}

async function oneRun(browser: Browser, base: string, email: string): Promise<Run> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    const opened = performance.now();
    await page.goto(`${base}/login`);
    const button = page.getByRole('button', { name: new RegExp(email.replace(/[.]/g, '\\.')) });
    await button.waitFor();
    const loginPage = performance.now() - opened;
    await button.click();
    await page.locator('.feed article[data-id]').first().waitFor({ timeout: 60_000 });
    // Polled from here: page.waitForFunction evaluates its string in the page, which the CSP refuses.
    while (!(await page.evaluate<boolean>('window.__firstMessages.paint !== undefined'))) await new Promise((resolve) => setTimeout(resolve, 5));
    return { ...((await page.evaluate(READ)) as Omit<Run, 'loginPage'>), loginPage };
  } finally {
    // Closed at once: the page marks what it showed as read after a moment, and the next run should find the same unread messages.
    await context.close();
  }
}

/** RUNS fresh logins of `email` into the web client served at `base`. */
export async function measureWebFirstMessages(base: string, email: string, messages: number): Promise<WebFirstMessagesReport> {
  const found = findChromium();
  if ('reason' in found) return { skipped: found.reason };
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return { skipped: 'playwright-core is not installed (npm ci installs it with the dev dependencies)' };
  }
  const probe = await fetch(`${base}/login`, { headers: { accept: 'text/html' } });
  if (!(await probe.text()).includes('/static/')) return { skipped: 'the web client is not built (npm run build:web)' };
  const browser = await chromium.launch({
    executablePath: found.path,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    timeout: 30_000,
  });
  try {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await oneRun(browser, base, email));
      // What the closed page had asked for (the sidebar's topics, after its first screen)
      // is answered before the next run starts, which would otherwise wait behind it.
      await settle();
    }
    return { runs, email, messages };
  } finally {
    await browser.close();
  }
}

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(0));
const kib = (n: number | undefined) => (n === undefined ? '-' : `${(n / 1024).toFixed(0)} KiB`);

/** The line, its breakdown (medians), and the reference beside it; `noop` is the no-op route's p50 latency and req/s when measured. */
export function webFirstMessagesLines(report: WebFirstMessagesReport, noop?: { p50: number; rps: number }): string[] {
  if ('skipped' in report) return [`web first messages: skipped (${report.skipped})`];
  const { runs } = report;
  const median = (pick: (r: Run) => number | undefined) => percentile(runs.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b), 50);
  const paint = runs.map((r) => r.paint).sort((a, b) => a - b);
  const lines = [
    `web first messages (login button → first message painted, ${report.messages} messages stored, ${runs.length} fresh contexts as ${report.email}): ` +
      `p50 ${ms(percentile(paint, 50))} ms, max ${ms(paint.at(-1))} ms, first (cold) ${ms(runs[0]!.paint)} ms`,
    `  breakdown (p50, ms after the click): POST /json/register ${ms(median((r) => r.register?.start))}–${ms(median((r) => r.register?.end))} (${kib(median((r) => r.register?.bytes))}), ` +
      `first GET /json/messages ${ms(median((r) => r.messages?.start))}–${ms(median((r) => r.messages?.end))} (${kib(median((r) => r.messages?.bytes))}), ` +
      `first article in the DOM ${ms(median((r) => r.dom))}, painted ${ms(median((r) => r.paint))}`,
    `  reference: /login loaded to its button in a fresh context p50 ${ms(median((r) => r.loginPage))} ms` +
      (noop ? `; no-op route ${noop.rps.toFixed(0)} req/s, p50 ${noop.p50} ms` : ''),
  ];
  return lines;
}
