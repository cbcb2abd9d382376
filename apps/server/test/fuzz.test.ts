/**
 * Property test over every route of the gateway's table (the endpoint contracts, aliases
 * included: a new route is fuzzed without touching this file): hostile parameter names
 * and values, every body encoding, malformed paths and Authorization headers, from every
 * kind of caller. Each reply must be a JSON envelope with `result` and `msg`, never a 5xx
 * (but 503/504), and a refused request must store no fact.
 *
 * The seed is printed at the start; `FUZZ_SEED=<seed>` replays a run (each route's
 * property uses seed + its index in the table; cases change the server's state, so run
 * the whole file to replay exactly, though `-t '<route>'` mostly suffices).
 * `FUZZ_RUNS=<n>` changes the runs per route, `FUZZ_TIME_LIMIT_MS` each property's time
 * budget; `FUZZ_STATS=<file>` writes how often each route answered what, and
 * `FUZZ_DEBUG=<text>` prints every case whose reply contains the text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Client, startEmbedded, tempDataDir, type RunningServer } from './harness';
import {
  envelopeProblem,
  fuzzCase,
  fuzzRoutes,
  hostileValue,
  percentEncode,
  rawRequest,
  sentButMissing,
  toRawRequest,
  type Actor,
  type Credentials,
  type FuzzCase,
  type FuzzContext,
  type RawReply,
} from './fuzz-support';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
const RUNS = Number(process.env.FUZZ_RUNS ?? 80);
/** Per property: a slow machine runs fewer cases rather than stalling `npm test`. */
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 6000);

/** `FUZZ_STATS=<file>` writes how often each route answered what: is the fuzzer getting past validation? */
const STATS = process.env.FUZZ_STATS;
const stats = new Map<string, number>();

const EMAILS: Record<Actor, string> = {
  owner: 'owner@example.com',
  admin: 'admin@example.com',
  member: 'member@example.com',
  guest: 'guest@example.com',
  bot: 'echo-bot@example.com',
};

describe('the checks the fuzzer applies', () => {
  const reply = (status: number, body: string) => ({ status, headers: {}, body: Buffer.from(body) });
  it('pass an envelope and flag a 5xx, a non-JSON body, a missing member or an error without code', () => {
    expect(envelopeProblem(reply(200, '{"result":"success","msg":""}'))).toBeUndefined();
    expect(envelopeProblem(reply(400, '{"result":"error","msg":"no","code":"BAD_REQUEST"}'))).toBeUndefined();
    expect(envelopeProblem(reply(503, '{"result":"error","msg":"down","code":"UNAVAILABLE"}'))).toBeUndefined();
    expect(envelopeProblem(reply(500, '{"result":"error","msg":"boom","code":"INTERNAL_SERVER_ERROR"}'))).toBe('status 500');
    expect(envelopeProblem(reply(400, '<html>'))).toMatch(/^non-JSON/);
    expect(envelopeProblem(reply(400, '{"error":"Bad Request","statusCode":400}'))).toMatch(/^result is/);
    expect(envelopeProblem(reply(400, '{"result":"error","code":"X"}'))).toMatch(/^msg is/);
    expect(envelopeProblem(reply(400, '{"result":"error","msg":"no"}'))).toMatch(/without a string code/);
    expect(envelopeProblem(reply(200, '{"result":"error","msg":"no","code":"X"}'))).toMatch(/an error with status 200/);
  });
  it("flag a parameter reported missing that was sent, but not one behind the path's fragment", () => {
    const missing = reply(400, `{"result":"error","msg":"Missing 'draft' argument","code":"BAD_REQUEST"}`);
    const sent: FuzzCase = {
      tame: true,
      method: 'PATCH',
      path: '/drafts/1',
      params: [{ name: 'draft', value: '[]', inQuery: false, asJson: false }],
      queryTail: '',
      body: 'none',
      contentType: undefined,
      garbage: '',
      auth: { kind: 'none' },
      userAgent: undefined,
    };
    expect(sentButMissing(sent, missing)).toMatch(/'draft' was sent/);
    expect(sentButMissing({ ...sent, body: 'form' }, missing)).toMatch(/'draft' was sent/);
    expect(sentButMissing({ ...sent, path: '/drafts/1#frag' }, missing)).toBeUndefined();
    expect(sentButMissing({ ...sent, path: '/drafts/1#frag', body: 'form' }, missing)).toMatch(/'draft' was sent/);
    expect(sentButMissing({ ...sent, method: 'GET', body: 'form' }, missing)).toBeUndefined();
  });
});

/** The callers' roles, as seeded. */
const ROLE_OF: Record<Actor, number> = { owner: 100, admin: 200, member: 400, guest: 600, bot: 400 };

