/**
 * The web client's topics and channels (issue 41, item 5) in headless Chromium against
 * the embedded server: a topic muted from its sidebar menu is dimmed there and leaves the
 * combined feed (a new message to it stays out, one to another topic comes in), then
 * followed; browsing all channels and subscribing from there; a channel's color, pin and
 * a notification setting changed in its settings dialog, and leaving it. Screenshots:
 * apps/web/screenshots/channels-*.png; axe finds no serious or critical violation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const MARK = 'member@example.com';
const OWNER = 'owner@example.com';

browserSuite('the web client: topics and channels', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let owner: Awaited<ReturnType<typeof apiUser>>;
  let mark: Awaited<ReturnType<typeof apiUser>>;

  beforeAll(async () => {
    server = await startWebServer('web-channels');
    base = server.url;
    owner = await apiUser(base, OWNER);
    mark = await apiUser(base, MARK);
    await owner.sendToChannel('general', 'lunch', 'Pizza at noon?');
    await owner.sendToChannel('general', 'deploys', 'Release 1.2 is out');
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const feedText = (page: Page) => page.locator('.feed .messages').innerText();
  const subscription = async (name: string) => ((await mark.call('GET', '/users/me/subscriptions')).subscriptions as Record<string, unknown>[]).find((s) => s.name === name);

  it('mutes a topic from the sidebar: dimmed there, out of the combined feed, new messages to it too; then follows it', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK, '/#narrow/all');
    await eventually(async () => expect(await feedText(page)).toContain('Pizza at noon?'));
    const lunch = page.locator('.topics .entry-row', { has: page.locator('a', { hasText: 'lunch' }) });
    await lunch.waitFor();
    expect(await lunch.locator('a.entry').getAttribute('class')).not.toContain('muted');

    await page.locator('#sidebar').getByRole('button', { name: 'Options for topic lunch' }).click();
    await page.locator('#sidebar').getByRole('menuitem', { name: 'Mute topic' }).click();
    await eventually(async () => expect(await lunch.locator('a.entry').getAttribute('class')).toContain('muted'));
    expect(await lunch.locator('a.entry').innerText()).toContain('(muted)');
    await eventually(async () => expect(await feedText(page)).not.toContain('Pizza at noon?'));
    expect(await feedText(page)).toContain('Release 1.2 is out');
    // The server holds the policy (a second page, or a reload, sees it).
    const topics = (await mark.call('POST', '/register', { fetch_event_types: JSON.stringify(['user_topic']) })).user_topics as { topic_name: string; visibility_policy: number }[];
    expect(topics.find((t) => t.topic_name === 'lunch')?.visibility_policy).toBe(1);

    await owner.sendToChannel('general', 'lunch', 'Or sushi instead');
    await owner.sendToChannel('general', 'deploys', 'Release 1.3 is coming');
    await eventually(async () => expect(await feedText(page)).toContain('Release 1.3 is coming'));
    expect(await feedText(page)).not.toContain('Or sushi instead');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'channels-topic-muted-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    // Unmuted, its messages come back; followed, the menu offers to unfollow.
    await page.locator('#sidebar').getByRole('button', { name: 'Options for topic lunch' }).click();
    await page.locator('#sidebar').getByRole('menuitem', { name: 'Unmute topic' }).click();
    await eventually(async () => expect(await feedText(page)).toContain('Or sushi instead'));
    expect(await lunch.locator('a.entry').getAttribute('class')).not.toContain('muted');
    await page.locator('#sidebar').getByRole('button', { name: 'Options for topic lunch' }).click();
    await page.locator('#sidebar').getByRole('menuitem', { name: 'Follow topic' }).click();
    await eventually(async () => {
      await page.locator('#sidebar').getByRole('button', { name: 'Options for topic lunch' }).click();
      try {
        expect(await page.locator('#sidebar').getByRole('menuitem', { name: 'Unfollow topic' }).count()).toBe(1);
      } finally {
        await page.keyboard.press('Escape');
      }
    });

    // The same menu is in the feed's conversation header: muting "deploys" there takes it out of the combined feed.
    await page.locator('.feed').getByRole('button', { name: 'Options for topic deploys' }).first().click();
    await page.locator('.feed').getByRole('menuitem', { name: 'Mute topic' }).click();
    await eventually(async () => expect(await feedText(page)).not.toContain('Release 1.2 is out'));
    expect(await feedText(page)).toContain('Or sushi instead');
    await context.close();
  });

  it('browses all channels and subscribes to one; the sidebar gains it and the row offers to leave', async () => {
    await owner.call('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'random', description: 'Anything goes' }]) });
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK);
    await page.getByRole('link', { name: 'Browse channels' }).click();
    await page.getByRole('heading', { name: 'All channels', level: 2 }).waitFor();
    expect(page.url()).toMatch(/#channels$/);
    const rows = page.locator('.channel-row');
    await eventually(async () => expect(await rows.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('#random')])));
    // A private channel Mark is not in is not offered.
    expect((await rows.allInnerTexts()).join('\n')).not.toContain('leadership');
    expect(await page.locator('.channel-row.subscribed').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('#general')]));
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'channels-browse-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    await page.getByRole('button', { name: 'Subscribe to #random' }).click();
    await page.getByRole('button', { name: 'Leave #random' }).waitFor();
    await eventually(async () => expect(await page.locator('#sidebar .channels').innerText()).toContain('#random'));
    expect(await subscription('random')).toBeDefined();

    // The filter narrows the list.
    await page.getByLabel('Filter channels').fill('anything');
    await eventually(async () => expect(await rows.count()).toBe(1));
    expect(await rows.first().innerText()).toContain('#random');
    await page.getByLabel('Filter channels').fill('no such channel');
    await page.getByText('No channel matches').waitFor();
    await context.close();

    const phone = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const small = await logIn(phone, base, MARK, '/#channels');
    await small.getByRole('heading', { name: 'All channels', level: 2 }).waitFor();
    await small.getByRole('button', { name: 'Leave #random' }).waitFor();
    await small.screenshot({ ...clocksMasked(small), path: join(SHOTS, 'channels-browse-375.png') });
    expect(describeViolations(await seriousViolations(small))).toEqual([]);
    await phone.close();
  });

  it("changes a channel's color, pin and a notification setting in its settings, and leaves it", async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK);
    const row = page.locator('.channels > li', { has: page.locator('a.channel', { hasText: '#engineering' }) });
    await page.getByRole('button', { name: 'Options for channel #engineering' }).click();
    await page.getByRole('menuitem', { name: 'Channel settings' }).click();
    const dialog = page.getByRole('dialog', { name: '#engineering settings' });
    await dialog.waitFor();

    await dialog.getByLabel('Color').fill('#d03030');
    await eventually(async () => expect(await row.locator('a.channel .swatch').getAttribute('style')).toMatch(/rgb\(208, 48, 48\)|#d03030/));
    expect((await subscription('engineering'))?.color).toBe('#d03030');

    await dialog.getByLabel('Pin to the top of the channel list').check();
    await eventually(async () => expect(await page.locator('.channels > li a.channel').first().innerText()).toContain('#engineering'));
    await dialog.getByLabel('Desktop notifications').selectOption('off');
    await eventually(async () => expect((await subscription('engineering'))?.desktop_notifications).toBe(false));
    expect(await dialog.getByLabel('Desktop notifications').inputValue()).toBe('off');
    expect((await subscription('engineering'))?.pin_to_top).toBe(true);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'channels-settings-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    await dialog.getByRole('button', { name: 'Leave #engineering' }).click();
    await eventually(async () => expect(await page.locator('#sidebar .channels').innerText()).not.toContain('#engineering'));
    expect(await subscription('engineering')).toBeUndefined();
    await context.close();

    const phone = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const small = await logIn(phone, base, MARK);
    await small.getByRole('button', { name: 'Channels and conversations' }).click();
    await small.getByRole('button', { name: 'Options for channel #general' }).click();
    await small.getByRole('menuitem', { name: 'Channel settings' }).click();
    await small.getByRole('dialog', { name: '#general settings' }).waitFor();
    await small.screenshot({ ...clocksMasked(small), path: join(SHOTS, 'channels-settings-375.png') });
    expect(describeViolations(await seriousViolations(small))).toEqual([]);
    await phone.close();
  });
});
