/**
 * Writing more in the web client (issue 41, item 3), end to end in headless Chromium
 * against the embedded server: Mark in two browser contexts (two devices) and Mary in a
 * third. The preview shows the server's rendering; a draft typed on one device is saved
 * on the server and restored on the other, and deleted from the list; Mary sees "Mark
 * Member is typing…" in the open topic while Mark types and no longer once he empties the
 * box; files by picker, paste and drop upload with progress, can be cancelled, land as a
 * Markdown link and show as an image in the sent message, and a file past the server's
 * limit is refused in words with the text kept; a message scheduled for later is listed,
 * edited and deleted, a time in the past refused in words; a reminder is listed and
 * deleted; a saved snippet is created, inserted and deleted, an empty title refused.
 * Each screen is checked with axe-core (no serious or critical violations) and
 * photographed at 1280 and 375 px wide into apps/web/screenshots/write-*.png.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import { png } from './png';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

jest.setTimeout(90_000);

/** A PNG of w×h pixels in stripes of colour, so that its preview is seen in the screenshots. */
const STRIPE_COLOURS = [[47, 95, 179], [230, 160, 40], [60, 170, 90]];
const stripes = (w: number, h: number): Buffer => png(w, h, (x, y) => STRIPE_COLOURS[Math.floor((x + y) / 12) % 3]!);

/** The server's upload limit in this test, so that "too large" needs only a small file. */
const LIMIT_MIB = 1;