describe('fuzzing every route', () => {
  let server: RunningServer;
  let port: number;
  let facts: Database.Database;
  const clients = {} as Record<Actor, Client>;
  const userIds = {} as Record<Actor, number>;
  const channelIds: number[] = [];
  /** The messages the cases aim at, in the order of `fixtures`; one deleted by a case is sent again. */
  const messageIds: number[] = [];
  const fixtures: { from: Actor; to: string | ((ids: Record<Actor, number>) => string); topic?: string }[] = [
    { from: 'owner', to: 'fuzzed', topic: 'fuzz' },
    { from: 'member', to: 'general', topic: 'fuzz' },
    { from: 'member', to: 'engineering', topic: 'other' },
    { from: 'member', to: (ids) => JSON.stringify([ids.guest]) },
  ];
  /** Channels by the name they were created with: a case may rename them. */
  const channelIdOf = new Map<string, number>();
  /** Sends a fixture message; undefined if a case made that impossible (e.g. took away the right to post). */
  const send = async (f: (typeof fixtures)[number]) => {
    const to = typeof f.to === 'function' ? f.to(userIds) : String(channelIdOf.get(f.to) ?? f.to);
    const type = typeof f.to === 'function' ? 'direct' : 'stream';
    const sent = await clients[f.from].post('/messages', { type, to, ...(f.topic ? { topic: f.topic } : {}), content: `a fuzz target from ${f.from}` });
    return sent.body.result === 'success' ? (sent.body.id as number) : undefined;
  };
  let ctx: FuzzContext;
  let credentials: Credentials;

  beforeAll(async () => {
    process.stdout.write(`fuzz: seed ${SEED}, ${RUNS} runs per route (replay with FUZZ_SEED=${SEED})\n`);
    const dataDir = tempDataDir();
    server = await startEmbedded(dataDir);
    port = Number(new URL(server.api).port);
    facts = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    for (const actor of Object.keys(EMAILS) as Actor[]) {
      const res = await fetch(`${server.api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: EMAILS[actor] }) });
      const body = (await res.json()) as { api_key: string; user_id: number };
      clients[actor] = new Client(server.api, EMAILS[actor], body.api_key);
      userIds[actor] = body.user_id;
    }
    const { owner, member } = clients;
    await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'fuzzed' }]), principals: JSON.stringify([userIds.member]) });
    for (const fixture of fixtures) {
      const id = await send(fixture);
      expect(id).toBeDefined();
      messageIds.push(id!);
      if (typeof fixture.to === 'string') {
        const channelId = (await clients[fixture.from].get(`/messages/${id}`)).body.message.stream_id;
        expect(typeof channelId).toBe('number');
        channelIds.push(channelId);
        channelIdOf.set(fixture.to, channelId);
      }
    }
    const queue = await member.post('/register', { event_types: JSON.stringify(['message']) });
    expect(typeof queue.body.queue_id).toBe('string');
    ctx = {
      ids: [...new Set([...Object.values(userIds), ...channelIds, ...messageIds])],
      idsByKind: { user: Object.values(userIds), channel: channelIds, message: messageIds },
      queueIds: [queue.body.queue_id],
      channelNames: ['general', 'engineering', 'leadership', 'fuzzed'],
      emails: Object.values(EMAILS),
    };
    credentials = {
      basic: (actor, wrongKey) => {
        const key = wrongKey ? 'x'.repeat(clients[actor].apiKey!.length) : clients[actor].apiKey!;
        return `Basic ${Buffer.from(`${EMAILS[actor]}:${key}`).toString('base64')}`;
      },
    };
  }, 60_000);

  afterAll(async () => {
    if (STATS) writeFileSync(STATS, [...stats].sort().map(([k, n]) => `${String(n).padStart(5)} ${k}\n`).join(''));
    facts?.close();
    await server?.stop();
  });

  /**
   * What earlier cases may have undone that later ones need to get past the permission
   * checks: deactivated callers, changed roles, regenerated bot keys, archived channels.
   * The owner is the only one and cannot be deactivated, so it restores the others; a case
   * may have made another caller an owner who then demoted the first, so whoever owns now
   * restores the roles.
   */
  async function restore(): Promise<void> {
    for (const actor of Object.keys(EMAILS) as Actor[]) {
      const res = await fetch(`${server.api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: EMAILS[actor] }) });
      const body = (await res.json()) as { api_key?: string };
      if (body.api_key) clients[actor] = new Client(server.api, EMAILS[actor], body.api_key);
    }
    const owners: Actor[] = [];
    for (const actor of Object.keys(EMAILS) as Actor[]) if ((await clients[actor].get('/users/me')).body.role === 100) owners.push(actor);
    const restorer = clients[owners[0] ?? 'owner'];
    for (const actor of Object.keys(EMAILS) as Actor[]) {
      await restorer.post(`/users/${userIds[actor]}/reactivate`);
    }
    for (const actor of ['admin', 'member', 'guest', 'bot', 'owner'] as const) {
      const now = (await restorer.get(`/users/${userIds[actor]}`)).body.user?.role;
      // A guest becomes an administrator by way of member.
      if (now === 600 && ROLE_OF[actor] <= 200) await restorer.request('PATCH', `/users/${userIds[actor]}`, { role: 400 }, { query: false });
      await restorer.request('PATCH', `/users/${userIds[actor]}`, { role: ROLE_OF[actor] }, { query: false });
    }
    for (const id of channelIds) await clients.owner.request('PATCH', `/streams/${id}`, { is_archived: 'false' });
    for (const [i, fixture] of fixtures.entries()) {
      const found = await clients[fixture.from].get(`/messages/${messageIds[i]}`);
      if (found.body.result !== 'success') messageIds[i] = (await send(fixture)) ?? messageIds[i]!;
    }
    ctx.ids = [...new Set([...Object.values(userIds), ...channelIds, ...messageIds])];
  }

  beforeEach(() => restore());

  const position = () => (facts.prepare('SELECT coalesce(max(position), 0) AS p FROM facts').get() as { p: number }).p;

  /** Sends one case and returns what is wrong with the reply, or undefined. */
  async function check(c: FuzzCase, longPoll: boolean): Promise<string | undefined> {
    const before = position();
    let reply: RawReply;
    try {
      reply = await rawRequest(port, toRawRequest(c, credentials, { longPoll, queueIds: ctx.queueIds }));
    } catch (err) {
      return `no reply: ${(err as Error).message}`;
    }
    if (STATS) {
      const key = `${c.tame ? 'tame' : 'wild'} ${c.method} ${c.path.replace(/\/-?\d+/g, '/N')} ${reply.status} ${(/"msg":"([^"]{0,80})/.exec(reply.body.toString()) ?? [])[1] ?? ''}`.slice(0, 160);
      stats.set(key, (stats.get(key) ?? 0) + 1);
    }
    if (process.env.FUZZ_DEBUG && reply.body.toString().includes(process.env.FUZZ_DEBUG)) process.stdout.write(`DEBUG ${JSON.stringify(c).slice(0, 700)}\n`);
    const problem = envelopeProblem(reply) ?? sentButMissing(c, reply);
    if (problem) return problem;
    if (reply.status >= 400) {
      const after = position();
      if (after !== before) return `refused with ${reply.status} (${reply.body.toString().slice(0, 200)}) yet stored ${after - before} fact(s)`;
      if (reply.body.toString().includes('USER_DEACTIVATED')) await restore();
    }
    return undefined;
  }

  async function assertProperty(title: string, seed: number, arbitrary: fc.Arbitrary<FuzzCase>, longPoll: boolean): Promise<void> {
    try {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (c) => {
          const problem = await check(c, longPoll);
          if (problem) throw new Error(problem);
        }),
        { seed, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS },
      );
    } catch (err) {
      (err as Error).message = `${title}: replay with FUZZ_SEED=${SEED} (property seed ${seed})\n${(err as Error).message}`;
      throw err;
    }
  }

  for (const [index, route] of fuzzRoutes.entries()) {
    it(`${route.method} ${route.path}`, async () => {
      await assertProperty(`${route.method} ${route.path}`, SEED + index, fuzzCase(route, ctx), route.endpoint.http.longPoll ?? false);
    }, 60_000);
  }

  // Cases of one route leave state the next route's cases meet (a message edited, a
  // channel renamed, a queue deleted): here the routes take turns, in random order.
  it('every route, interleaved', async () => {
    const anyCase = fc.constantFrom(...fuzzRoutes).chain((route) => fuzzCase(route, ctx));
    // Any case may carry a real queue id to the long-poll; each then asks not to block.
    await assertProperty('interleaved', SEED + fuzzRoutes.length + 1, anyCase, true);
  }, 60_000);

  it('paths that match no route, with any method', async () => {
    const anyRoute = fc.constantFrom(...fuzzRoutes).chain((route) => fuzzCase(route, ctx));
    const strayPath = fc.oneof(
      fc.constantFrom('', '/', '//', '/api', '/v1', '/users', '/users/me/x', '/messages/1/2/3', '/%', '/%zz', '/ünïcødé', '/..%2f..%2fetc%2fpasswd', `/${'a'.repeat(5000)}`),
      fc.webPath(),
      hostileValue.map((v) => `/${percentEncode(v).slice(0, 3000)}`),
    );
    const arbitrary = fc.tuple(anyRoute, strayPath, fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS')).map(([c, path, method]) => ({ ...c, path, method }));
    await assertProperty('stray paths', SEED + fuzzRoutes.length, arbitrary, false);
  }, 60_000);

  it('still serves every caller normally afterwards', async () => {
    await restore();
    for (const actor of Object.keys(clients) as Actor[]) {
      const res = await clients[actor].get('/users/me');
      expect([res.status, res.body.result]).toEqual([200, 'success']);
    }
    const res = await clients.member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
    expect(res.body.result).toBe('success');
  });
});
