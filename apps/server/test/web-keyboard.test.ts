/**
 * The web client's keyboard shortcuts (issue 41, item 7) in headless Chromium against the
 * embedded server: j/k and the arrow keys move a selected message that holds a visible
 * focus, r replies to it (a channel message or a direct message), c and x start a message
 * to a channel or to people, / goes to the search box, Esc leaves the compose box, n opens
 * the next unread topic, ? lists them in a dialog that Esc closes; none fires while
 * typing. Screenshots: apps/web/screenshots/keys-*.png.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const MARK = 'member@example.com';
const MARY = 'member2@example.com';

browserSuite('the web client: keyboard shortcuts', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let generalId: number;
  let maryId: number;
  const ids: number[] = [];
  let dmId: number;

  beforeAll(async () => {
    server = await startWebServer('web-keyboard');
    base = server.url;
    const mary = await apiUser(base, MARY);
    maryId = mary.user_id;
    const mark = await apiUser(base, MARK);
    for (let i = 1; i <= 3; i++) ids.push(await mary.sendToChannel('general', 'keys one', `first topic, message ${i}`));
    await mary.sendToChannel('general', 'keys two', 'second topic, unread');
    dmId = await mary.sendDirect([mark.user_id], 'a direct word');
    const streams = (await mark.call('GET', '/streams')).streams as { name: string; stream_id: number }[];
    generalId = streams.find((s) => s.name === 'general')!.stream_id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const focused = (page: Page) => page.evaluate<{ tag: string; id: string; dataId: string | null; selected: string | null }>(
    `(() => { const el = document.activeElement; return { tag: el.tagName, id: el.id, dataId: el.dataset?.id ?? null, selected: el.dataset?.selected ?? null }; })()`,
  );
  const value = (page: Page, id: string) => page.locator(`#${id}`).inputValue();

  it('moves a visibly focused selection with j/k and the arrows, replies with r, composes with c and x, leaves with Esc, and types the keys as text in a field', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const page = await logIn(context, base, MARK, `/#narrow/channel/${generalId}/topic/keys%20one`);
    await page.locator(`.feed article[data-id="${ids[2]}"]`).waitFor();
    await page.locator('body').click({ position: { x: 5, y: 790 } }).catch(() => undefined);
    await page.evaluate(`document.activeElement?.blur()`);

    // j selects the first message in view, then moves down; k and ↑ move up; ↓ down.
    await page.keyboard.press('j');
    expect(await focused(page)).toEqual({ tag: 'ARTICLE', id: '', dataId: String(ids[0]), selected: 'true' });
    await page.keyboard.press('j');
    expect((await focused(page)).dataId).toBe(String(ids[1]));
    await page.keyboard.press('ArrowDown');
    expect((await focused(page)).dataId).toBe(String(ids[2]));
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowUp');
    expect((await focused(page)).dataId).toBe(String(ids[0]));
    expect(await page.locator('article[data-selected="true"]').count()).toBe(1);
    // The focus shows: an outline on the selected message.
    const outline = await page.evaluate<string>(`getComputedStyle(document.activeElement).outlineStyle`);
    expect(outline).not.toBe('none');
    await page.keyboard.press('j');

    // r: a reply to the selected message's topic, the focus in the message box.
    await page.keyboard.press('r');
    await eventually(async () => expect((await focused(page)).id).toBe('compose-content'));
    expect(await value(page, 'compose-to')).toBe('#general');
    expect(await value(page, 'compose-topic')).toBe('keys one');
    // Typing there is text, not shortcuts.
    await page.keyboard.type('jk rcx n/?');
    expect(await value(page, 'compose-content')).toBe('jk rcx n/?');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect((await focused(page)).id).toBe('compose-content');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'keys-reply-desktop.png') });

    // Esc leaves the box for the message being read; the text stays.
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await focused(page)).toMatchObject({ tag: 'ARTICLE', dataId: String(ids[1]) }));
    expect(await value(page, 'compose-content')).toBe('jk rcx n/?');

    // c: to this channel, a new topic to type.
    await page.keyboard.press('c');
    await eventually(async () => expect((await focused(page)).id).toBe('compose-topic'));
    expect(await value(page, 'compose-to')).toBe('#general');
    expect(await value(page, 'compose-topic')).toBe('');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    // x: to people, from the To field.
    await page.keyboard.press('x');
    await eventually(async () => expect((await focused(page)).id).toBe('compose-to'));
    expect(await value(page, 'compose-to')).toBe('');
    expect(await page.locator('#compose-topic').isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    // /: the search box.
    await page.keyboard.press('/');
    expect((await focused(page)).id).toBe('search');
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect((await focused(page)).id).not.toBe('search');

    // r on a direct message: addressed to its people.
    await page.goto(`${base}/#narrow/dm/${maryId}`);
    await page.locator(`.feed article[data-id="${dmId}"]`).waitFor();
    await page.evaluate(`document.activeElement?.blur()`);
    await page.keyboard.press('j');
    expect((await focused(page)).dataId).toBe(String(dmId));
    await page.keyboard.press('r');
    await eventually(async () => expect((await focused(page)).id).toBe('compose-content'));
    expect(await value(page, 'compose-to')).toBe('Mary Member');
    await context.close();
  }, 60_000);

  it('opens the next unread topic with n, and lists the shortcuts with ? in a dialog that Esc closes', async () => {
    const context = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const page = await logIn(context, base, MARK, `/#narrow/channel/${generalId}/topic/keys%20one`);
    await page.locator('.feed article[data-id]').first().waitFor();
    await page.evaluate(`document.activeElement?.blur()`);
    await page.keyboard.press('n');
    await eventually(async () => expect(new URL(page.url()).hash).toBe(`#narrow/channel/${generalId}/topic/keys%20two`));
    await page.getByText('second topic, unread').waitFor();

    await page.keyboard.press('j');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'keys-selected-375.png') });
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (const key of ['j or ↓', 'k or ↑', 'r', 'c', 'x', 'n', '/', 'Esc', '?']) expect(await dialog.getByRole('rowheader', { name: key, exact: true }).count()).toBe(1);
    // Keys do nothing behind it.
    const before = page.url();
    await page.keyboard.press('n');
    expect(page.url()).toBe(before);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'keys-help-375.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'keys-help-desktop.png') });
    expect(describeViolations(await seriousViolations(page))).toEqual([]);
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await dialog.count()).toBe(0));
    // The focus is back on the message it left.
    expect(await focused(page)).toMatchObject({ tag: 'ARTICLE', selected: 'true' });

    // The button opens the same list, by keyboard too.
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.getByRole('button', { name: 'Close' }).press('Enter');
    await eventually(async () => expect(await dialog.count()).toBe(0));
    await context.close();
  }, 60_000);
});
