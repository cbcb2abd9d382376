/** The web client's files: the page before and after a build, encodings, and paths outside static/. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { CONTENT_SECURITY_POLICY, encodingFor, WebClient } from '../src/pages/web-client';

/** GET over a real socket, the path sent as written (fetch would resolve `..`). */
async function inject(app: FastifyInstance, { url }: { url: string }) {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return new Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: url }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject);
  });
}

function appFor(dir: string) {
  const app = Fastify();
  const client = new WebClient(dir);
  app.get('/', (request, reply) => client.sendPage(request, reply));
  app.get('/static/*', async (request, reply) => (await client.sendStatic(request, reply, (request.params as { '*': string })['*'])) ?? reply.code(404).send('none'));
  return app;
}

describe('the web client files', () => {
  it('says how to build the client until apps/web/dist exists, then serves it without a restart', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'teamchat-web-unit-')), 'dist');
    const app = appFor(dir);
    const before = await inject(app, { url: '/' });
    expect(before.statusCode).toBe(503);
    expect(before.body).toContain('npm run build');
    expect(before.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(before.headers['cache-control']).toBe('no-store');
    mkdirSync(join(dir, 'static'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>client</title>');
    const after = await inject(app, { url: '/' });
    expect([after.statusCode, after.body]).toEqual([200, '<!doctype html><title>client</title>']);
    await app.close();
  });

  it('never serves a file outside static/', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamchat-web-unit-'));
    mkdirSync(join(dir, 'static', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), 'page');
    writeFileSync(join(dir, 'static', 'sub', 'a-1.css'), 'body{}');
    writeFileSync(join(dir, 'static', '.env'), 'SECRET');
    const app = appFor(dir);
    expect((await inject(app, { url: '/static/sub/a-1.css' })).headers['content-type']).toBe('text/css; charset=utf-8');
    for (const url of ['/static/../index.html', '/static/sub/../../index.html', '/static/%2e%2e/index.html', '/static/.env', '/static/sub', '/static/sub%5c..%5c..%5cindex.html']) {
      const res = await inject(app, { url });
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
    await app.close();
  });

  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['*', 'gzip'],
    ['identity', 'identity'],
    [undefined, 'identity'],
    ['gzip;q=0', 'identity'],
  ])('Accept-Encoding %j → %s', (accept, expected) => expect(encodingFor(accept)).toBe(expected));
});
