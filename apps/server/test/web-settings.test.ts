/**
 * The web client's settings and desktop notifications (issue 41, item 4) in headless
 * Chromium against the embedded server: a name change shown in the person's header and on
 * another person's page, a refused name and a refused password said in words next to the
 * field (what was typed kept), the time format changing the feed's times, the dark theme
 * applied and kept after a reload; and desktop notifications for a direct message and a
 * mention, none for a wildcard mention in a muted topic nor for a channel without them,
 * one for a channel whose own setting asks for them, none once turned off in settings.
 *
 * The browser's Notification API is replaced in the page (addInitScript) by a recorder:
 * what the page asks the browser to show is what is checked. Screenshots:
 * apps/web/screenshots/settings-*.png; axe finds no serious or critical violation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const MARK = 'member@example.com';
const MARY = 'member2@example.com';
const OWNER = 'owner@example.com';

/** Stands in for the browser's Notification API: permission asked and granted, each notification recorded. */
const NOTIFICATION_RECORDER = `
  window.__notes = [];
  window.__shown = [];
  window.Notification = class {
    static permission = 'default';
    static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
    constructor(title, options) { window.__notes.push({ title, body: options && options.body, tag: options && options.tag }); window.__shown.push(this); }
    close() {}
  };
`;

browserSuite('the web client: settings and desktop notifications', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let generalId: number;
  let engineeringId: number;
  let ownerId: number;

  beforeAll(async () => {
    server = await startWebServer('web-settings');
    base = server.url;
    const mark = await apiUser(base, MARK);
    ownerId = (await apiUser(base, OWNER)).user_id;
    const streams = (await mark.call('GET', '/streams')).streams as { name: string; stream_id: number }[];
    generalId = streams.find((s) => s.name === 'general')!.stream_id;
    engineeringId = streams.find((s) => s.name === 'engineering')!.stream_id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const openSettings = async (page: Page) => {
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    return dialog;
  };

  it('changes the name (seen by another person), refuses a bad name and a wrong password in words, and applies the time format and the dark theme', async () => {
    const mary = await apiUser(base, MARY);
    await mary.sendToChannel('general', 'times', 'a message with a time');
    const maryContext = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const maryPage = await logIn(maryContext, base, MARY);
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK, `/#narrow/channel/${generalId}/topic/times`);
    await page.getByText('a message with a time').waitFor();
    expect(await page.locator('.feed time').first().textContent()).toMatch(/\d{1,2}:\d\d\s?[AP]M/);

    const dialog = await openSettings(page);
    const name = dialog.getByRole('textbox', { name: 'Full name' });
    expect(await name.inputValue()).toBe('Mark Member');
    // Refused (a character Zulip does not allow in names): said under the field, the text kept.
    await name.fill('Mark *Star*');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    const nameOutcome = dialog.locator('#settings-full-name-outcome');
    await eventually(async () => expect(await nameOutcome.textContent()).toBe('Not saved: Invalid characters in name!'));
    expect(await name.inputValue()).toBe('Mark *Star*');
    expect(await name.getAttribute('aria-describedby')).toBe('settings-full-name-outcome');
    // Wrong current password: refused in words.
    await dialog.getByLabel('Current password').fill('not my password');
    await dialog.getByLabel('New password').fill('a new long password 123');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await eventually(async () => expect(await dialog.locator('#settings-password-outcome').textContent()).toMatch(/^Not saved: .+/));
    expect(await dialog.getByLabel('New password').inputValue()).toBe('a new long password 123');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'settings-refused-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    await name.fill('Mark Marker');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    await eventually(async () => expect(await nameOutcome.textContent()).toBe('Saved.'));
    await eventually(async () => expect(await page.locator('.top .me').textContent()).toBe('Mark Marker'));
    // Another person's page follows.
    await eventually(async () => expect(await maryPage.locator('#people').textContent()).toContain('Mark Marker'));

    // 24-hour times in the feed.
    await dialog.getByLabel('Time format').selectOption('24');
    await eventually(async () => expect(await dialog.locator('#settings-time-format-outcome').textContent()).toBe('Saved.'));
    await eventually(async () => expect(await page.locator('.feed time').first().textContent()).toMatch(/^\d\d:\d\d$/));

    // Dark theme: the page's colours change now, and stay after a reload.
    const background = () => page.evaluate<string>(`getComputedStyle(document.body).backgroundColor`);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await dialog.getByLabel('Theme').selectOption('2');
    await eventually(async () => expect(await page.evaluate<string | undefined>(`document.documentElement.dataset.theme`)).toBe('dark'));
    expect(await background()).toBe('rgb(23, 25, 30)');
    await eventually(async () => expect(await dialog.locator('#settings-theme-outcome').textContent()).toBe('Saved.'));
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'settings-dark-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await dialog.count()).toBe(0));
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'people-dark-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    await page.setViewportSize({ width: 375, height: 740 });
    await page.reload();
    await page.getByText('a message with a time').waitFor();
    await eventually(async () => expect(await background()).toBe('rgb(23, 25, 30)'));
    expect(await page.locator('.feed time').first().textContent()).toMatch(/^\d\d:\d\d$/);
    await openSettings(page);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'settings-dark-375.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    const right = await page.evaluate<number>(`document.querySelector('dialog[open]').getBoundingClientRect().right`);
    expect(right).toBeLessThanOrEqual(375);

    // Back to light (the other tests' screenshots are light).
    await page.getByLabel('Theme').selectOption('3');
    await eventually(async () => expect(await background()).toBe('rgb(255, 255, 255)'));
    await page.getByLabel('Time format').selectOption('12');
    await eventually(async () => expect(await page.locator('#settings-time-format-outcome').textContent()).toBe('Saved.'));
    await page.getByLabel('Full name').fill('Mark Member');
    await page.getByRole('button', { name: 'Save name' }).click();
    await eventually(async () => expect(await page.locator('#settings-full-name-outcome').textContent()).toBe('Saved.'));
    await maryContext.close();
    await context.close();
  }, 90_000);

  it('asks for permission in settings, then notifies direct messages and mentions as the channel, topic and person settings say', async () => {
    const mark = await apiUser(base, MARK);
    const mary = await apiUser(base, MARY);
    // A muted topic in #general; desktop notifications asked for every message of #engineering.
    await mark.call('POST', '/user_topics', { stream_id: String(generalId), topic: 'quiet', visibility_policy: '1' });
    await mark.call('POST', '/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([{ stream_id: engineeringId, property: 'desktop_notifications', value: true }]),
    });

    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(NOTIFICATION_RECORDER);
    // A conversation that none of the messages below belongs to is on screen.
    const page = await logIn(context, base, MARK, `/#narrow/dm/${ownerId}`);
    const notes = () => page.evaluate<{ title: string; body: string; tag: string }[]>(`window.__notes`);

    // Nothing is shown before the person allows it.
    await mary.sendDirect([mark.user_id], 'before permission');
    await page.locator('.sidebar .dm').first().waitFor();
    const dialog = await openSettings(page);
    expect(await dialog.getByText('This browser has not been allowed to show notifications yet.').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Allow desktop notifications' }).click();
    await dialog.getByText('This browser shows desktop notifications from this page.').waitFor();
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'settings-notifications-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await notes()).toEqual([]);

    const dmId = await mary.sendDirect([mark.user_id], 'are you there?');
    await eventually(async () => expect(await notes()).toEqual([{ title: 'Mary Member', body: 'are you there?', tag: `dm/${mary.user_id}` }]));
    // Clicking it opens the conversation at the message.
    await page.evaluate(`window.__shown[0].onclick()`);
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/dm/${mary.user_id}/near/${dmId}`));
    await page.locator(`.feed article[data-id="${dmId}"]`).waitFor();
    // Back to a conversation none of the messages below belongs to.
    await page.evaluate(`location.hash = '#narrow/dm/${ownerId}'`);
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/dm/${ownerId}`));

    // In the muted topic: a wildcard mention stays quiet, a mention of Mark himself notifies.
    await mary.sendToChannel('general', 'quiet', '@**all** wildcard in a muted topic');
    await mary.sendToChannel('general', 'loud', 'a plain channel message');
    await mary.sendToChannel('general', 'quiet', '@**Mark Member** you, in a muted topic');
    await eventually(async () => expect((await notes()).length).toBe(2));
    expect((await notes())[1]).toMatchObject({ title: 'Mary Member (#general › quiet)', body: '@Mark Member you, in a muted topic' });

    // #engineering asks for every message.
    await mary.sendToChannel('engineering', 'builds', 'the build is green');
    await eventually(async () => expect((await notes()).length).toBe(3));
    expect((await notes())[2]).toMatchObject({ title: 'Mary Member (#engineering › builds)', body: 'the build is green' });

    // Turned off in settings: direct messages no longer notify (the channel's own setting still does).
    const again = await openSettings(page);
    const toggle = again.getByLabel('Desktop notifications for direct messages and mentions');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await eventually(async () => expect(await again.locator('#settings-enable_desktop_notifications-outcome').textContent()).toBe('Saved.'));
    await page.keyboard.press('Escape');
    await mary.sendDirect([mark.user_id], 'quiet now');
    await mary.sendToChannel('engineering', 'builds', 'still asked for');
    await eventually(async () => expect((await notes()).length).toBe(4));
    expect((await notes())[3]).toMatchObject({ body: 'still asked for' });
    await context.close();
  }, 60_000);
});
