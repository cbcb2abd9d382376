/**
 * The web client's people features (issue 41, item 4) in headless Chromium against the
 * embedded server: the user list's presence follows another person's page (offline, then
 * active once their page pings, then idle once it loses the focus), a user card (role,
 * status, local time in their zone, a profile field, "Send a message"), and one's status
 * set in one browser and seen in another, a refused one shown in words. Screenshots:
 * apps/web/screenshots/people-*.png; axe finds no serious or critical violation.
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

browserSuite('the web client: people', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let markId: number;
  let maryId: number;

  beforeAll(async () => {
    server = await startWebServer('web-people');
    base = server.url;
    const owner = await apiUser(base, OWNER);
    const mary = await apiUser(base, MARY);
    const mark = await apiUser(base, MARK);
    markId = mark.user_id;
    maryId = mary.user_id;
    const field = (await owner.call('POST', '/realm/profile_fields', { name: 'Team', field_type: '1', hint: 'Where you work' })).id as number;
    await mary.call('PATCH', '/users/me/profile_data', { data: JSON.stringify([{ id: field, value: 'Platform' }]) });
    await mary.call('PATCH', '/settings', { timezone: 'Asia/Tokyo' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const person = (page: Page, userId: number) => page.locator(`#people .person[data-user-id="${userId}"]`);

  it('shows presence changing as another person opens the app and then leaves it idle', async () => {
    const markContext = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const mark = await logIn(markContext, base, MARK);
    await person(mark, maryId).waitFor();
    // Mary has no page open: offline. Mark's own page reports him active.
    expect(await person(mark, maryId).getAttribute('data-presence')).toBe('offline');
    await eventually(async () => expect(await person(mark, markId).getAttribute('data-presence')).toBe('active'));
    expect(await person(mark, maryId).textContent()).toContain('offline');

    const maryContext = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const mary = await logIn(maryContext, base, MARY);
    // Her page's first ping reaches Mark's page as a presence event.
    await eventually(async () => expect(await person(mark, maryId).getAttribute('data-presence')).toBe('active'));
    expect(await person(mark, maryId).textContent()).toContain('active');
    // Active people come first, after oneself.
    const order = await mark.locator('#people .person').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-user-id'))));
    expect(order.slice(0, 2)).toEqual([markId, maryId]);
    await mark.screenshot({ ...clocksMasked(mark), path: join(SHOTS, 'people-list-desktop.png') });
    expect(describeViolations(await seriousViolations(mark))).toEqual([]);

    // Her window loses the focus (the browser says so): her page reports idle at once, then active again once back and used.
    const reported = (status: string) => mary.waitForRequest((r) => r.url().endsWith('/json/users/me/presence') && new URLSearchParams(r.postData() ?? '').get('status') === status, { timeout: 10_000 });
    const idle = reported('idle');
    await mary.evaluate(`document.hasFocus = () => false; window.dispatchEvent(new Event('blur'))`);
    await idle;
    const active = reported('active');
    await mary.evaluate(`delete document.hasFocus; window.dispatchEvent(new Event('focus'))`);
    await active;
    // As Zulip's clients read presence, someone active in the last 140 s is shown active: idle
    // shows for a person who reported idle only. The owner's script does, and Mark's page follows.
    const owner = await apiUser(base, OWNER);
    expect(await person(mark, owner.user_id).getAttribute('data-presence')).toBe('offline');
    await owner.call('POST', '/users/me/presence', { status: 'idle', slim_presence: 'true' });
    await eventually(async () => expect(await person(mark, owner.user_id).getAttribute('data-presence')).toBe('idle'));
    expect(await person(mark, owner.user_id).textContent()).toContain('idle');
    await mark.screenshot({ ...clocksMasked(mark), path: join(SHOTS, 'people-presence-desktop.png') });
    await maryContext.close();
    await markContext.close();
  }, 60_000);

  it('opens a user card with role, status, local time and profile fields, and starts a direct message from it', async () => {
    const mary = await apiUser(base, MARY);
    await mary.call('POST', '/users/me/status', { status_text: 'Reviewing', emoji_name: 'eyes', emoji_code: '1f440', reaction_type: 'unicode_emoji' });
    await mary.sendToChannel('general', 'cards', 'my name opens my card');
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK);
    const card = page.getByRole('dialog', { name: 'Mary Member' });
    // From a sender's name in the feed, by keyboard too.
    await page.locator('.feed article', { hasText: 'my name opens my card' }).getByRole('button', { name: 'Mary Member' }).focus();
    await page.keyboard.press('Enter');
    await card.waitFor();
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await card.count()).toBe(0));
    // From the user list.
    await person(page, maryId).click();
    await card.waitFor();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('Member');
    expect(text).toContain('Reviewing');
    expect(text).toContain('Team');
    expect(text).toContain('Platform');
    // Her local time, in her zone, as this person reads times (12-hour by default).
    const tokyo = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hourCycle: 'h12', timeZone: 'Asia/Tokyo' });
    const localTime = (await card.locator('.local-time').textContent()) ?? '';
    expect(localTime).toContain('(Asia/Tokyo)');
    const now = Date.now();
    expect([tokyo.format(now), tokyo.format(now - 60_000), tokyo.format(now + 60_000)].some((t) => localTime.startsWith(t))).toBe(true);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'people-card-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    await card.getByRole('button', { name: 'Send a message' }).click();
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/dm/${maryId}`));
    await eventually(async () => expect(await page.evaluate<string>(`document.activeElement.id`)).toBe('compose-content'));
    expect(await page.locator('#compose-to').inputValue()).toBe('Mary Member');
    expect(await card.count()).toBe(0);

    // At phone width: the list is behind the People button, and the card fits.
    await page.setViewportSize({ width: 375, height: 740 });
    await page.reload();
    await page.locator('nav#sidebar').waitFor({ state: 'attached' });
    const toggle = page.getByRole('button', { name: 'People' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#people').isVisible()).toBe(false);
    await toggle.click();
    await person(page, maryId).waitFor();
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'people-list-375.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    // The list is an overlay there: picking a person closes it and opens their card.
    await person(page, maryId).click();
    await card.waitFor();
    expect(await page.locator('#people').isVisible()).toBe(false);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'people-card-375.png') });
    const width = await page.evaluate<number>(`document.querySelector('dialog[open]').getBoundingClientRect().right`);
    expect(width).toBeLessThanOrEqual(375);
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await card.count()).toBe(0));
    // The focus goes back to the People button (the person's row went with the list).
    await eventually(async () => expect(await page.evaluate<string>(`document.activeElement.className`)).toBe('people-button'));
    // Its close button (named) closes it, the focus back on the People button.
    await toggle.click();
    await page.getByRole('button', { name: 'Close the people list' }).click();
    await eventually(async () => expect(await page.locator('#people').isVisible()).toBe(false));
    expect(await page.evaluate<string>(`document.activeElement.className`)).toBe('people-button');
    // Esc closes it.
    await toggle.click();
    await person(page, maryId).waitFor();
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await page.locator('#people').isVisible()).toBe(false));
    // Moving elsewhere in the client closes it.
    await toggle.click();
    await person(page, maryId).waitFor();
    await page.evaluate(`location.hash = '#narrow/is/starred'`);
    await eventually(async () => expect(await page.locator('#people').isVisible()).toBe(false));
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    // On a wide screen the list is beside the feed (it opens as the window widens): no close button, and it stays open when moving on.
    await page.setViewportSize({ width: 1280, height: 900 });
    await person(page, maryId).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('button', { name: 'Close the people list' }).isVisible()).toBe(false);
    await page.evaluate(`location.hash = '#narrow/is/mentioned'`);
    await page.waitForTimeout(300);
    expect(await page.locator('#people').isVisible()).toBe(true);
    // Narrowed again, the open list closes rather than cover the page.
    await page.setViewportSize({ width: 375, height: 740 });
    await eventually(async () => expect(await page.locator('#people').isVisible()).toBe(false));
    await context.close();
  }, 60_000);

  it('sets one’s status, seen by another person live, shows a refused one in words keeping the text, and clears it', async () => {
    const markContext = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const maryContext = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const mark = await logIn(markContext, base, MARK);
    const mary = await logIn(maryContext, base, MARY);
    await mary.getByRole('button', { name: 'People' }).click();
    await person(mary, markId).waitFor();
    expect(await person(mary, markId).textContent()).not.toContain('In a meeting');

    await mark.getByRole('button', { name: 'Set your status' }).click();
    const dialog = mark.getByRole('dialog', { name: 'Your status' });
    await dialog.waitFor();
    // Too long (more than 60 characters): refused in words, the text kept.
    const long = 'x'.repeat(61);
    await dialog.getByRole('textbox', { name: 'Status text' }).fill(long);
    await dialog.getByRole('button', { name: 'Save status' }).click();
    await eventually(async () => expect(await dialog.getByRole('alert').textContent()).toMatch(/^Your status was not saved: .+/));
    expect(await dialog.getByRole('textbox', { name: 'Status text' }).inputValue()).toBe(long);
    await mark.screenshot({ ...clocksMasked(mark), path: join(SHOTS, 'people-status-refused-desktop.png') });
    expect(describeViolations(await seriousViolations(mark))).toEqual([]);

    // Any emoji, from the picker (its own chunk, loaded when opened).
    await dialog.getByRole('button', { name: 'Choose an emoji' }).click();
    const search = dialog.getByRole('searchbox', { name: 'Search emoji' });
    await search.fill('rocket');
    await dialog.getByRole('button', { name: 'rocket', exact: true }).waitFor();
    await search.press('Enter');
    await dialog.getByRole('button', { name: 'Emoji: rocket. Choose another' }).waitFor();
    await dialog.getByRole('button', { name: /In a meeting/ }).click();
    expect(await dialog.getByRole('textbox', { name: 'Status text' }).inputValue()).toBe('In a meeting');
    await dialog.getByRole('button', { name: 'Save status' }).click();
    await eventually(async () => expect(await dialog.count()).toBe(0));

    // Mary's page, another browser: Mark's entry has the status, with its emoji.
    await eventually(async () => expect(await person(mary, markId).textContent()).toContain('In a meeting'));
    expect(await person(mary, markId).locator('.status-emoji').textContent()).toBe('📆');
    await mary.screenshot({ ...clocksMasked(mary), path: join(SHOTS, 'people-status-seen-375.png') });
    expect(describeViolations(await seriousViolations(mary))).toEqual([]);

    // Cleared: gone from her page too.
    await mark.getByRole('button', { name: 'Change your status' }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Clear status' }).click();
    await eventually(async () => expect(await person(mary, markId).textContent()).not.toContain('In a meeting'));
    expect(await person(mary, markId).locator('.status-emoji').count()).toBe(0);
    await maryContext.close();
    await markContext.close();
  }, 60_000);
});
