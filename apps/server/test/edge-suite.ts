/**
 * The HTTP edge against abusive clients, run in both modes: rate limits (per user, per
 * address, per login account, with Zulip's headers and RATE_LIMIT_HIT), slow clients cut
 * off by the header, request and keep-alive timeouts, and body limits that fit the largest
 * legitimate message in every encoding.
 */
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export type StartWithEnv = (env: Record<string, string>) => Promise<RunningServer>;

/** The development organization's JWT secret (README). */
const JWT_SECRET = new TextEncoder().encode('dev-jwt-secret');
const jwtFor = (email: string, secret = JWT_SECRET) => new SignJWT({ email }).setProtectedHeader({ alg: 'HS256' }).sign(secret);

/** Each test speaks from its own client address (the gateway trusts X-Forwarded-For here). */
let lastAddress = 0;
const newAddress = () => `192.0.2.${++lastAddress}`;

function fromAddress(client: Client, address: string) {
  return (method: string, path: string, params: Record<string, unknown> = {}) =>
    client.request(method, path, params, { headers: { 'x-forwarded-for': address } });
}

/** Reads what a raw connection receives until the server closes it (or `timeoutMs` passes). */
function rawExchange(url: string, write: (socket: import('node:net').Socket) => void, timeoutMs: number) {
  const { hostname, port } = new URL(url);
  return new Promise<{ text: string; closedAfterMs: number | undefined }>((resolve) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: undefined });
    }, timeoutMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => write(socket));
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

