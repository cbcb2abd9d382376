/**
 * Headless-browser tests: Chromium from the Debian package (`apt-get install chromium`,
 * which .ci/run does when it is absent), driven by playwright-core pointed at that binary
 * (playwright-core downloads no browser of its own).
 *
 * `browserSuite(name, body)` declares a jest `describe` whose tests get a launched
 * browser. Without a Chromium binary the suite is skipped with one printed reason, except
 * under CI=true, where a browser is required and its absence fails the suite.
 *
 * The binary: TEAMCHAT_CHROMIUM if set, else the first of the usual paths that exists.
 */
import { accessSync, constants } from 'node:fs';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium binary to drive, or why there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): { path: string } | { reason: string } {
  const chosen = env.TEAMCHAT_CHROMIUM?.trim();
  if (chosen) return executable(chosen) ? { path: chosen } : { reason: `TEAMCHAT_CHROMIUM=${chosen} is not an executable file` };
  const found = CANDIDATES.find(executable);
  return found ? { path: found } : { reason: `no Chromium binary at ${CANDIDATES.join(', ')} (install it with: apt-get install -y chromium, or set TEAMCHAT_CHROMIUM)` };
}

export async function launchBrowser(path: string): Promise<Browser> {
  return chromium.launch({
    executablePath: path,
    headless: true,
    // Chromium's sandbox refuses to run as root (as CI does) and needs namespaces a
    // container may not offer; the pages tested are the project's own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    timeout: 30_000,
  });
}

export function browserSuite(name: string, body: (browser: () => Browser) => void): void {
  const found = findChromium();
  if ('reason' in found) {
    if (process.env.CI === 'true') {
      describe(name, () => {
        it('has a headless browser (required under CI=true)', () => {
          throw new Error(`no browser for the browser tests: ${found.reason}`);
        });
      });
      return;
    }
    process.stdout.write(`browser tests "${name}" skipped: ${found.reason}\n`);
    describe.skip(name, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchBrowser(found.path);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });
    body(() => {
      if (!browser) throw new Error(`the browser at ${found.path} did not start`);
      return browser;
    });
  });
}
