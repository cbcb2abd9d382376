/**
 * What the web client's browser tests beyond web-browser.test.ts share: the embedded
 * server serving the built client, messages seeded over the API as a script would, a
 * dev login, and polling (the page's CSP refuses page.waitForFunction's eval).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '../src/embedded';
import { freePort, tempDataDir } from './harness';

const ROOT = join(__dirname, '..', '..', '..');
export const SHOTS = join(ROOT, 'apps', 'web', 'screenshots');
export const DIST = join(ROOT, 'apps', 'web', 'dist');

/**
 * Builds the client when this checkout has no build yet (`npm test` alone does not build
 * it), as on a fresh clone (CI). Only Vite, under a second: the workspace's `build` script
 * type-checks apps/web first, which `npm test` has done before jest runs, and which took
 * 35 s of the first browser test on CI's two cores, twice when two browser files started
 * together. Vite writes a directory of its own, renamed to dist/ once complete, so that
 * a file starting beside this one never serves a half-written or emptied dist/.
 */
export function ensureBuilt(): void {
  const index = join(DIST, 'index.html');
  if (existsSync(index)) return;
  const out = `${DIST}.building-${process.pid}`;
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', out], { cwd: join(ROOT, 'apps', 'web') });
    try {
      renameSync(out, DIST);
    } catch {
      // Another file's build got there first; a dist/ without its page is left-over.
      if (existsSync(index)) return;
      rmSync(DIST, { recursive: true, force: true });
      renameSync(out, DIST);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function startWebServer(name: string) {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  process.env.LOG_LEVEL ??= 'silent';
  const dataDir = tempDataDir();
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_HEARTBEAT_SECONDS: '2' });
  // The data directory too: a test reads the development outbox there (the mails sent).
  return Object.assign(await startEmbeddedServer(config, createLogger(name), { host: '127.0.0.1', port: await freePort() }), { dataDir });
}

/** A user's API access, as a script has it (Basic auth with the dev API key). */
export async function apiUser(base: string, email: string) {
  const { api_key, user_id } = (await (await fetch(`${base}/api/v1/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }) })).json()) as { api_key: string; user_id: number };
  const auth = `Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`;
  const call = async (method: string, path: string, params: Record<string, string> = {}) => {
    const body = new URLSearchParams(params);
    const reply = await fetch(`${base}/api/v1${path}${method === 'GET' ? `?${body}` : ''}`, { method, headers: { authorization: auth }, body: method === 'GET' ? undefined : body });
    const json = (await reply.json()) as Record<string, any>;
    if (json.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
  return {
    user_id,
    call,
    sendToChannel: async (channel: string, topic: string, content: string) => (await call('POST', '/messages', { type: 'stream', to: channel, topic, content })).id as number,
    sendDirect: async (to: number[], content: string) => (await call('POST', '/messages', { type: 'direct', to: JSON.stringify(to), content })).id as number,
  };
}

export async function logIn(context: BrowserContext, base: string, email: string, path = '/'): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => process.stdout.write(`page error (${email}): ${e.message}\n`));
  await page.goto(`${base}/login`);
  await page.getByRole('button', { name: new RegExp(email.replace('.', '\\.')) }).click();
  // Attached, not visible: at phone widths the sidebar is behind its menu button.
  await page.locator('nav#sidebar').waitFor({ state: 'attached' });
  if (path !== '/') await page.goto(`${base}${path}`);
  return page;
}

/** Polls until `check` stops throwing (its last failure is the error). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * What a screenshot masks: every time of day or date the page shows (messages', drafts',
 * invitations' and the like as <time> elements, a user card's local time, a date-and-time
 * input), which differ on every run. The rest of the picture stays the same from one run
 * to the next, so a changed screenshot is a changed screen. (Fixing the browser's clock
 * with page.clock would not do: message times come from the server's clock, and a frozen
 * Date.now would stop the presence, typing and draft timers these tests follow.)
 */
export const CLOCKS = 'time, .local-time, input[type="datetime-local"]';

/** Screenshot options masking the page's clocks (spread before `path`). */
export function clocksMasked(page: Page): { mask: Locator[]; maskColor: string } {
  return { mask: [page.locator(CLOCKS)], maskColor: '#8a8f98' };
}