export function edgeSuite(mode: string, start: StartWithEnv) {
  describe(`rate limits (${mode})`, () => {
    // No kit log-in: logging in spends login budgets, so each user logs in from an address of its own.
    const suite = suiteServer(
      () =>
        start({
          TEAMCHAT_RATE_LIMITS: 'on',
          TEAMCHAT_TRUST_PROXY: '1',
          TEAMCHAT_RATE_LIMIT_API: '6/60',
          TEAMCHAT_RATE_LIMIT_ANONYMOUS: '5/60',
          TEAMCHAT_RATE_LIMIT_LOGIN: '3/60',
          TEAMCHAT_RATE_LIMIT_LOGIN_ACCOUNT: '2/60',
        }),
      [],
    );
    let member: Client;
    let member2: Client;

    beforeAll(async () => {
      const login = async (email: string) => {
        const res = await new Client(suite.server.api).request('POST', '/dev_fetch_api_key', { username: email }, { headers: { 'x-forwarded-for': newAddress() } });
        return new Client(suite.server.api, email, res.body.api_key);
      };
      member = await login('member@example.com');
      member2 = await login('member2@example.com');
    });

    it('gives each user a budget per window, with the X-RateLimit headers, then RATE_LIMIT_HIT with retry-after', async () => {
      const before = Math.floor(Date.now() / 1000);
      const remaining: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await member.get('/users/me');
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('6');
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        // A moment in Unix seconds, within the 60 s window.
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(before);
        expect(reset).toBeLessThanOrEqual(before + 61);
      }
      expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);

      const refused = await member.post('/messages', { type: 'stream', to: 'general', topic: 'limits', content: 'over the budget' });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT', msg: expect.any(String) });
      expect(refused.body['retry-after']).toBeGreaterThan(0);
      expect(refused.body['retry-after']).toBeLessThanOrEqual(60);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

      // Another user's budget is their own, and the refused message was never stored.
      const read = await member2.get('/messages', {
        anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false,
        narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'limits' }],
      });
      expect(read.status).toBe(200);
      expect(read.body.messages).toEqual([]);
      expect(read.headers.get('x-ratelimit-remaining')).toBe('5');
    });

    it('counts requests without valid credentials per client address, unknown routes and bad keys included', async () => {
      const address = newAddress();
      const anonymous = fromAddress(new Client(suite.server.api), address);
      const wrongKey = fromAddress(new Client(suite.server.api, 'member@example.com', 'not-the-key'), address);
      const statuses = [
        (await anonymous('GET', '/server_settings')).status,
        (await anonymous('GET', '/no/such/route')).status,
        (await wrongKey('GET', '/users/me')).status,
        (await wrongKey('POST', '/messages', { type: 'stream', to: 'general', topic: 't', content: 'guessing' })).status,
        (await anonymous('POST', '/users/me/subscriptions', { subscriptions: '[{"name": "x"}]' })).status,
      ];
      expect(statuses).toEqual([200, 404, 401, 401, 401]);
      const refused = await anonymous('GET', '/server_settings');
      expect([refused.status, refused.body.code]).toEqual([429, 'RATE_LIMIT_HIT']);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
      // A key guessed from that address is refused before it is checked.
      expect((await wrongKey('GET', '/users/me')).status).toBe(429);
      // Another address is not affected.
      expect((await fromAddress(new Client(suite.server.api), newAddress())('GET', '/server_settings')).status).toBe(200);
      // A path the router refuses carries the headers too (counted by the connection's
      // address: Fastify gives such a request no forwarded address).
      const badPath = await anonymous('GET', '/messages/%ZZ');
      expect(badPath.status).toBe(400);
      expect(badPath.headers.get('x-ratelimit-limit')).toBe('5');
    });

    it('gives the key endpoints a stricter budget per address, reporting the strictest', async () => {
      const address = newAddress();
      const anonymous = fromAddress(new Client(suite.server.api), address);
      const first = await anonymous('POST', '/dev_fetch_api_key', { username: 'guest@example.com' });
      expect(first.status).toBe(200);
      // The strictest of the budgets spent: 4 of 5 anonymous left, 2 of 3 login, 2 of 2 failures for the account.
      expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
      const second = await anonymous('POST', '/fetch_api_key/dev', { username: 'guest@example.com' });
      expect(second.status).toBe(200);
      expect([second.headers.get('x-ratelimit-limit'), second.headers.get('x-ratelimit-remaining')]).toEqual(['3', '1']);
      expect((await anonymous('POST', '/jwt/fetch_api_key', { token: await jwtFor('guest@example.com') })).status).toBe(200);
      const refused = await anonymous('POST', '/dev_fetch_api_key', { username: 'guest@example.com' });
      expect([refused.status, refused.body.code]).toEqual([429, 'RATE_LIMIT_HIT']);
      expect(refused.body).not.toHaveProperty('api_key');
      // Requests that need no key still have the address's anonymous budget.
      expect((await anonymous('GET', '/server_settings')).status).toBe(200);
    });

    it('locks an account out of the key endpoints after failed attempts, whichever address they come from', async () => {
      const forged = await jwtFor('moderator@example.com', new TextEncoder().encode('a guessed secret'));
      const attempt = (token: string) => fromAddress(new Client(suite.server.api), newAddress())('POST', '/jwt/fetch_api_key', { token });
      const failures = [await attempt(forged), await attempt(forged)];
      expect(failures.map((r) => r.status)).toEqual([400, 400]);
      expect(failures.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0']);
      // The account's budget of failures is spent: even a valid token waits.
      const locked = await attempt(await jwtFor('moderator@example.com'));
      expect([locked.status, locked.body.code]).toEqual([429, 'RATE_LIMIT_HIT']);
      expect(locked.body).not.toHaveProperty('api_key');
      // Other accounts log in as before; successes spend no account's budget.
      for (let i = 0; i < 3; i++) expect((await attempt(await jwtFor('owner@example.com'))).status).toBe(200);
    });

    it('counts wrong passwords at POST /fetch_api_key against the account named, and the address', async () => {
      const attempt = (address: string) =>
        fromAddress(new Client(suite.server.api), address)('POST', '/fetch_api_key', { username: 'admin@example.com', password: 'a guess' });
      const failures = [await attempt(newAddress()), await attempt(newAddress())];
      expect(failures.map((r) => [r.status, r.body.code])).toEqual([
        [401, 'AUTHENTICATION_FAILED'],
        [401, 'AUTHENTICATION_FAILED'],
      ]);
      expect((await attempt(newAddress())).body.code).toBe('RATE_LIMIT_HIT');
      // One address's login budget (3) covers every account it tries.
      const address = newAddress();
      const tries = [];
      for (const username of ['owner@example.com', 'guest@example.com', 'member2@example.com', 'moderator@example.com']) {
        tries.push((await fromAddress(new Client(suite.server.api), address)('POST', '/fetch_api_key', { username, password: 'x' })).status);
      }
      expect(tries).toEqual([401, 401, 401, 429]);
    });
  });

  describe(`rate limits by default (${mode})`, () => {
    it('are off in development mode unless turned on: no headers, no refusals', async () => {
      const server = await start({ TEAMCHAT_RATE_LIMIT_API: '1/60' });
      try {
        const member = await Client.login(server.api, 'member@example.com');
        for (let i = 0; i < 3; i++) {
          const res = await member.get('/users/me');
          expect(res.status).toBe(200);
          expect(res.headers.has('x-ratelimit-limit')).toBe(false);
        }
      } finally {
        await server.stop();
      }
    }, 60_000);
  });

  describe(`slow and oversized requests (${mode})`, () => {
    const suite = suiteServer(
      () =>
        start({
          TEAMCHAT_HEADERS_TIMEOUT_SECONDS: '0.5',
          TEAMCHAT_REQUEST_TIMEOUT_SECONDS: '1',
          TEAMCHAT_KEEP_ALIVE_TIMEOUT_SECONDS: '0.5',
        }),
      ['member'],
    );
    const { clients } = suite;

    it('cuts off a client that sends its headers a line at a time (slow-loris) with a 408 envelope', async () => {
      let dribble: NodeJS.Timeout | undefined;
      const { text, closedAfterMs } = await rawExchange(suite.server.api, (socket) => {
        socket.write(`GET /api/v1/server_settings HTTP/1.1\r\nHost: localhost\r\n`);
        let n = 0;
        dribble = setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: a\r\n`), 100);
      }, 10_000);
      clearInterval(dribble);
      expect(closedAfterMs).toBeDefined();
      expect(closedAfterMs!).toBeLessThan(5_000);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(bodyOf(text)).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    });

    it('cuts off a client that sends its body too slowly with a 408 envelope, storing nothing', async () => {
      const content = 'never sent whole';
      const body = new URLSearchParams({ type: 'stream', to: 'general', topic: 'slow', content }).toString();
      let dribble: NodeJS.Timeout | undefined;
      const { text, closedAfterMs } = await rawExchange(suite.server.api, (socket) => {
        const auth = Buffer.from(`${clients.member.email}:${clients.member.apiKey}`).toString('base64');
        socket.write(
          `POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${auth}\r\n` +
            `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        let sent = 0;
        dribble = setInterval(() => socket.writable && sent < body.length - 1 && socket.write(body[sent++]!), 100);
      }, 10_000);
      clearInterval(dribble);
      expect(closedAfterMs).toBeDefined();
      expect(closedAfterMs!).toBeLessThan(5_000);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(bodyOf(text)).toMatchObject({ result: 'error' });
      const read = await clients.member.get('/messages', {
        anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false,
        narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'slow' }],
      });
      expect(read.body.messages).toEqual([]);
    });

    it('closes a keep-alive connection left idle between requests', async () => {
      const { text, closedAfterMs } = await rawExchange(suite.server.api, (socket) => {
        socket.write(`GET /api/v1/server_settings HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
      }, 10_000);
      expect(text).toMatch(/^HTTP\/1\.1 200 /);
      expect(closedAfterMs).toBeDefined();
      expect(closedAfterMs!).toBeLessThan(5_000);
    });

    it('accepts a message of the largest length in every encoding, 4-byte characters and all', async () => {
      // 10,000 code points, each four UTF-8 bytes: 120,000 bytes percent-encoded or as JSON escapes.
      const content = '\u{1F600}'.repeat(10_000);
      const topic = '\u{1F600}'.repeat(60);
      const params = { type: 'stream', to: 'general', topic, content };
      const form = new FormData();
      for (const [key, value] of Object.entries(params)) form.set(key, value);
      // Every UTF-16 unit outside ASCII as a \uXXXX escape: a surrogate pair per character.
      const escapedJson = JSON.stringify(params).replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
      const sends = [
        await clients.member.post('/messages', params),
        await clients.member.request('POST', '/messages', {}, { rawBody: form }),
        await clients.member.request('POST', '/messages', {}, { rawBody: escapedJson, headers: { 'content-type': 'application/json' } }),
      ];
      expect(escapedJson.length).toBeGreaterThan(120_000);
      for (const sent of sends) expect([sent.status, sent.body.result]).toEqual([200, 'success']);
      const stored = await clients.member.get(`/messages/${sends[2]!.body.id}`, { apply_markdown: false });
      expect(stored.body.message.content).toBe(content);
      // One code point more is refused by the rule, not by the body limit.
      const tooLong = await clients.member.post('/messages', { ...params, content: content + 'x' });
      expect([tooLong.status, tooLong.body.code]).toEqual([400, 'BAD_REQUEST']);
    });

    it('answers a body past its route limit with a 413 envelope', async () => {
      const res = await clients.member.post('/messages', { type: 'stream', to: 'general', topic: 'big', content: 'x'.repeat(600 * 1024) });
      expect([res.status, res.body.result, res.body.code]).toEqual([413, 'error', 'BAD_REQUEST']);
    });
  });
}
