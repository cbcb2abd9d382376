/**
 * The development page of sent emails in a real headless Chromium (see browser.ts): a
 * person opens /emails, sees an email's subject and follows its link. And the page does
 * not exist in production mode.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserSuite } from './browser';
import { outboxOf, siteOf } from './emails-suite';
import { startEmbedded, type RunningServer } from './harness';

browserSuite('the /emails page in a browser', (browser) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startEmbedded();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('shows the newest email first and its link leads where it says', async () => {
    const outbox = outboxOf(server);
    await outbox.send({ to: 'old@example.org', subject: 'An older email', text: 'Nothing to see.' });
    const target = `${server.api}/server_settings`;
    await outbox.send({
      to: 'newcomer@example.org',
      subject: 'You are invited to the development organization',
      text: `Olivia Owner invited you.\n\nFollow ${target} to get started.\n`,
    });

    const page = await browser().newPage();
    try {
      const response = await page.goto(`${siteOf(server)}/emails`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('Sent emails (development)');
      const subjects = await page.locator('article.email h2.subject').allTextContents();
      expect(subjects).toEqual(['You are invited to the development organization', 'An older email']);
      const newest = page.locator('article.email').first();
      expect(await newest.locator('dd.to').textContent()).toBe('newcomer@example.org');

      await Promise.all([page.waitForURL(target), newest.locator('a', { hasText: target }).click()]);
      expect(page.url()).toBe(target);
      const settings = JSON.parse((await page.locator('body').textContent()) ?? '') as { result?: string; realm_uri?: string };
      expect(settings.result).toBe('success');
    } finally {
      await page.close();
    }
  });
});

describe('the /emails page in production mode', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startEmbedded(undefined, { TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: 'https://chat.acme.test' });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('does not exist, even with mail in the outbox', async () => {
    await outboxOf(server).send({ to: 'someone@example.org', subject: 'Private', text: 'http://127.0.0.1/secret-link' });
    const reply = await fetch(`${siteOf(server)}/emails`);
    expect(reply.status).toBe(404);
    expect(await reply.text()).not.toContain('secret-link');
  });
});
