/**
 * Avatars in the web client (issue 41, item 4) in headless Chromium against the embedded
 * server: Mark uploads one in his settings (the file picker by its name, the preview and
 * the progress while it uploads), Mary's page shows his new avatar beside his message at
 * once (the realm_user event), and shows his initials again when he removes it; a file
 * that is no image, one the server finds is no image, and one over the server's limit are
 * refused in words next to the picker, the avatar unchanged. Screenshots:
 * apps/web/screenshots/avatar-*.png at desktop and 375 px; axe finds no serious violation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { png } from './png';
import { browserSuite } from './browser';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const MARK = 'member@example.com';
const MARY = 'member2@example.com';
/** The server's avatar limit in this test, so that "too large" needs only a small file. */
const LIMIT_MIB = 1;

/** A `size`-pixel square PNG of concentric rings: an avatar a person can tell apart in a screenshot. */
const RING_COLOURS = [[214, 69, 65], [250, 200, 70], [40, 120, 200]];
const rings = (size: number): Buffer => png(size, size, (x, y) => RING_COLOURS[Math.floor(Math.hypot(x - size / 2, y - size / 2) / (size / 10)) % 3]!);

browserSuite('avatars in the web client', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let generalId: number;
  const contexts: BrowserContext[] = [];
  const previousLimit = process.env.TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB;

  beforeAll(async () => {
    process.env.TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB = String(LIMIT_MIB);
    server = await startWebServer('web-avatar');
    base = server.url;
    const mark = await apiUser(base, MARK);
    const streams = (await mark.call('GET', '/streams')).streams as { name: string; stream_id: number }[];
    generalId = streams.find((s) => s.name === 'general')!.stream_id;
    await mark.sendToChannel('general', 'pictures', 'Mark says hello');
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await server?.stop();
    if (previousLimit === undefined) delete process.env.TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB;
    else process.env.TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB = previousLimit;
  });

  async function open(email: string): Promise<Page> {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await logIn(context, base, email, `/#narrow/channel/${generalId}/topic/pictures`);
    await page.getByText('Mark says hello').waitFor();
    return page;
  }
  async function expectAccessible(page: Page, what: string) {
    expect({ what, violations: describeViolations(await seriousViolations(page)) }).toEqual({ what, violations: [] });
  }
  async function shoot(page: Page, name: string, target?: Locator) {
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `avatar-${name}-desktop.png`) });
    await page.setViewportSize({ width: 375, height: 740 });
    await target?.scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `avatar-${name}-375.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  const settings = async (page: Page) => {
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    return dialog;
  };
  /** The avatar beside Mark's message on a page: its image's address, or null for initials. */
  const marksAvatar = (page: Page) => page.locator('article', { hasText: 'Mark says hello' }).locator('.avatar').first().getAttribute('src');

  it('Mark uploads one (preview and progress while it goes), and Mary sees it beside his message at once', async () => {
    const mary = await open(MARY);
    expect(await marksAvatar(mary)).toBeNull();
    const mark = await open(MARK);
    const dialog = await settings(mark);
    const picker = dialog.getByLabel('Upload a new avatar');
    // The server is held back a moment, so that the preview and the progress can be seen.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await mark.route('**/json/users/me/avatar', async (route) => {
      await held;
      await route.continue();
    });
    await picker.setInputFiles({ name: 'rings.png', mimeType: 'image/png', buffer: rings(160) });
    await dialog.getByRole('img', { name: 'Preview of the new avatar' }).waitFor();
    await dialog.getByRole('progressbar', { name: 'Avatar upload' }).waitFor();
    await expectAccessible(mark, 'avatar uploading');
    await shoot(mark, 'uploading', dialog);
    release();
    await eventually(async () => expect(await dialog.getByRole('status').filter({ hasText: 'Avatar uploaded.' }).count()).toBe(1));
    await mark.unroute('**/json/users/me/avatar');
    const src = await eventually(async () => {
      const value = await dialog.locator('.avatar-setting img.avatar').getAttribute('src');
      expect(value).toMatch(/^\/user_avatars\/2\/[A-Za-z0-9_-]{24}\.png\?version=2$/);
      return value!;
    });
    // Mary's page follows the event: his message shows the new picture, loaded.
    await eventually(async () => expect(await marksAvatar(mary)).toBe(src));
    const image = mary.locator('article', { hasText: 'Mark says hello' }).locator('img.avatar').first();
    await eventually(async () => expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(160));
    await expectAccessible(mark, 'avatar uploaded');
    await shoot(mark, 'uploaded', dialog);
    await expectAccessible(mary, 'avatar seen by another person');
    await shoot(mary, 'seen', image);
  });

  it('refuses a file that is no image, one the server finds is none, and one over the limit, in words, the avatar unchanged', async () => {
    const mark = await open(MARK);
    const dialog = await settings(mark);
    const picker = dialog.getByLabel('Upload a new avatar');
    const before = await dialog.locator('.avatar-setting img.avatar').getAttribute('src');
    const outcome = dialog.locator('#settings-avatar-outcome');
    let sent = 0;
    await mark.route('**/json/users/me/avatar', (route) => {
      sent++;
      return route.continue();
    });
    await picker.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
    await eventually(async () => expect(await outcome.textContent()).toBe('Avatar not changed: “notes.txt” is not a PNG, JPEG, GIF or WebP image.'));
    await picker.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.concat([rings(8), Buffer.alloc(LIMIT_MIB * 1024 * 1024 + 100_000, 1)]) });
    await eventually(async () => expect(await outcome.textContent()).toBe(`Avatar not changed: “big.png” is 1.1 MiB, and this server takes files of up to ${LIMIT_MIB} MiB.`));
    expect(sent).toBe(0);
    // Named and typed as a PNG, but the bytes are markup: the server says so.
    await picker.setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') });
    await eventually(async () => expect(await outcome.textContent()).toBe('Avatar not changed: Could not decode image; did you upload an image file?'));
    expect(sent).toBe(1);
    expect(await outcome.getAttribute('role')).toBe('alert');
    expect(await dialog.locator('.avatar-setting img.avatar').getAttribute('src')).toBe(before);
    await mark.unroute('**/json/users/me/avatar');
    await expectAccessible(mark, 'avatar refused');
    await shoot(mark, 'refused', outcome);
  });

  it('Mark removes it, and Mary sees his initials again', async () => {
    const mary = await open(MARY);
    expect(await marksAvatar(mary)).toMatch(/^\/user_avatars\//);
    const mark = await open(MARK);
    const dialog = await settings(mark);
    await dialog.getByRole('button', { name: 'Remove avatar' }).click();
    await eventually(async () => expect(await dialog.getByRole('status').filter({ hasText: 'Avatar removed.' }).count()).toBe(1));
    await eventually(async () => expect(await dialog.getByRole('button', { name: 'Remove avatar' }).count()).toBe(0));
    await eventually(async () => expect(await marksAvatar(mary)).toBeNull());
    expect(await mary.locator('article', { hasText: 'Mark says hello' }).locator('.avatar.initials').textContent()).toBe('MM');
  });
});
