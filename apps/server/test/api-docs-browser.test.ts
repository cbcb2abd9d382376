/**
 * The OpenAPI description as served (GET /api/v1/openapi.json: public, cacheable,
 * compressed) and its reference page (/api/docs) in a real headless Chromium (browser.ts):
 * the page renders the operations under its strict Content-Security-Policy, with no
 * violation reported and no request to another host.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserSuite } from './browser';
import { startEmbedded, type RunningServer } from './harness';

let server: RunningServer;
const site = () => server.api.replace(/\/api\/v1$/, '');
beforeAll(async () => {
  server = await startEmbedded();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('GET /api/v1/openapi.json', () => {
  it('is public, compressed, and revalidated by its ETag', async () => {
    const res = await fetch(`${server.api}/openapi.json`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v1/messages']?.post).toBeDefined();
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${server.api}/openapi.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

browserSuite('the API reference page in a browser', (browser) => {
  it('lists the operations under the strict CSP, from the server\'s own files only', async () => {
    const page = await browser().newPage();
    const problems: string[] = [];
    const hosts = new Set<string>();
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    try {
      const started = Date.now();
      const response = await page.goto(`${site()}/api/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.getByText('teamchat API').first().waitFor({ timeout: 20_000 });
      // Operations are grouped by tag, collapsed: open the messages group.
      await page.locator('#operations-tag-messages').click();
      const send = page.locator('.opblock-post', { has: page.locator('[data-path="/api/v1/messages"]') }).first();
      await send.waitFor({ timeout: 10_000 });
      expect((await send.locator('.opblock-summary-method').textContent())?.trim()).toBe('POST');
      process.stdout.write(`api docs rendered in ${Date.now() - started} ms\n`);
      expect(problems).toEqual([]);
      expect([...hosts]).toEqual([new URL(site()).host]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
