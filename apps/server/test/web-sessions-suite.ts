/**
 * The web client's server side (issue 39, items 1, 2 and 6): the page and its files, the
 * login routes, the session cookie, `/json/…` with its CSRF token, and every way a session
 * ends (logout, deactivation, a new password, expiry) taking effect at its acknowledgement;
 * sessions survive a restart. Runs in both modes.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { RunningServer } from './harness';
import { logIn, waitFor, type LoggedIn } from './suite-kit';

/** The session age the suite's servers are given: long enough for a test, short enough to wait out. */
const SESSION_AGE_SECONDS = 20;
const REALM_URI = 'https://chat.example.test';
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** A build as Vite leaves it: index.html and hashed files under static/. */
function fakeWebBuild(): { dir: string; index: string; script: string } {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-web-'));
  mkdirSync(join(dir, 'static'));
  const index = '<!doctype html><html><head><script type="module" src="/static/app-3f9a1c.js"></script></head><body><div id="app"></div></body></html>\n';
  const script = `export const lines = [${Array.from({ length: 400 }, (_, i) => JSON.stringify(`line ${i} of the client`)).join(',')}];\n`;
  writeFileSync(join(dir, 'index.html'), index);
  writeFileSync(join(dir, 'static', 'app-3f9a1c.js'), script);
  writeFileSync(join(dir, 'static', 'logo-77aa.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  writeFileSync(join(dir, 'secret.txt'), 'outside static/');
  return { dir, index, script };
}

export const WEB_SESSION_ENV = (webDir: string): Record<string, string> => ({
  TEAMCHAT_WEB_DIR: webDir,
  TEAMCHAT_SESSION_AGE_SECONDS: String(SESSION_AGE_SECONDS),
  TEAMCHAT_REALM_URI: REALM_URI,
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A browser's view of the server: one cookie jar (the session), the CSRF token it was given. */
class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(readonly origin: () => string) {}

  async request(method: string, path: string, options: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string>; csrf?: boolean } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.cookie) headers.cookie = `other=1; teamchat_session=${this.cookie}`;
    if ((options.csrf ?? true) && this.csrf && method !== 'GET') headers['x-csrftoken'] = this.csrf;
    let body: string | URLSearchParams | undefined;
    if (options.form) body = new URLSearchParams(options.form);
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.origin()}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    for (const cookie of res.headers.getSetCookie()) {
      const match = /^teamchat_session=([^;]*)/.exec(cookie);
      if (match) this.cookie = match[1] || undefined;
    }
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async logIn(username: string, password: string): Promise<Reply> {
    const reply = await this.request('POST', '/login', { form: { username, password } });
    if (reply.status === 200) this.csrf = reply.body.csrf_token;
    return reply;
  }

  async devLogIn(email: string): Promise<Reply> {
    const reply = await this.request('POST', '/login/dev', { form: { email } });
    if (reply.status === 200) this.csrf = reply.body.csrf_token;
    return reply;
  }
}

let counter = 0;
const uniqueEmail = () => `web-${Date.now().toString(36)}-${counter++}@example.com`;

/**
 * `start` starts a server with the given environment on a data directory (a fresh one when
 * none); `restart` brings the given server back on its data (embedded: stop and start;
 * distributed: the accounts service restarted).
 */
export function webSessionsSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>, restart: (server: RunningServer, env: Record<string, string>) => Promise<RunningServer>) {
  describe(`web client and sessions (${mode})`, () => {
    const build = fakeWebBuild();
    const env = WEB_SESSION_ENV(build.dir);
    let server: RunningServer;
    let users: LoggedIn<'owner' | 'admin' | 'member'>;
    const origin = () => server.api.replace(/\/api\/v1$/, '');
    const browser = () => new Browser(origin);

    /**
     * The session the expiry test waits out, begun with the suite so that the other tests
     * run during its age (20 s, about what they take) instead of before it. A person of its
     * own: no other test's password change, deactivation or logout ends it early.
     */
    let expiring: { browser: Browser; started: number } | undefined;

    beforeAll(async () => {
      server = await start(env);
      users = await logIn(server.api, ['owner', 'admin', 'member'] as const);
      const p = await person();
      const b = browser();
      const started = Date.now();
      await b.devLogIn(p.email);
      expect((await b.request('GET', '/json/users/me')).status).toBe(200);
      expiring = { browser: b, started };
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    /** A new member with a password, and their id. */
    async function person(password = 'a web password'): Promise<{ email: string; id: number; password: string }> {
      const email = uniqueEmail();
      const created = await users.clients.owner.post('/users', { email, password, full_name: 'Web Person' });
      expect(created.body.result).toBe('success');
      return { email, id: created.body.user_id, password };
    }

    describe('the page and its files', () => {
      it('serves index.html at /, /login and any page a browser opens, never cached, with the strict CSP', async () => {
        for (const [path, accept] of [
          ['/', '*/*'],
          ['/login', '*/*'],
          ['/some/client/route?x=1', 'text/html,application/xhtml+xml'],
        ] as const) {
          const page = await browser().request('GET', path, { headers: { accept } });
          expect([path, page.status]).toEqual([path, 200]);
          expect(page.text).toBe(build.index);
          expect(page.headers.get('content-security-policy')).toBe(CSP);
          expect(page.headers.get('cache-control')).toBe('no-store');
          expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        }
        // Not a page: the API's own 404, in JSON.
        const api = await browser().request('GET', '/api/v1/no/such/thing', { headers: { accept: 'text/html' } });
        expect([api.status, api.body.code]).toEqual([404, 'NOT_FOUND']);
        const json = await browser().request('GET', '/json/no/such/thing', { headers: { accept: 'text/html' } });
        expect(json.status).not.toBe(200);
        const script = await browser().request('GET', '/some/path', { headers: { accept: 'application/json' } });
        expect(script.status).toBe(404);
      });

      it('serves hashed files for a year, compressed as the browser accepts', async () => {
        const path = '/static/app-3f9a1c.js';
        const raw = async (encoding: string, file = path) => {
          const res = await fetch(`${origin()}${file}`, { headers: { 'accept-encoding': encoding } });
          return { res, bytes: Buffer.from(await res.arrayBuffer()) };
        };
        // fetch decodes the body: the bytes on the wire are checked in the next test.
        for (const [accept, expected] of [
          ['gzip, deflate, br', 'br'],
          ['gzip', 'gzip'],
          ['br;q=0, gzip', 'gzip'],
          ['identity', null],
        ] as const) {
          const { res, bytes } = await raw(accept);
          expect([accept, res.status]).toEqual([accept, 200]);
          expect(res.headers.get('content-encoding')).toBe(expected);
          expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
          expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
          expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
          expect(bytes.toString()).toBe(build.script);
        }
        const png = await raw('gzip, br', '/static/logo-77aa.png');
        expect([png.res.status, png.res.headers.get('content-type'), png.res.headers.get('content-encoding')]).toEqual([200, 'image/png', null]);
      });

      it('sends compressed bytes that decode to the file', async () => {
        const http = await import('node:http');
        const get = (encoding: string) =>
          new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
            http
              .get(`${origin()}/static/app-3f9a1c.js`, { headers: { 'accept-encoding': encoding } }, (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (c: Buffer) => chunks.push(c));
                res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
              })
              .on('error', reject);
          });
        const br = await get('br');
        expect(br.body.length).toBeLessThan(build.script.length / 3);
        expect(brotliDecompressSync(br.body).toString()).toBe(build.script);
        const gz = await get('gzip');
        expect(gunzipSync(gz.body).toString()).toBe(build.script);
      });

      it('serves nothing outside static/', async () => {
        for (const path of ['/static/../secret.txt', '/static/%2e%2e/secret.txt', '/static/..%2fsecret.txt', '/static/.hidden', '/static/', '/static/nope.js', '/static/%00.js']) {
          const res = await fetch(`${origin()}${path}`);
          const text = await res.text();
          expect([path, res.status]).toEqual([path, expect.any(Number)]);
          expect(text).not.toContain('outside static/');
          if (res.status === 200) expect(text).toBe(build.index);
          else expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
        }
      });
    });

    describe('logging in and out', () => {
      it('logs in with email and password: a random HttpOnly, SameSite=Lax, Secure (https realm) cookie and a CSRF token', async () => {
        const p = await person();
        const b = browser();
        const res = await b.logIn(p.email, p.password);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ result: 'success', msg: '', user_id: p.id, csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
        const cookie = res.headers.getSetCookie().find((c) => c.startsWith('teamchat_session='))!;
        expect(cookie).toMatch(/^teamchat_session=[A-Za-z0-9_-]{43}; /);
        for (const flag of ["HttpOnly", "SameSite=Lax", "Path=/", "Secure"]) expect(cookie.split("; ")).toContain(flag);
        const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
        expect(maxAge).toBeGreaterThan(SESSION_AGE_SECONDS - 5);
        expect(maxAge).toBeLessThanOrEqual(SESSION_AGE_SECONDS);
        const session = await b.request('GET', '/json/session');
        expect(session.body).toEqual({ result: 'success', msg: '', user_id: p.id, email: p.email, full_name: 'Web Person', csrf_token: b.csrf });
        // Each login is a session of its own.
        const again = browser();
        await again.logIn(p.email, p.password);
        expect(again.cookie).not.toBe(b.cookie);
        // JSON bodies too.
        const json = await browser().request('POST', '/login', { json: { username: p.email.toUpperCase(), password: p.password } });
        expect(json.body).toMatchObject({ result: 'success', user_id: p.id });
      });

      it('refuses a wrong password, an unknown address and bad input, setting no cookie', async () => {
        const p = await person();
        for (const [form, status, code] of [
          [{ username: p.email, password: 'wrong' }, 401, 'AUTHENTICATION_FAILED'],
          [{ username: 'nobody@example.com', password: 'x' }, 401, 'AUTHENTICATION_FAILED'],
          [{ username: p.email }, 400, 'BAD_REQUEST'],
          [{ password: 'x' }, 400, 'BAD_REQUEST'],
          [{ username: p.email, password: 'x'.repeat(20_000) }, 400, 'BAD_REQUEST'],
        ] as const) {
          const b = browser();
          const res = await b.request('POST', '/login', { form });
          expect([res.status, res.body.code]).toEqual([status, code]);
          expect(res.headers.getSetCookie()).toEqual([]);
          expect(res.text).not.toContain(p.password);
        }
        const bot = await browser().request('POST', '/login/dev', { form: { email: 'echo-bot@example.com' } });
        expect([bot.status, bot.body.code]).toEqual([400, 'BAD_REQUEST']);
        expect((await browser().request('POST', '/login/dev', { form: { email: 'nobody@example.com' } })).status).toBe(400);
      });

      it('lists the active humans for the development login, and logs one in with a click', async () => {
        const list = await browser().request('GET', '/login/dev_users');
        expect(list.body.result).toBe('success');
        const emails = list.body.users.map((u: { email: string }) => u.email);
        expect(emails).toEqual(expect.arrayContaining(['owner@example.com', 'member@example.com', 'guest@example.com']));
        expect(emails).not.toContain('echo-bot@example.com');
        expect(list.body.users.find((u: { email: string }) => u.email === 'owner@example.com')).toEqual({ email: 'owner@example.com', full_name: 'Olivia Owner', role: 100, is_bot: false });
        const b = browser();
        expect((await b.devLogIn('member@example.com')).body).toMatchObject({ result: 'success', user_id: users.ids.member });
        expect((await b.request('GET', '/json/users/me')).body).toMatchObject({ result: 'success', email: 'member@example.com' });
      });

      it('logs out with the CSRF token only; the session is refused from the acknowledgement on and the cookie cleared', async () => {
        const b = browser();
        await b.devLogIn('member@example.com');
        const forged = await b.request('POST', '/logout', { csrf: false });
        expect([forged.status, forged.body.code]).toEqual([403, 'CSRF_FAILED']);
        expect((await b.request('GET', '/json/session')).status).toBe(200);
        const cookie = b.cookie;
        const out = await b.request('POST', '/logout');
        expect(out.body).toEqual({ result: 'success', msg: '' });
        expect(out.headers.getSetCookie()[0]).toMatch(/^teamchat_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);
        b.cookie = cookie;
        const after = await b.request('GET', '/json/users/me');
        expect([after.status, after.body.code]).toEqual([401, 'UNAUTHORIZED']);
        expect(after.headers.get('www-authenticate')).toBe('Session realm="zulip"');
        expect((await b.request('POST', '/logout')).status).toBe(401);
      });
    });

    describe('the API under /json', () => {
      it('serves /api/v1 endpoints to the session, with X-CSRFToken required for every change', async () => {
        const b = browser();
        await b.devLogIn('member@example.com');
        const topic = `web ${Date.now()}`;
        const count = async () =>
          (await users.clients.member.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'topic', operand: topic }]) })).body.messages.length;
        const send = { type: 'stream', to: 'general', topic, content: 'from the browser' };
        const missing = await b.request('POST', '/json/messages', { form: send, csrf: false });
        expect(missing.status).toBe(403);
        expect(missing.body).toEqual({ result: 'error', code: 'CSRF_FAILED', msg: 'CSRF error: CSRF token missing.', reason: 'CSRF token missing.' });
        const wrong = await b.request('POST', '/json/messages', { form: send, csrf: false, headers: { 'x-csrftoken': 'A'.repeat(43) } });
        expect([wrong.status, wrong.body.msg]).toEqual([403, 'CSRF error: CSRF token incorrect.']);
        // Another session's token is no good either.
        const other = browser();
        await other.devLogIn('member@example.com');
        expect((await b.request('POST', '/json/messages', { form: send, csrf: false, headers: { 'x-csrftoken': other.csrf! } })).status).toBe(403);
        expect(await count()).toBe(0);
        const sent = await b.request('POST', '/json/messages', { form: send });
        expect(sent.body).toMatchObject({ result: 'success', id: expect.any(Number) });
        expect(await count()).toBe(1);
        const fetched = await b.request('GET', `/json/messages/${sent.body.id}`);
        expect(fetched.body.message).toMatchObject({ content: '<p>from the browser</p>', client: 'website', sender_email: 'member@example.com' });
        // PATCH and DELETE need it too.
        expect((await b.request('PATCH', `/json/messages/${sent.body.id}`, { form: { content: 'edited' }, csrf: false })).status).toBe(403);
        expect((await b.request('PATCH', `/json/messages/${sent.body.id}`, { form: { content: 'edited' } })).body.result).toBe('success');
      });

      it('takes no API key under /json and no session under /api/v1, and never shows the page an API key', async () => {
        const b = browser();
        await b.devLogIn('member@example.com');
        const key = (await users.clients.member.post('/dev_fetch_api_key', { username: 'member@example.com' })).body.api_key as string;
        const basic = `Basic ${Buffer.from(`member@example.com:${key}`).toString('base64')}`;
        const viaKey = await browser().request('GET', '/json/users/me', { headers: { authorization: basic } });
        expect([viaKey.status, viaKey.body.code]).toEqual([401, 'UNAUTHORIZED']);
        const viaCookie = await b.request('GET', '/api/v1/users/me');
        expect(viaCookie.status).toBe(401);
        for (const path of ['/json/fetch_api_key', '/json/dev_fetch_api_key', '/json/users/me/api_key/regenerate']) {
          const res = await b.request('POST', path, { form: { username: 'member@example.com', password: 'x' } });
          expect([path, res.status]).toEqual([path, 404]);
        }
        const registered = await b.request('POST', '/json/register', { form: {} });
        expect(registered.body.result).toBe('success');
        expect(registered.text).not.toContain(key);
        expect(JSON.stringify(registered.body)).not.toMatch(/"api_key"\s*:\s*"[^"]+"/);
        // Bad input is refused as under /api/v1, never a 500.
        const bad = await b.request('POST', '/json/messages', { form: { type: 'stream', to: 'general' } });
        expect([bad.status, bad.body.code]).toEqual([400, 'BAD_REQUEST']);
      });

      it("loads the organization's files (/user_uploads) with the session, as images in messages need", async () => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(Buffer.from('89504e470d0a1a0a', 'hex'))], { type: 'image/png' }), 'dot.png');
        const b = browser();
        await b.devLogIn('member@example.com');
        const uploaded = await fetch(`${origin()}/json/user_uploads`, { method: 'POST', body: form, headers: { cookie: `teamchat_session=${b.cookie}`, 'x-csrftoken': b.csrf! } });
        const { url } = (await uploaded.json()) as { url: string };
        expect(url).toMatch(/^\/user_uploads\//);
        const viaSession = await b.request('GET', url);
        expect(viaSession.status).toBe(200);
        const anonymous = await browser().request('GET', url);
        expect(anonymous.status).toBe(401);
        const stale = browser();
        stale.cookie = 'A'.repeat(43);
        expect((await stale.request('GET', url)).status).toBe(401);
      });

      it('long-polls GET /json/events', async () => {
        const b = browser();
        await b.devLogIn('member@example.com');
        const q = await b.request('POST', '/json/register', { form: { event_types: JSON.stringify(['message']) } });
        const topic = `poll ${Date.now()}`;
        const polled = b.request('GET', `/json/events?queue_id=${encodeURIComponent(q.body.queue_id)}&last_event_id=-1`);
        await new Promise((r) => setTimeout(r, 200));
        await users.clients.admin.post('/messages', { type: 'stream', to: 'general', topic, content: 'live' });
        const events = await polled;
        expect(events.body.result).toBe('success');
        expect(events.body.events.map((e: { type: string; message?: { subject: string } }) => e.message?.subject ?? e.type)).toContain(topic);
      });
    });

    describe('sessions end', () => {
      it('a new password ends every other session of the user at once, and keeps the one it came from', async () => {
        const p = await person();
        const here = browser();
        const there = browser();
        await here.logIn(p.email, p.password);
        await there.logIn(p.email, p.password);
        expect((await there.request('GET', '/json/users/me')).status).toBe(200);
        const changed = await here.request('PATCH', '/json/settings', { form: { old_password: p.password, new_password: 'another password' } });
        expect(changed.body).toEqual({ result: 'success', msg: '' });
        expect((await there.request('GET', '/json/users/me')).status).toBe(401);
        expect((await here.request('GET', '/json/users/me')).status).toBe(200);
        expect((await browser().logIn(p.email, p.password)).status).toBe(401);
        expect((await browser().logIn(p.email, 'another password')).status).toBe(200);
      });

      it('deactivation ends the sessions at once, and a deactivated user cannot log in', async () => {
        const p = await person();
        const b = browser();
        await b.logIn(p.email, p.password);
        expect((await b.request('GET', '/json/users/me')).status).toBe(200);
        expect((await users.clients.admin.request('DELETE', `/users/${p.id}`)).body.result).toBe('success');
        expect((await b.request('GET', '/json/users/me')).status).toBe(401);
        const again = await browser().logIn(p.email, p.password);
        expect([again.status, again.body.code]).toEqual([401, 'USER_DEACTIVATED']);
        // Reactivation does not bring the old session back.
        expect((await users.clients.admin.post(`/users/${p.id}/reactivate`)).body.result).toBe('success');
        expect((await b.request('GET', '/json/users/me')).status).toBe(401);
      });

      it('a session expires after the session age, cached or not', async () => {
        const { browser: b, started } = expiring!;
        // Still served while its age lasts (when the tests before took less than it, as
        // they do by half): what ends it below is its age, not another test.
        if (Date.now() < started + SESSION_AGE_SECONDS * 1000 - 3000) expect((await b.request('GET', '/json/users/me')).status).toBe(200);
        await new Promise((r) => setTimeout(r, Math.max(0, started + SESSION_AGE_SECONDS * 1000 + 500 - Date.now())));
        // Twice: with two gateways, one has the session cached and the other asks accounts.
        for (let i = 0; i < 2; i++) {
          const expired = await b.request('GET', '/json/users/me');
          expect([expired.status, expired.body.code]).toEqual([401, 'UNAUTHORIZED']);
        }
      }, 30_000);

      it('survives a restart', async () => {
        const b = browser();
        await b.devLogIn('member@example.com');
        server = await restart(server, env);
        users = await logIn(server.api, ['owner', 'admin', 'member'] as const);
        // A name change makes every gateway forget the user's cached sessions: the next lookup is accounts'.
        expect((await b.request('PATCH', '/json/settings', { form: { full_name: 'Mark Member' } })).body.result).toBe('success');
        const me = await waitFor('the session after the restart', async () => {
          const res = await b.request('GET', '/json/session');
          return res.status === 200 ? res : undefined;
        });
        expect(me.body).toMatchObject({ result: 'success', user_id: users.ids.member, csrf_token: b.csrf });
      }, 120_000);
    });
  });
}
