/**
 * The web client's search (issue 41, item 2) in headless Chromium against the embedded
 * server: a search with operators narrows the feed and shows the server's highlighting;
 * the address bar holds the narrow, a new page opened on it shows the same, back and
 * forward move between it and other views; suggestions are offered while typing and
 * chosen with the keyboard; a search the server refuses is said next to the box and the
 * text stays; text typed before the page's first registration arrived is not emptied by it. Screenshots: apps/web/screenshots/search-*.png.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const MARK = 'member@example.com';
const MARY = 'member2@example.com';

browserSuite('the web client: search', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let generalId: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    server = await startWebServer('web-search');
    base = server.url;
    const mary = await apiUser(base, MARY);
    const mark = await apiUser(base, MARK);
    ids.crates = await mary.sendToChannel('general', 'kiwi harvest', 'The **kiwi** crates arrive on Tuesday');
    ids.smoothie = await mary.sendToChannel('general', 'lunch', 'A kiwi smoothie for lunch?');
    ids.apples = await mark.sendToChannel('general', 'kiwi harvest', 'Apples only this week');
    ids.link = await mary.sendToChannel('general', 'reading', 'Kiwi facts at https://example.com/kiwi');
    const streams = (await mark.call('GET', '/streams')).streams as { name: string; stream_id: number }[];
    generalId = streams.find((s) => s.name === 'general')!.stream_id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const searchBox = (page: Page) => page.getByRole('searchbox', { name: 'Search' });
  const feedIds = (page: Page) => page.evaluate<number[]>(`[...document.querySelectorAll('.feed article[data-id]')].map((a) => Number(a.dataset.id))`);
  const highlights = (page: Page, id: number) => page.evaluate<string[]>(`[...document.querySelectorAll('.feed article[data-id="${id}"] .highlight')].map((h) => h.textContent)`);

  it('narrows the feed by a search with operators, highlights the matches, and puts the narrow in the address bar, which a new page and back/forward open again', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK);
    await searchBox(page).fill('channel:general -topic:lunch kiwi');
    await searchBox(page).press('Enter');

    // Only kiwi outside #general > lunch: the crates (highlighted in text and topic), the apples (by their topic) and the link.
    const found = [ids.crates, ids.apples, ids.link].sort();
    await eventually(async () => expect((await feedIds(page)).sort()).toEqual(found));
    expect(await highlights(page, ids.crates!)).toEqual(['kiwi']);
    expect(await page.locator('.feed .recipient .highlight').first().textContent()).toBe('kiwi');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Search: channel:general -topic:lunch kiwi');
    const url = page.url();
    expect(new URL(url).hash).toBe(`#narrow/channel/${generalId}-general/-topic/lunch/search/kiwi`);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'search-results-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    // The address opened in a new page: the same narrow, its query in the box.
    const again = await context.newPage();
    await again.goto(url);
    await eventually(async () => expect((await feedIds(again)).sort()).toEqual(found));
    expect(await searchBox(again).inputValue()).toBe('channel:general -topic:lunch kiwi');
    await again.close();

    // Away to a channel and back (the box follows), then forward again.
    await page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: /^#general/ }).click();
    await eventually(async () => expect(await feedIds(page)).toEqual(expect.arrayContaining([ids.smoothie, ids.apples])));
    expect(await searchBox(page).inputValue()).toBe('');
    await page.goBack();
    await eventually(async () => expect((await feedIds(page)).sort()).toEqual(found));
    expect(await searchBox(page).inputValue()).toBe('channel:general -topic:lunch kiwi');
    await page.goForward();
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/channel/${generalId}`));

    // has:link and sender: narrow by what the server knows; at phone width it still fits.
    await page.setViewportSize({ width: 375, height: 740 });
    await searchBox(page).fill(`has:link sender:${MARY}`);
    await searchBox(page).press('Enter');
    await eventually(async () => expect(await feedIds(page)).toEqual([ids.link]));
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'search-results-375.png') });
    await context.close();
  }, 60_000);

  it('offers operators, channels, topics and people while typing, chosen with the arrow keys and Enter', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK);
    const box = searchBox(page);
    const options = page.getByRole('listbox', { name: 'Search suggestions' }).getByRole('option');
    await box.focus();
    await box.pressSequentially('chan');
    await eventually(async () => expect(await options.allTextContents()).toContain('channel:'));
    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe('search-suggestion-0');
    expect(await options.first().getAttribute('aria-selected')).toBe('true');
    await box.press('Enter');
    expect(await box.inputValue()).toBe('channel:');

    // Channel names; then, for that channel, its topics.
    await box.pressSequentially('gen');
    await eventually(async () => expect(await options.allTextContents()).toEqual(['channel:general']));
    await box.press('ArrowDown');
    await box.press('Enter');
    expect(await box.inputValue()).toBe('channel:general ');
    await box.pressSequentially('topic:kiw');
    await eventually(async () => expect(await options.allTextContents()).toEqual(['topic:kiwi harvest']));
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'search-suggestions-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    await box.press('ArrowDown');
    await box.press('Enter');
    expect(await box.inputValue()).toBe('channel:general topic:"kiwi harvest" ');

    // People by name, written as their email.
    await box.pressSequentially('sender:mary');
    await eventually(async () => expect((await options.allTextContents())[0]).toMatch(/^sender:member2@example\.com/));
    await box.press('Escape');
    expect(await options.count()).toBe(0);
    await box.fill('channel:general topic:"kiwi harvest"');
    // Enter with nothing chosen searches: a channel and a topic are that topic's own view.
    await box.press('Enter');
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/channel/${generalId}/topic/kiwi%20harvest`));
    await eventually(async () => expect((await feedIds(page)).sort()).toEqual([ids.crates, ids.apples].sort()));
    await context.close();
  }, 60_000);

  it('keeps what was typed before the first registration arrived', async () => {
    // A slow registration (a loaded server): the page and its box are there before the
    // client's state, and its arrival must not empty the box under the user's fingers.
    const context = await browser().newContext();
    let arrived = false;
    await context.route('**/json/register', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
      arrived = true;
    });
    const page = await logIn(context, base, MARK);
    await searchBox(page).fill('channel:nosuchchannel kiwi');
    await eventually(async () => expect(arrived).toBe(true));
    // The first messages are shown once the state has come.
    await eventually(async () => expect((await feedIds(page)).length).toBeGreaterThan(0));
    expect(await searchBox(page).inputValue()).toBe('channel:nosuchchannel kiwi');
    await searchBox(page).press('Enter');
    await eventually(async () => expect(await page.locator('#search-error').textContent({ timeout: 1_000 })).toMatch(/unknown channel 'nosuchchannel'/));
    await context.close();
  }, 60_000);

  it('says next to the box, in words, why the server refused a search, and keeps what was typed', async () => {
    const context = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const page = await logIn(context, base, MARK);
    await searchBox(page).fill('channel:nosuchchannel kiwi');
    await searchBox(page).press('Enter');
    const error = page.locator('#search-error');
    await eventually(async () => expect(await error.textContent()).toMatch(/could not be made.*unknown channel 'nosuchchannel'/));
    expect(await searchBox(page).getAttribute('aria-describedby')).toBe('search-error');
    expect(await searchBox(page).inputValue()).toBe('channel:nosuchchannel kiwi');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'search-error-375.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);

    // Fixed and searched again: the error goes.
    await searchBox(page).fill('channel:general kiwi');
    await searchBox(page).press('Enter');
    await eventually(async () => expect(await feedIds(page)).toContain(ids.crates));
    expect(await error.count()).toBe(0);
    await context.close();
  }, 60_000);
});
