/**
 * The sidebar with many channels (issue 41, item 8), in headless Chromium: a person
 * subscribed to 300 channels gets the first rows at once and the rest as the sidebar
 * scrolls (apps/web/src/app.tsx, CHANNEL_CHUNK), a channel opened by its address is listed
 * even when it sorts far down, and mention suggestions over the organization's people come
 * from the store's prepared index. Screenshots at desktop and phone widths:
 * apps/web/screenshots/many-channels-*.png; axe finds no serious or critical violation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { endpoints, ROLE } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import {clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const CHANNELS = 300;
const PEOPLE = 200;
const EMAIL = 'member@example.com';
const name = (c: number) => `many-${String(c).padStart(3, '0')}`;

browserSuite('the web client with many channels', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let lastId = 0;

  beforeAll(async () => {
    server = await startWebServer('web-many-channels');
    const member = await callContract(server.bus, endpoints.accounts.devFetchApiKey, { params: { username: EMAIL } });
    for (let u = 0; u < PEOPLE; u++) await callContract(server.bus, endpoints.accounts.createUser, { params: { email: `crowd${u}@example.com`, full_name: `Crowd Person ${u}`, role: ROLE.member } });
    for (let c = 0; c < CHANNELS; c++) {
      const created = await callContract(server.bus, endpoints.channels.createChannel, { params: { name: name(c), subscribers: [member.value.user_id] } });
      lastId = created.value.channel_id;
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('renders the sidebar a chunk at a time as it scrolls, always with the open channel', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await logIn(context, server!.url, EMAIL);
      const sidebar = page.locator('nav#sidebar');
      const rows = sidebar.locator('a.entry.channel');
      await eventually(async () => expect(await rows.count()).toBeGreaterThan(0));
      const first = await rows.count();
      expect(first).toBeLessThan(CHANNELS);
      await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'many-channels-desktop.png') });
      expect(describeViolations(await seriousViolations(page))).toEqual([]);

      // Scrolled to its end again and again: every channel comes, in order.
      await eventually(async () => {
        await sidebar.evaluate((el) => (el.scrollTop = el.scrollHeight));
        // Beside the organization's own channels.
        expect(await rows.count()).toBeGreaterThanOrEqual(CHANNELS);
        expect(await sidebar.getByRole('link', { name: new RegExp(`^#${name(CHANNELS - 1)}`) }).count()).toBe(1);
      }, 20_000);

      // The mention suggestions find someone far down the list of people.
      const box = page.locator('#compose-content');
      await box.click();
      await box.pressSequentially(`@crowd${PEOPLE - 1}`);
      await expect(page.getByRole('option', { name: new RegExp(`Crowd Person ${PEOPLE - 1}`) }).count()).resolves.toBe(1);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('lists a channel opened by its address though it sorts far down, at phone width too', async () => {
    const context = await browser().newContext({ viewport: { width: 375, height: 740 } });
    try {
      const page = await logIn(context, server!.url, EMAIL, `/#narrow/channel/${lastId}-${name(CHANNELS - 1)}`);
      await page.getByRole('button', { name: 'Channels and conversations' }).click();
      const open = page.locator('nav#sidebar a.entry.channel[aria-current="page"]');
      await eventually(async () => expect(await open.textContent()).toContain(name(CHANNELS - 1)));
      expect(await page.locator('nav#sidebar a.entry.channel').count()).toBeGreaterThanOrEqual(CHANNELS);
      await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'many-channels-375.png') });
      expect(describeViolations(await seriousViolations(page))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
