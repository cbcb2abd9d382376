/**
 * The development page GET /emails (issue 16, real email), run against every mode: it
 * lists what the outbox under the data directory holds, newest first, with subject,
 * recipient, body and clickable links, escaped; and it exists only in development mode
 * with the outbox transport.
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { OutboxMailer } from '@teamchat/platform';
import type { RunningServer } from './harness';
import { suiteServer } from './suite-kit';

/** The server's own root (the page is outside /api/v1). */
export const siteOf = (server: RunningServer) => server.api.replace(/\/api\/v1$/, '');

/** Writes into the server's outbox as its services' mailer does (the same adapter, the same directory). */
export const outboxOf = (server: RunningServer) => new OutboxMailer(join(server.dataDir!, 'outbox'), 'noreply@127.0.0.1');

export function emailsPageSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`development page of sent emails (${mode})`, () => {
    const suite = suiteServer(() => start({}), []);

    it('says so when nothing was sent', async () => {
      const reply = await fetch(`${siteOf(suite.server)}/emails`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await reply.text()).toContain('No email has been sent yet');
    });

    it('lists every email newest first, with subject, recipient and clickable links, escaped', async () => {
      const outbox = outboxOf(suite.server);
      await outbox.send({ to: 'first@example.org', subject: 'First', text: 'Join at http://127.0.0.1:1/join/abc?x=1&y=2.\nThanks' });
      await outbox.send({ to: 'second@example.org', subject: 'Second <script>alert(1)</script>', text: 'Body with <b>markup</b> and no link' });
      const reply = await fetch(`${siteOf(suite.server)}/emails`);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
      const page = await reply.text();
      expect(page).not.toContain('No email has been sent yet');
      expect(page.indexOf('Second')).toBeLessThan(page.indexOf('First'));
      expect(page).toContain('<dd class="to">first@example.org</dd>');
      expect(page).toContain('<dd class="to">second@example.org</dd>');
      expect(page).toContain('<h2 class="subject">Second &lt;script&gt;alert(1)&lt;/script&gt;</h2>');
      expect(page).not.toContain('<script>');
      expect(page).toContain('&lt;b&gt;markup&lt;/b&gt;');
      // The sentence's full stop stays outside the link; & is escaped in the attribute.
      expect(page).toContain('<a href="http://127.0.0.1:1/join/abc?x=1&amp;y=2">http://127.0.0.1:1/join/abc?x=1&amp;y=2</a>.');
    });

    it('is not an API endpoint: /api/v1/emails is unknown', async () => {
      const reply = await fetch(`${suite.server.api}/emails`);
      expect(reply.status).toBe(404);
      expect(await reply.json()).toMatchObject({ result: 'error', code: 'NOT_FOUND' });
    });
  });

  describe(`no page of sent emails when mail goes out by SMTP (${mode})`, () => {
    // Nothing sends mail here: the address is never dialled.
    const suite = suiteServer(() => start({ TEAMCHAT_SMTP_HOST: '127.0.0.1', TEAMCHAT_SMTP_PORT: '1' }), []);

    it('answers 404', async () => {
      await outboxOf(suite.server).send({ to: 'someone@example.org', subject: 'Hidden', text: 'not listed' });
      const reply = await fetch(`${siteOf(suite.server)}/emails`);
      expect(reply.status).toBe(404);
      expect(await reply.text()).not.toContain('Hidden');
    });
  });
}
