/**
 * Message actions in the web client (issue 41, item 1), end to end in headless Chromium
 * against the embedded server: Mark and Mary in two browser contexts. A reaction added
 * from the picker is seen by the other with who reacted and toggled off; an edit and a
 * topic move are followed live; the edit history shows both versions; star shows in
 * Starred messages; quote and reply fills the compose box; a copied link opened in a new
 * page lands on its message; delete asks first and the message goes for both; Mary is
 * not offered to edit Mark's message; a refusal (the edit window closing while Mark
 * edits) is said in words and the edit box keeps his text. Each screen is checked with
 * axe-core (no serious or critical violations) and photographed at 1280 and 375 px wide
 * into apps/web/screenshots/actions-*.png.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '../src/embedded';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import { freePort, tempDataDir } from './harness';
import {clocksMasked, DIST, ensureBuilt, SHOTS } from './web-page';


it('loads the emoji picker apart from the first load', () => {
  ensureBuilt();
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const picker = readdirSync(join(DIST, 'static')).filter((f) => /^emoji-picker-.*\.js$/.test(f));
  expect(picker).toHaveLength(1);
  expect(html).not.toContain(picker[0]);
});

jest.setTimeout(90_000);

browserSuite('message actions in the web client', (browser) => {
  const dataDir = tempDataDir();
  let base: string;
  let server: Awaited<ReturnType<typeof startEmbeddedServer>> | undefined;
  let mark: BrowserContext;
  let mary: BrowserContext;
  let markPage: Page;
  let maryPage: Page;

  async function logIn(context: BrowserContext, email: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => process.stdout.write(`page error (${email}): ${e.message}\n`));
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: new RegExp(email.replace('.', '\\.')) }).click();
    await page.getByRole('navigation', { name: 'Channels and conversations' }).waitFor();
    return page;
  }

  /** A request to the API as the page's session (with its CSRF token). */
  async function api<T>(page: Page, method: string, path: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: T }> {
    return page.evaluate(
      async ({ method, path, params }) => {
        const session = (await (await fetch('/json/session')).json()) as { csrf_token: string };
        const body = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
        const res = await fetch(`/json${path}`, { method, headers: { 'X-CSRFToken': session.csrf_token }, body });
        return { status: res.status, body: (await res.json()) as never };
      },
      { method, path, params },
    );
  }

  const sendAs = async (page: Page, topic: string, content: string) => {
    const reply = await api<{ id: number }>(page, 'POST', '/messages', { type: 'stream', to: 'general', topic, content });
    expect(reply.status).toBe(200);
    return reply.body.id;
  };
  const messageOf = (page: Page, id: number) => page.locator(`article[data-id="${id}"]`);
  async function menu(page: Page, id: number, item: string) {
    const article = messageOf(page, id);
    await article.hover();
    await article.getByRole('button', { name: 'Message actions' }).click();
    await page.getByRole('menuitem', { name: item, exact: true }).click();
  }
  async function expectAccessible(page: Page, what: string) {
    const violations = await seriousViolations(page);
    expect({ what, violations: describeViolations(violations) }).toEqual({ what, violations: [] });
  }
  async function shoot(page: Page, name: string, target?: Locator) {
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `actions-${name}-desktop.png`) });
    await page.setViewportSize({ width: 375, height: 740 });
    await target?.scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `actions-${name}-375.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  /** Waits until `read` gives what `ok` accepts, and returns it (or the last value, for the expectation to fail on). */
  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeout = 10_000): Promise<T> {
    const end = Date.now() + timeout;
    let value = await read();
    while (!ok(value) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      value = await read();
    }
    return value;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's DOM, which the tests' types do not describe
  const isFocused = (target: Locator) => target.evaluate((el) => el === (el as any).ownerDocument.activeElement);

  let subject: number;
  /** Another message of Mark's, sent with the subject: what the refusal test tries first. */
  let probe: number;
  let probeSentAt: number;

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(SHOTS, { recursive: true });
    process.env.LOG_LEVEL ??= 'silent';
    const port = await freePort();
    const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_HEARTBEAT_SECONDS: '2' });
    server = await startEmbeddedServer(config, createLogger('web-message-actions'), { host: '127.0.0.1', port });
    base = `http://127.0.0.1:${port}`;
    mark = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    mary = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    await mark.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    markPage = await logIn(mark, 'member@example.com');
    maryPage = await logIn(mary, 'member2@example.com');
    subject = await sendAs(markPage, 'plans', 'The **original** text');
    probe = await sendAs(markPage, 'probes', 'probe');
    probeSentAt = Date.now();
    const general = (page: Page) => page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: /^#general/ });
    await general(markPage).click();
    await general(maryPage).click();
    await messageOf(markPage, subject).waitFor();
    await messageOf(maryPage, subject).waitFor();
  }, 120_000);

  afterAll(async () => {
    await mark?.close();
    await mary?.close();
    await server?.stop();
  });

  it('adds a reaction from the picker; Mary sees who reacted, joins and toggles it off', async () => {
    await menu(markPage, subject, 'Add reaction');
    const picker = markPage.getByRole('dialog', { name: 'Add a reaction' });
    await picker.getByRole('searchbox', { name: 'Search emoji' }).fill('thumbs');
    await picker.getByRole('button', { name: 'thumbs_up', exact: true }).waitFor();
    await expectAccessible(markPage, 'emoji picker');
    await shoot(markPage, 'emoji-picker', picker);
    await picker.getByRole('button', { name: 'thumbs_up', exact: true }).click();
    await picker.waitFor({ state: 'detached' });

    const onMary = messageOf(maryPage, subject).getByRole('button', { name: 'thumbs_up: Mark Member', exact: true });
    await onMary.waitFor({ timeout: 15_000 });
    await expect(onMary.getAttribute('title')).resolves.toBe('thumbs_up: Mark Member');
    await expect(onMary.getAttribute('aria-pressed')).resolves.toBe('false');
    await onMary.click();
    const both = (page: Page) => messageOf(page, subject).getByRole('button', { name: 'thumbs_up: Mark Member, Mary Member', exact: true });
    await both(markPage).waitFor({ timeout: 15_000 });
    await expect(both(maryPage).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(both(maryPage).textContent()).resolves.toContain('2');
    await shoot(maryPage, 'reactions', messageOf(maryPage, subject));

    // Toggled off by Mary, then by Mark: gone for both.
    await both(maryPage).click();
    await messageOf(markPage, subject).getByRole('button', { name: 'thumbs_up: Mark Member', exact: true }).waitFor({ timeout: 15_000 });
    await messageOf(markPage, subject).getByRole('button', { name: 'thumbs_up: Mark Member', exact: true }).click();
    await messageOf(maryPage, subject).getByRole('list', { name: 'Reactions' }).waitFor({ state: 'detached', timeout: 15_000 });

    // The picker remembers: thumbs_up is first among the recent ones.
    await menu(markPage, subject, 'Add reaction');
    await expect(markPage.getByRole('dialog', { name: 'Add a reaction' }).getByRole('list', { name: 'Emoji' }).getByRole('button').first().getAttribute('aria-label')).resolves.toBe('thumbs_up');
    await markPage.keyboard.press('Escape');
    await markPage.getByRole('dialog', { name: 'Add a reaction' }).waitFor({ state: 'detached' });
  });

  it('does not offer Mary to edit Mark’s message', async () => {
    await messageOf(maryPage, subject).hover();
    await messageOf(maryPage, subject).getByRole('button', { name: 'Message actions' }).click();
    const items = await maryPage.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem').allTextContents();
    expect(items).toContain('Quote and reply');
    expect(items).not.toContain('Edit');
    expect(items).not.toContain('Delete');
    await expectAccessible(maryPage, 'message actions menu');
    await maryPage.keyboard.press('Escape');
    await maryPage.getByRole('menu', { name: 'Message actions' }).waitFor({ state: 'detached' });
  });

  it('edits and moves a message by keyboard; Mary follows both live; the history shows both versions', async () => {
    // By keyboard: the menu button, ArrowDown into the menu, to "Edit".
    const button = messageOf(markPage, subject).getByRole('button', { name: 'Message actions' });
    await button.focus();
    await markPage.keyboard.press('Enter');
    const editItem = markPage.getByRole('menuitem', { name: 'Edit', exact: true });
    for (let i = 0; i < 8 && !(await isFocused(editItem)); i++) await markPage.keyboard.press('ArrowDown');
    await markPage.keyboard.press('Enter');
    const form = markPage.getByRole('form', { name: 'Edit message' });
    const box = form.getByRole('textbox', { name: 'Message text' });
    // The box opens disabled and fills with the message as typed once the server sends it.
    expect(await until(() => box.inputValue(), (v) => v !== '')).toBe('The **original** text');
    await box.fill('The *edited* text');
    await expectAccessible(markPage, 'edit form');
    await shoot(markPage, 'edit', form);
    await form.getByRole('button', { name: 'Save' }).click();
    await messageOf(maryPage, subject).filter({ hasText: 'The edited text' }).waitFor({ timeout: 15_000 });
    await messageOf(maryPage, subject).getByRole('button', { name: '(edited)' }).waitFor();

    await menu(markPage, subject, 'Move');
    const move = markPage.getByRole('form', { name: 'Move message' });
    await move.getByRole('textbox', { name: 'Topic' }).fill('decided');
    await move.getByRole('combobox', { name: 'Which messages' }).selectOption('change_all');
    await move.getByRole('button', { name: 'Save' }).click();
    // Mary, in #general, sees the message under its new topic.
    await maryPage.locator('.feed h2.recipient').filter({ hasText: 'decided' }).waitFor({ timeout: 15_000 });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's DOM, which the tests' types do not describe
    const header = await messageOf(maryPage, subject).evaluate((el: any) => {
      let at = el;
      while (at && at.tagName !== 'H2') at = at.previousElementSibling;
      return at ? (at.textContent as string) : '';
    });
    expect(header).toContain('decided');

    await messageOf(maryPage, subject).getByRole('button', { name: '(edited)' }).click();
    const history = maryPage.getByRole('dialog', { name: 'Edit history' });
    await history.getByRole('listitem', { name: 'Version 2' }).waitFor();
    await expect(history.getByRole('listitem', { name: 'Version 1' }).textContent()).resolves.toContain('The original text');
    await expect(history.getByRole('listitem', { name: 'Version 2' }).textContent()).resolves.toContain('The edited text');
    await expect(history.textContent()).resolves.toContain('Topic changed from “plans”');
    await expectAccessible(maryPage, 'edit history');
    await shoot(maryPage, 'history');
    await maryPage.keyboard.press('Escape');
    await history.waitFor({ state: 'hidden' });
  });

  it('stars a message: it shows in Starred messages (opened before, so kept live), and unstars', async () => {
    const nav = markPage.getByRole('navigation', { name: 'Channels and conversations' });
    await nav.getByRole('link', { name: /^Starred messages/ }).click();
    await markPage.getByText('No messages here yet.').waitFor();
    await markPage.goBack();
    await messageOf(markPage, subject).waitFor();
    await menu(markPage, subject, 'Star');
    await messageOf(markPage, subject).getByLabel('starred').waitFor({ timeout: 15_000 });
    await markPage.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: /^Starred messages/ }).click();
    await messageOf(markPage, subject).filter({ hasText: 'The edited text' }).waitFor({ timeout: 15_000 });
    await menu(markPage, subject, 'Unstar');
    await messageOf(markPage, subject).getByLabel('starred').waitFor({ state: 'detached', timeout: 15_000 });
    await markPage.goBack();
    await messageOf(markPage, subject).waitFor();
  });

  it('quote and reply fills the compose box, addressed to the message’s conversation', async () => {
    const box = markPage.getByRole('textbox', { name: 'Message' });
    await box.fill('');
    await menu(markPage, subject, 'Quote and reply');
    expect(await until(() => box.inputValue(), (v) => v.includes('```quote'))).toContain('```quote\nThe *edited* text\n```');
    await expect(markPage.getByRole('combobox', { name: 'To', exact: true }).inputValue()).resolves.toBe('#general');
    await expect(markPage.getByRole('combobox', { name: 'Topic', exact: true }).inputValue()).resolves.toBe('decided');
    expect(await until(() => isFocused(box), (v) => v)).toBe(true);
    await box.fill('');
  });

  it('copies a link that opens the client on the message, further back than a screen', async () => {
    const later: number[] = [];
    for (let i = 0; i < 40; i++) later.push(await sendAs(markPage, 'decided', `Filler message ${i}`));
    await messageOf(markPage, later.at(-1)!).waitFor({ timeout: 15_000 });
    await messageOf(markPage, subject).scrollIntoViewIfNeeded();
    await menu(markPage, subject, 'Copy link to message');
    const shown = await markPage.getByRole('textbox', { name: 'Link to the message' }).inputValue();
    const copied = (await markPage.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied).toBe(shown);
    expect(shown).toMatch(new RegExp(`^${base}/#narrow/channel/\\d+/topic/decided/near/${subject}$`));

    const opened = await mary.newPage();
    await opened.goto(copied);
    const target = messageOf(opened, subject);
    await target.waitFor({ timeout: 15_000 });
    expect(await until(() => isFocused(target), (v) => v)).toBe(true);
    const box = await target.boundingBox();
    const feed = await opened.getByRole('region', { name: 'Messages' }).boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(feed!.y - 1);
    expect(box!.y + box!.height).toBeLessThanOrEqual(feed!.y + feed!.height + 1);
    await expect(opened.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('decided');
    await opened.close();
  });

  it('deletes a message after confirming; it goes for Mary too', async () => {
    const doomed = await sendAs(markPage, 'decided', 'Please delete me');
    await messageOf(maryPage, doomed).waitFor({ timeout: 15_000 });
    await menu(markPage, doomed, 'Delete');
    const dialog = markPage.getByRole('dialog', { name: 'Delete this message?' });
    await dialog.waitFor();
    await expectAccessible(markPage, 'delete dialog');
    await shoot(markPage, 'delete');
    // Cancel keeps it.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(messageOf(markPage, doomed).count()).resolves.toBe(1);
    await menu(markPage, doomed, 'Delete');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await messageOf(maryPage, doomed).waitFor({ state: 'detached', timeout: 15_000 });
    await messageOf(markPage, doomed).waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('says in words when the server refuses an edit, and keeps what was typed', async () => {
    const admin = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const adminPage = await logIn(admin, 'admin@example.com');
      await menu(markPage, subject, 'Edit');
      const box = markPage.getByRole('form', { name: 'Edit message' }).getByRole('textbox', { name: 'Message text' });
      expect(await until(() => box.inputValue(), (v) => v !== '')).toContain(' text');
      await box.fill('A second edit, typed with care');
      // The organization closes the edit window while Mark types.
      expect((await api(adminPage, 'PATCH', '/realm', { message_content_edit_limit_seconds: 1 })).status).toBe(200);
      // The server allows 20 s beyond the limit (as Zulip), and its messaging service learns the new limit shortly
      // after the change: wait until it refuses an edit of the probe, sent after the subject, as too late.
      await new Promise((r) => setTimeout(r, Math.max(0, probeSentAt + 23_000 - Date.now())));
      let attempt = 0;
      const refused = await until(() => api<{ msg: string }>(markPage, 'PATCH', `/messages/${probe}`, { content: `probe ${++attempt}` }).then((r) => r.body.msg ?? ''), (msg) => /time limit/.test(msg), 15_000);
      expect(refused).toBe('The time limit for editing this message has passed');
      await markPage.getByRole('form', { name: 'Edit message' }).getByRole('button', { name: 'Save' }).click();
      const alerts = await until(() => messageOf(markPage, subject).getByRole('alert').allTextContents(), (texts) => texts.length > 0, 15_000);
      expect(alerts).toEqual(['Not saved: The time limit for editing this message has passed']);
      await expect(box.inputValue()).resolves.toBe('A second edit, typed with care');
      await expectAccessible(markPage, 'refused edit');
      await shoot(markPage, 'refused', box);
      // Once the registration has the new limit, Edit is no longer offered for the old message.
      await markPage.getByRole('form', { name: 'Edit message' }).getByRole('button', { name: 'Cancel' }).click();
      await messageOf(markPage, subject).getByRole('button', { name: 'Message actions' }).click();
      await expect(markPage.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem').allTextContents()).resolves.not.toContain('Edit');
      await markPage.keyboard.press('Escape');
      expect((await api(adminPage, 'PATCH', '/realm', { message_content_edit_limit_seconds: 'unlimited' })).status).toBe(200);
    } finally {
      await admin.close();
    }
  });

  it('reacts with the organization’s custom emoji, and moves a message to another channel', async () => {
    const admin = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const adminPage = await logIn(admin, 'admin@example.com');
      // A 1×1 PNG uploaded as :party_parrot:.
      const status = await adminPage.evaluate(async () => {
        const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
        const session = (await (await fetch('/json/session')).json()) as { csrf_token: string };
        const form = new FormData();
        form.append('file', new Blob([png], { type: 'image/png' }), 'parrot.png');
        return (await fetch('/json/realm/emoji/party_parrot', { method: 'POST', headers: { 'X-CSRFToken': session.csrf_token }, body: form })).status;
      });
      expect(status).toBe(200);
    } finally {
      await admin.close();
    }
    const id = await sendAs(maryPage, 'decided', 'A parrot for this one');
    await messageOf(markPage, id).waitFor({ timeout: 15_000 });
    await menu(markPage, id, 'Add reaction');
    const picker = markPage.getByRole('dialog', { name: 'Add a reaction' });
    await picker.getByRole('searchbox', { name: 'Search emoji' }).fill('parrot');
    await picker.getByRole('button', { name: 'party_parrot', exact: true }).click();
    const onMary = messageOf(maryPage, id).getByRole('button', { name: 'party_parrot: Mark Member', exact: true });
    await onMary.waitFor({ timeout: 15_000 });
    await expect(onMary.locator('img').getAttribute('src')).resolves.toMatch(/^\/user_avatars\/|^\/user_uploads\/|^\//);

    // Mark moves it to #engineering: it leaves Mary's #general and is there in #engineering.
    await menu(markPage, id, 'Move');
    const move = markPage.getByRole('form', { name: 'Move message' });
    await move.getByRole('combobox', { name: 'Channel' }).selectOption({ label: '#engineering' });
    await move.getByRole('button', { name: 'Save' }).click();
    await messageOf(maryPage, id).waitFor({ state: 'detached', timeout: 15_000 });
    await markPage.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: /^#engineering/ }).click();
    await messageOf(markPage, id).filter({ hasText: 'A parrot for this one' }).waitFor({ timeout: 15_000 });
    await markPage.goBack();
  });

  it('has no serious accessibility violations on the feed with reactions', async () => {
    const id = await sendAs(maryPage, 'decided', 'React to me');
    await messageOf(markPage, id).waitFor({ timeout: 15_000 });
    expect((await api(markPage, 'POST', `/messages/${id}/reactions`, { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji' })).status).toBe(200);
    await messageOf(maryPage, id).getByRole('button', { name: 'tada: Mark Member' }).waitFor({ timeout: 15_000 });
    await expectAccessible(maryPage, 'feed');
  });
});