browserSuite('writing more in the web client', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let contexts: BrowserContext[] = [];
  let mark: Page;
  let markElsewhere: Page;
  let mary: Page;
  let markApi: Awaited<ReturnType<typeof apiUser>>;

  async function expectAccessible(page: Page, what: string) {
    const violations = await seriousViolations(page);
    expect({ what, violations: describeViolations(violations) }).toEqual({ what, violations: [] });
  }
  async function shoot(page: Page, name: string, target?: Locator) {
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `write-${name}-desktop.png`) });
    await page.setViewportSize({ width: 375, height: 740 });
    await target?.scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `write-${name}-375.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  const to = (page: Page) => page.getByRole('combobox', { name: 'To', exact: true });
  const topic = (page: Page) => page.getByRole('combobox', { name: 'Topic', exact: true });
  const box = (page: Page) => page.getByRole('textbox', { name: 'Message' });
  const tools = (page: Page) => page.getByRole('toolbar', { name: 'Message tools' });
  const errors = (page: Page) => page.locator('.write-errors');

  async function address(page: Page, channelTopic: string | null, recipient = '#general') {
    await to(page).fill(recipient);
    if (channelTopic !== null) await topic(page).fill(channelTopic);
    await box(page).focus();
    await box(page).press('Escape').catch(() => undefined);
  }
  async function openTopic(page: Page, name: string) {
    const streamId = ((await markApi.call('GET', '/get_stream_id', { stream: 'general' })) as { stream_id: number }).stream_id;
    await page.goto(`${base}/#narrow/channel/${streamId}/topic/${encodeURIComponent(name)}`);
    await page.locator('nav#sidebar').waitFor({ state: 'attached' });
  }

  beforeAll(async () => {
    process.env.TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB = String(LIMIT_MIB);
    server = await startWebServer('web-writing');
    delete process.env.TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB;
    base = server.url;
    contexts = await Promise.all([0, 1, 2].map(() => browser().newContext({ viewport: { width: 1280, height: 800 } })));
    mark = await logIn(contexts[0]!, base, 'member@example.com');
    markElsewhere = await logIn(contexts[1]!, base, 'member@example.com');
    mary = await logIn(contexts[2]!, base, 'member2@example.com');
    markApi = await apiUser(base, 'member@example.com');
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await server?.stop();
  });

  it('previews the message as the server renders it, and back to writing', async () => {
    await address(mark, 'preview');
    await box(mark).fill('Some **bold** words and `code`');
    const toggle = tools(mark).getByRole('button', { name: 'Preview' });
    await toggle.click();
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    const preview = mark.getByRole('region', { name: 'Preview' });
    await preview.locator('strong', { hasText: 'bold' }).waitFor();
    await preview.locator('code', { hasText: 'code' }).waitFor();
    // Follows the text as it changes.
    await box(mark).fill('Now *leaning*');
    await preview.locator('em', { hasText: 'leaning' }).waitFor();
    await expectAccessible(mark, 'preview');
    await shoot(mark, 'preview', preview);
    await toggle.click();
    await preview.waitFor({ state: 'detached' });
    await expect(box(mark).inputValue()).resolves.toBe('Now *leaning*');
    await box(mark).fill('');
  });

  it('keeps a draft on the server while typing; another device restores it; sending removes it', async () => {
    await address(mark, 'drafts');
    await box(mark).fill('A draft written on the first device');
    const drafts = () => markApi.call('GET', '/drafts').then((r) => r.drafts as { id: number; type: string; topic: string; content: string }[]);
    const saved = await eventually(async () => {
      const list = await drafts();
      expect(list.map((d) => d.content)).toEqual(['A draft written on the first device']);
      return list[0]!;
    });
    expect(saved).toMatchObject({ type: 'stream', topic: 'drafts' });
    // Edits change the same draft.
    await box(mark).fill('A draft written on the first device, edited');
    await eventually(async () => expect(await drafts()).toEqual([expect.objectContaining({ id: saved.id, content: 'A draft written on the first device, edited' })]));

    // The other device: its list follows the server's events.
    const listButton = tools(markElsewhere).getByRole('button', { name: 'Drafts (1)' });
    await listButton.waitFor();
    await listButton.click();
    const dialog = markElsewhere.getByRole('dialog', { name: 'Drafts' });
    await dialog.getByText('A draft written on the first device, edited').waitFor();
    await expectAccessible(markElsewhere, 'drafts list');
    await shoot(markElsewhere, 'drafts', dialog);
    await dialog.getByRole('button', { name: 'Restore the draft to #general > drafts' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(to(markElsewhere).inputValue()).resolves.toBe('#general');
    await expect(topic(markElsewhere).inputValue()).resolves.toBe('drafts');
    await expect(box(markElsewhere).inputValue()).resolves.toBe('A draft written on the first device, edited');

    // Finished and sent there: the draft is gone, on the server and in both lists.
    await box(markElsewhere).focus();
    await box(markElsewhere).press('End');
    await box(markElsewhere).type(' and sent');
    await box(markElsewhere).press('Enter');
    await eventually(async () => expect(await drafts()).toEqual([]));
    await tools(mark).getByRole('button', { name: 'Drafts (0)' }).waitFor();
    const sent = await markApi.call('GET', '/messages', { anchor: 'newest', num_before: '1', num_after: '0', narrow: JSON.stringify([{ operator: 'topic', operand: 'drafts' }]), apply_markdown: 'false' });
    expect(sent.messages[0].content).toBe('A draft written on the first device, edited and sent');
  });

  it('deletes a draft from the list', async () => {
    await box(mark).fill('');
    await address(mark, 'to delete');
    await box(mark).fill('Not worth keeping');
    await tools(mark).getByRole('button', { name: 'Drafts (1)' }).click();
    const dialog = mark.getByRole('dialog', { name: 'Drafts' });
    await dialog.getByRole('button', { name: 'Delete the draft to #general > to delete' }).click();
    await dialog.getByText('No drafts.', { exact: false }).waitFor();
    await eventually(async () => expect((await markApi.call('GET', '/drafts')).drafts).toEqual([]));
    await dialog.getByRole('button', { name: 'Close' }).click();
    // The box keeps its text: deleting the saved copy is not deleting what is being written.
    await expect(box(mark).inputValue()).resolves.toBe('Not worth keeping');
    await box(mark).fill('');
  });

  it('keeps no server draft for someone who turned draft synchronization off, and says nothing about it', async () => {
    const maryApi = await apiUser(base, 'member2@example.com');
    await maryApi.call('PATCH', '/settings', { enable_drafts_synchronization: 'false' });
    await address(mary, 'private thoughts');
    // Let the settings event arrive before typing.
    await mary.waitForTimeout(500);
    await box(mary).fill('Only in this browser');
    await mary.waitForTimeout(2000);
    expect((await maryApi.call('GET', '/drafts')).drafts).toEqual([]);
    await expect(mary.locator('.write-errors').textContent()).resolves.toBe('');
    await box(mary).fill('');
    await maryApi.call('PATCH', '/settings', { enable_drafts_synchronization: 'true' });
  });

  it('tells Mary that Mark is typing in the topic she has open, and no more once he stops', async () => {
    await openTopic(mary, 'typing');
    await address(mark, 'typing');
    const notice = mary.locator('.typing-notice');
    await expect(notice.textContent()).resolves.toBe('');
    await box(mark).focus();
    await box(mark).type('Hello Ma', { delay: 30 });
    await notice.getByText('Mark Member is typing…').waitFor({ timeout: 10_000 });
    await expectAccessible(mary, 'typing notice');
    await shoot(mary, 'typing', notice);
    await box(mark).fill('');
    await eventually(async () => expect(await notice.textContent()).toBe(''));
    // Elsewhere nobody is shown typing.
    await box(mark).type('Again', { delay: 30 });
    await openTopic(mary, 'another topic');
    await mary.waitForTimeout(1000);
    await expect(mary.locator('.typing-notice').textContent()).resolves.toBe('');
    await box(mark).fill('');
  });

  /** A file handed to the message box as a paste or a drop would (the page's own events, with a DataTransfer). */
  async function handOver(page: Page, how: 'paste' | 'drop', name: string, bytes: Buffer, type: string) {
    const target = how === 'paste' ? box(page) : page.getByRole('form', { name: 'Compose' });
    await target.evaluate(
      (el, { how, name, base64, type }) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's DOM, which the tests' types do not describe
        const { DataTransfer, ClipboardEvent, DragEvent, File } = globalThis as any;
        const raw = atob(base64);
        const data = new Uint8Array(raw.length);
        for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
        const transfer = new DataTransfer();
        transfer.items.add(new File([data], name, { type }));
        const event = how === 'paste' ? new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }) : new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true });
        el.dispatchEvent(event);
      },
      { how, name, base64: bytes.toString('base64'), type },
    );
  }
  const linkTo = (name: string) => new RegExp(`\\[${name.replace('.', '\\.')}\\]\\(/user_uploads/[^)]+/${name.replace('.', '\\.')}\\)`);

  it('uploads a picked image, inserts its link, and the sent message shows it as an image to Mary', async () => {
    const png = stripes(120, 80);
    await openTopic(mary, 'files');
    await address(mark, 'files');
    await box(mark).fill('Here is the picture: ');
    await mark.locator('input[type=file]').setInputFiles({ name: 'corner.png', mimeType: 'image/png', buffer: png });
    await eventually(async () => expect(await box(mark).inputValue()).toMatch(new RegExp(`^Here is the picture: ${linkTo('corner.png').source}$`)));
    await box(mark).focus();
    await box(mark).press('Enter');
    const image = mary.locator('article .rendered img').first();
    await image.waitFor({ timeout: 15_000 });
    await eventually(async () => expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(120));
    await expectAccessible(mary, 'message with an uploaded image');
    await shoot(mary, 'upload-shown', image);
  });

  it('uploads a pasted and a dropped file into the text where it is', async () => {
    await address(mark, 'files');
    await box(mark).fill('Pasted: ');
    await box(mark).press('End');
    await handOver(mark, 'paste', 'pasted.txt', Buffer.from('pasted text file'), 'text/plain');
    await eventually(async () => expect(await box(mark).inputValue()).toMatch(new RegExp(`^Pasted: ${linkTo('pasted.txt').source}$`)));
    await handOver(mark, 'drop', 'dropped.txt', Buffer.from('dropped text file'), 'text/plain');
    await eventually(async () => expect(await box(mark).inputValue()).toMatch(linkTo('dropped.txt')));
    expect(await box(mark).inputValue()).toMatch(linkTo('pasted.txt'));
    await box(mark).fill('');
  });

  it('shows an upload in progress with Cancel; cancelling removes its placeholder and keeps the text', async () => {
    await address(mark, 'files');
    await box(mark).fill('Kept text ');
    await box(mark).press('End');
    // The server is kept from answering, so that the upload stays under way.
    let held = false;
    await mark.route('**/json/user_uploads', () => {
      held = true;
    });
    await mark.locator('input[type=file]').setInputFiles({ name: 'slow.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(200_000, 7) });
    const uploads = mark.getByRole('list', { name: 'Uploads' });
    const progress = uploads.getByRole('progressbar', { name: 'Uploading slow.bin' });
    await progress.waitFor();
    await expect(progress.getAttribute('max')).resolves.toBe('200000');
    expect(await box(mark).inputValue()).toBe('Kept text [Uploading slow.bin…]()');
    await eventually(async () => expect(held).toBe(true));
    await expectAccessible(mark, 'upload in progress');
    await shoot(mark, 'upload-progress', uploads);
    await uploads.getByRole('button', { name: 'Cancel uploading slow.bin' }).click();
    await uploads.waitFor({ state: 'detached' });
    expect(await box(mark).inputValue()).toBe('Kept text ');
    await expect(errors(mark).textContent()).resolves.toBe('');
    await mark.unroute('**/json/user_uploads');
    await box(mark).fill('');
  });

  it('says in words that a file is too large, next to the box, before sending it, losing nothing typed', async () => {
    await address(mark, 'files');
    await box(mark).fill('Typed before the big file');
    await box(mark).press('End');
    // The page knows the limit from POST /register (max_file_upload_size_mib): nothing is sent.
    let sent = 0;
    await mark.route('**/json/user_uploads', (route) => {
      sent++;
      return route.continue();
    });
    await mark.locator('input[type=file]').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(LIMIT_MIB * 1024 * 1024 + 100_000, 1) });
    await eventually(async () => expect(await errors(mark).textContent()).toBe(`“big.bin” was not uploaded: it is 1.1 MiB, and this server takes files of up to ${LIMIT_MIB} MiB.`), 15_000);
    expect(sent).toBe(0);
    await mark.unroute('**/json/user_uploads');
    expect(await box(mark).inputValue()).toBe('Typed before the big file');
    await expectAccessible(mark, 'upload refused');
    await shoot(mark, 'upload-refused', errors(mark));
    await box(mark).fill('');
  });

  /** A datetime-local value `days` from now at 10:00, local time. */
  function dayAt(days: number): string {
    const d = new Date(Date.now() + days * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T10:00`;
  }
  const scheduledOnServer = async () => (await markApi.call('GET', '/scheduled_messages')).scheduled_messages as { content: string; scheduled_delivery_timestamp: number; topic: string }[];

  it('schedules the box for later; the list shows it, edits its text and time, and deletes it', async () => {
    await address(mark, 'later');
    await box(mark).fill('See you **tomorrow**');
    await tools(mark).getByRole('button', { name: 'Send later' }).click();
    const later = mark.getByRole('dialog', { name: 'Send later' });
    await later.getByLabel('Send at').fill(dayAt(1));
    await expectAccessible(mark, 'send later');
    await shoot(mark, 'send-later', later);
    await later.getByRole('button', { name: 'Schedule' }).click();
    await later.waitFor({ state: 'detached' });
    await expect(box(mark).inputValue()).resolves.toBe('');
    const [onServer] = await scheduledOnServer();
    expect(onServer).toMatchObject({ content: 'See you **tomorrow**', topic: 'later', scheduled_delivery_timestamp: Math.floor(new Date(dayAt(1)).getTime() / 1000) });

    await tools(mark).getByRole('button', { name: 'Scheduled (1)' }).click();
    const list = mark.getByRole('dialog', { name: 'Scheduled messages' });
    await list.locator('strong', { hasText: 'tomorrow' }).waitFor();
    await list.getByText('#general > later').waitFor();
    await expectAccessible(mark, 'scheduled messages');
    await shoot(mark, 'scheduled', list);
    await list.getByRole('button', { name: 'Edit the message to #general > later' }).click();
    const form = list.getByRole('form', { name: 'Edit the message to #general > later' });
    await form.getByLabel('Message').fill('See you the day after');
    await form.getByLabel('Send at').fill(dayAt(2));
    await form.getByRole('button', { name: 'Save' }).click();
    await list.getByText('See you the day after').waitFor();
    expect(await scheduledOnServer()).toEqual([expect.objectContaining({ content: 'See you the day after', scheduled_delivery_timestamp: Math.floor(new Date(dayAt(2)).getTime() / 1000) })]);
    await list.getByRole('button', { name: 'Delete the message to #general > later' }).click();
    await list.getByText('No scheduled messages.', { exact: false }).waitFor();
    expect(await scheduledOnServer()).toEqual([]);
    await list.getByRole('button', { name: 'Close' }).click();
  });

  it('refuses a time in the past in words, in the dialog, and keeps the text in the box', async () => {
    await address(mark, 'later');
    await box(mark).fill('Too late for this');
    await tools(mark).getByRole('button', { name: 'Send later' }).click();
    const later = mark.getByRole('dialog', { name: 'Send later' });
    await later.getByLabel('Send at').fill(dayAt(-1));
    await later.getByRole('button', { name: 'Schedule' }).click();
    const refusal = later.getByRole('alert');
    await eventually(async () => expect(await refusal.textContent()).toMatch(/^The message was not scheduled: \S.{10,}/));
    await expectAccessible(mark, 'send later refused');
    await shoot(mark, 'send-later-refused', later);
    await later.getByRole('button', { name: 'Cancel' }).click();
    await expect(box(mark).inputValue()).resolves.toBe('Too late for this');
    expect(await scheduledOnServer()).toEqual([]);
    await box(mark).fill('');
  });

  it('sets a reminder from a message menu, lists it with the scheduled messages, and deletes it', async () => {
    const id = await markApi.sendToChannel('general', 'remind', 'Renew the certificate');
    await openTopic(mark, 'remind');
    const article = mark.locator(`article[data-id="${id}"]`);
    await article.hover();
    await article.getByRole('button', { name: 'Message actions' }).click();
    await mark.getByRole('menuitem', { name: 'Remind me', exact: true }).click();
    const dialog = mark.getByRole('dialog', { name: 'Remind me about this message' });
    await dialog.getByLabel('Remind me at').fill(dayAt(3));
    await dialog.getByLabel('Note (optional)').fill('before Friday');
    await expectAccessible(mark, 'reminder');
    await dialog.getByRole('button', { name: 'Set reminder' }).click();
    await dialog.waitFor({ state: 'detached' });
    const reminders = async () => (await markApi.call('GET', '/reminders')).reminders as { reminder_target_message_id: number; scheduled_delivery_timestamp: number }[];
    expect(await reminders()).toEqual([expect.objectContaining({ reminder_target_message_id: id, scheduled_delivery_timestamp: Math.floor(new Date(dayAt(3)).getTime() / 1000) })]);
    await tools(mark).getByRole('button', { name: 'Scheduled (1)' }).click();
    const list = mark.getByRole('dialog', { name: 'Scheduled messages' });
    const label = `Delete the reminder about message ${id}`;
    await list.getByRole('button', { name: label }).click();
    await list.getByRole('button', { name: label }).waitFor({ state: 'detached' });
    expect(await reminders()).toEqual([]);
    await list.getByRole('button', { name: 'Close' }).click();
  });

  it('saves a snippet, inserts it at the caret from the Snippets menu, and deletes it; an empty title is refused in words', async () => {
    await address(mark, 'snippets');
    await box(mark).fill('Dear team, ');
    await box(mark).press('End');
    await tools(mark).getByRole('button', { name: 'Snippets' }).click();
    const dialog = mark.getByRole('dialog', { name: 'Saved snippets' });
    // The new snippet's text starts as the box's.
    await expect(dialog.getByLabel('Text').inputValue()).resolves.toBe('Dear team, ');
    await dialog.getByLabel('Text').fill('Thanks for the quick review!');
    await dialog.getByRole('button', { name: 'Save snippet' }).click();
    await eventually(async () => expect(await dialog.getByRole('alert').textContent()).toMatch(/^The snippet was not saved: \S+/));
    await expectAccessible(mark, 'snippet refused');
    await shoot(mark, 'snippet-refused', dialog.getByRole('alert'));
    await dialog.getByLabel('Title').fill('Thanks');
    await dialog.getByRole('button', { name: 'Save snippet' }).click();
    await dialog.getByRole('button', { name: 'Insert “Thanks”' }).waitFor();
    expect((await markApi.call('GET', '/saved_snippets')).saved_snippets).toEqual([expect.objectContaining({ title: 'Thanks', content: 'Thanks for the quick review!' })]);
    await expectAccessible(mark, 'snippets');
    await shoot(mark, 'snippets', dialog);
    await dialog.getByRole('button', { name: 'Insert “Thanks”' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(box(mark).inputValue()).resolves.toBe('Dear team, Thanks for the quick review!');

    await tools(mark).getByRole('button', { name: 'Snippets' }).click();
    await dialog.getByRole('button', { name: 'Delete “Thanks”' }).click();
    await dialog.getByText('No saved snippets yet.').waitFor();
    expect((await markApi.call('GET', '/saved_snippets')).saved_snippets).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await box(mark).fill('');
  });
});
