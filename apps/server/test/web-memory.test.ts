/**
 * The web client's memory stays bounded under live traffic (issue 41, item 8), in
 * headless Chromium against the embedded server serving the built client: a page stays
 * open, following the combined feed and now and then a channel, while another person
 * sends messages of a few kilobytes each for WEB_MEMORY_SECONDS (default 120; an hour's
 * traffic is many times this, but what is kept per message shows within minutes). After
 * a warm-up of more messages than a feed holds (the client model's MESSAGE_LIMIT), the
 * page's JS heap is measured after a forced garbage collection (Chrome DevTools
 * Protocol: HeapProfiler.collectGarbage, then Runtime.getHeapUsage), and again at the end:
 * it may grow by at most GROWTH_BOUND. A client that kept every message it received would
 * grow by about MESSAGE_BYTES per message (the text, once, with its object), several times
 * the bound over the run.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { endpoints, type Actor } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { browserSuite } from './browser';
import { eventually, logIn, startWebServer } from './web-page';

const SECONDS = Number(process.env.WEB_MEMORY_SECONDS ?? 120);
const RATE_PER_SECOND = 15;
/** More than a feed keeps (1,000), so the measured run starts with full feeds. */
const WARM_UP = 1_500;
/** Then, after a visit to each channel: more than the feeds out of view keep (200 each). */
const AFTER_VISITS = 900;
const MESSAGE_BYTES = 6_000;
const GROWTH_BOUND = 4 * 2 ** 20;
const CHANNELS = ['memory-0', 'memory-1', 'memory-2'];
const EMAIL = 'member@example.com';

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

browserSuite('the web client under live traffic', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let sender: Actor;
  let reader: Actor;
  let after = 0;
  let sent = 0;
  let newest = 0;

  /** A message of about MESSAGE_BYTES: paragraphs of words, each message's own. */
  /**
   * Sends `n` messages at once, which the person then reads (as on another device): a
   * feed reopened starts at the first unread message, and the run follows the newest.
   */
  const burst = async (n: number) => {
    const ids = await Promise.all(Array.from({ length: n }, send));
    await callContract(server!.bus, endpoints.messaging.updateFlags, { actor: reader, after, params: { messages: ids, op: 'add', flag: 'read' } });
  };

  const send = async () => {
    const n = sent++;
    const paragraph = Array.from({ length: 60 }, (_, w) => `word${(n * 31 + w) % 997}`).join(' ');
    const content = Array.from({ length: Math.ceil(MESSAGE_BYTES / paragraph.length) }, (_, p) => `${p}. ${paragraph}`).join('\n\n');
    const { value } = await callContract(server!.bus, endpoints.messaging.sendMessage, {
      actor: sender,
      after,
      params: { type: 'stream', to: CHANNELS[n % CHANNELS.length]!, topic: `topic ${n % 40}`, content },
    });
    newest = Math.max(newest, value.id);
    return value.id;
  };

  beforeAll(async () => {
    server = await startWebServer('web-memory');
    const key = (username: string) => callContract(server!.bus, endpoints.accounts.devFetchApiKey, { params: { username } });
    const owner = await key('owner@example.com');
    const member = await key(EMAIL);
    sender = (await callContract(server.bus, endpoints.accounts.authenticate, { params: { email: 'owner@example.com', api_key: owner.value.api_key, client: 'test' } })).value.actor;
    reader = (await callContract(server.bus, endpoints.accounts.authenticate, { params: { email: EMAIL, api_key: member.value.api_key, client: 'test' } })).value.actor;
    for (const name of CHANNELS) {
      const created = await callContract(server.bus, endpoints.channels.createChannel, { params: { name, subscribers: [owner.value.user_id, member.value.user_id] } });
      after = Math.max(after, created.position ?? 0);
    }
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  const heap = async (page: Page) => {
    const cdp = await page.context().newCDPSession(page);
    try {
      // Twice: what the first collection frees can hold more that the second frees.
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    } finally {
      await cdp.detach();
    }
  };

  /** The newest message sent is in the page's feed: it has taken everything sent so far. */
  const caughtUp = async (page: Page) =>
    eventually(async () => {
      const shown = await page.evaluate<number>(`Math.max(0, ...[...document.querySelectorAll('.feed article[data-id]')].map((a) => Number(a.dataset.id)))`);
      expect(shown).toBe(newest);
    }, 30_000);

  it(`grows the page's heap by less than ${MiB(GROWTH_BOUND)} over ${SECONDS} s of messages, after a warm-up of ${WARM_UP + AFTER_VISITS}`, async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await logIn(context, server!.url, EMAIL);
      const nav = page.getByRole('navigation', { name: 'Channels and conversations' });
      await page.locator('.feed').waitFor();

      // Warm-up, in bursts the page follows: the feeds fill to their limit.
      for (let i = 0; i < WARM_UP; i += 100) await burst(100);
      await caughtUp(page);
      // Each narrow the run visits, once full, then back to the combined feed.
      for (const name of CHANNELS) {
        await nav.getByRole('link', { name: new RegExp(`^#${name}`) }).click();
        await page.locator('.feed article[data-id]').first().waitFor();
      }
      await nav.getByRole('link', { name: /^Combined feed/ }).click();
      // The feeds out of view fill to what they keep.
      for (let i = 0; i < AFTER_VISITS; i += 100) await burst(100);
      await caughtUp(page);
      const before = await heap(page);

      // Live traffic at a steady rate; every 20 s the person looks at a channel and comes back.
      const started = Date.now();
      let visits = 0;
      while (Date.now() - started < SECONDS * 1000) {
        const tick = Date.now();
        await burst(RATE_PER_SECOND);
        if (Math.floor((Date.now() - started) / 20_000) > visits) {
          visits++;
          await nav.getByRole('link', { name: new RegExp(`^#${CHANNELS[visits % CHANNELS.length]}`) }).click();
          await page.waitForTimeout(1_000);
          await nav.getByRole('link', { name: /^Combined feed/ }).click();
        }
        await page.waitForTimeout(Math.max(0, 1_000 - (Date.now() - tick)));
      }
      await caughtUp(page);
      const end = await heap(page);
      const articles = await page.locator('.feed article[data-id]').count();
      process.stdout.write(`web memory: heap ${MiB(before)} after ${WARM_UP + AFTER_VISITS} messages, ${MiB(end)} after ${sent - WARM_UP - AFTER_VISITS} more over ${SECONDS} s (growth ${MiB(end - before)}; ${articles} articles in the DOM)\n`);
      expect(sent - WARM_UP - AFTER_VISITS).toBeGreaterThanOrEqual(RATE_PER_SECOND * SECONDS * 0.5);
      expect(end - before).toBeLessThan(GROWTH_BOUND);
    } finally {
      await context.close();
    }
  }, (SECONDS + 180) * 1000);
});
