/**
 * What the HTTP suites share beside the harness (which starts servers and speaks HTTP):
 * the development users logged in with their ids, polling an event queue, waiting for
 * another service to catch up with a write, checking refusals, and reading the
 * development outbox. Each suite keeps only what is its own.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readOutbox, type OutboxEntry } from '@teamchat/platform';
import { Client, tempDataDir, type RunningServer } from './harness';

export type Reply = Awaited<ReturnType<Client['request']>>;

/** A seeded development user, by its address's local part ('bot' is the echo bot too). */
export type DevUser = 'owner' | 'admin' | 'moderator' | 'member' | 'member2' | 'guest' | 'echo-bot' | 'bot';

export const devEmail = (user: DevUser) => `${user === 'bot' ? 'echo-bot' : user}@example.com`;

/** Every seeded user, the echo bot as 'bot', and their addresses. */
export const DEV_USERS = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'bot'] as const;
export type SeededUser = (typeof DEV_USERS)[number];
export const DEV_EMAILS = Object.fromEntries(DEV_USERS.map((user) => [user, devEmail(user)])) as Record<SeededUser, string>;

export interface LoggedIn<U extends DevUser> {
  clients: Record<U, Client>;
  ids: Record<U, number>;
}

/** Logs development users in (POST /dev_fetch_api_key), each with their user id. */
export async function logIn<U extends DevUser>(api: string, users: readonly U[]): Promise<LoggedIn<U>> {
  const clients = {} as Record<U, Client>;
  const ids = {} as Record<U, number>;
  await Promise.all(
    users.map(async (user) => {
      clients[user] = await Client.login(api, devEmail(user));
      ids[user] = (await clients[user].get('/users/me')).body.user_id;
    }),
  );
  return { clients, ids };
}

export interface SuiteServer<S extends RunningServer, U extends DevUser> extends LoggedIn<U> {
  /** The running server, once the suite's tests run. */
  readonly server: S;
}

/**
 * An HTTP suite's set-up, called in its `describe`: before its tests the server starts and
 * `users` log in; after them the server stops. `clients` and `ids` are filled in place, so
 * they may be destructured at once; `server` is read inside tests and hooks.
 */
export function suiteServer<S extends RunningServer, U extends DevUser>(start: () => Promise<S>, users: readonly U[], timeout = 60_000): SuiteServer<S, U> {
  let server: S | undefined;
  const clients = {} as Record<U, Client>;
  const ids = {} as Record<U, number>;
  beforeAll(async () => {
    server = await start();
    const logged = await logIn(server.api, users);
    Object.assign(clients, logged.clients);
    Object.assign(ids, logged.ids);
  }, timeout);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error('the suite has not started its server');
      return server;
    },
    clients,
    ids,
  };
}

/** PATCH with the parameters in the body, as clients send them. */
export const patch = (client: Client, path: string, params: Record<string, unknown>) => client.request('PATCH', path, params, { query: false });
export const del = (client: Client, path: string, params: Record<string, unknown> = {}) => client.request('DELETE', path, params);
/** Subscribes to channels by name (creating the new ones). */
export const subscribe = (client: Client, names: string[], params: Record<string, unknown> = {}) =>
  client.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), ...params });
export const unsubscribe = (client: Client, names: string[], params: Record<string, unknown> = {}) =>
  client.request('DELETE', '/users/me/subscriptions', { subscriptions: names, ...params });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PollOptions {
  /** The last event id already seen (-1: every event the queue holds). */
  after?: number;
  /** How long to wait for the condition (5 s by default). */
  ms?: number;
  /** The pause between two polls (50 ms by default). */
  pauseMs?: number;
}

/**
 * A queue's events once `done` holds for them, or what it holds when the time is up: the
 * events service may lag a write by a moment. Heartbeats are left out (non-blocking polls
 * make none, but a queue that a blocking poll used holds them).
 */
export async function eventsUntil(client: Client, queue_id: string, done: (events: any[]) => boolean, options: PollOptions = {}): Promise<any[]> {
  const deadline = Date.now() + (options.ms ?? 5000);
  for (;;) {
    const { events } = (await client.get('/events', { queue_id, last_event_id: options.after ?? -1, dont_block: true })).body;
    const shown = (events as any[]).filter((e) => e.type !== 'heartbeat');
    if (done(shown) || Date.now() > deadline) return shown;
    await sleep(options.pauseMs ?? 50);
  }
}

/** What `probe` finds once it finds something (polled every 100 ms), or a failure naming `what` after `ms`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Read-your-writes holds per client: another user's write reaches the other services a
 * moment after it was acknowledged. Repeats a request while its answer is the stale one.
 */
export async function onceCaughtUp(request: () => Promise<Reply>, stale: (reply: Reply) => boolean): Promise<Reply> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const reply = await request();
    if (!stale(reply) || Date.now() > deadline) return reply;
    await sleep(50);
  }
}

export interface Refusal {
  /** BAD_REQUEST by default. */
  code?: string | undefined;
  /** 400 by default. */
  status?: number | undefined;
  /** The message exactly, or a pattern it matches; absent: any message. */
  msg?: string | RegExp | undefined;
}

/** An error envelope with this code, status and message. */
export function expectRefused(reply: Reply, { code = 'BAD_REQUEST', status = 400, msg }: Refusal = {}): void {
  expect(reply.body).toMatchObject({ result: 'error', code });
  if (msg === undefined) expect(typeof reply.body.msg).toBe('string');
  else if (typeof msg === 'string') expect(reply.body.msg).toBe(msg);
  else expect(reply.body.msg).toMatch(msg);
  expect(reply.status).toBe(status);
}

/** Refused as `expected` says, and `state()` reads as before. */
export async function expectRefusedUnchanged(request: () => Promise<Reply>, expected: Refusal, state: () => Promise<unknown>): Promise<void> {
  const before = await state();
  expectRefused(await request(), expected);
  expect(await state()).toEqual(before);
}

/** Makes a data directory for each call, all removed after the test file's tests. */
export function scratchDataDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return () => {
    const dir = tempDataDir();
    dirs.push(dir);
    return dir;
  };
}

/** Drops every read model of a stopped server's data directory, keeping its event store: the next start rebuilds them. */
export function dropReadModels(dataDir: string): void {
  for (const file of readdirSync(dataDir).filter((f) => f.includes('read-models'))) rmSync(join(dataDir, file));
}

/** An authorization matrix's row: an operation, how a user attempts it, and who may. */
export type MatrixRow<W extends string> = [operation: string, attempt: (who: W) => Promise<Reply>, allowed: readonly W[]];

/** One test per operation and user: the allowed succeed, the others are refused with BAD_REQUEST. */
export function authorizationMatrix<W extends string>(matrix: readonly MatrixRow<W>[], users: readonly W[]): void {
  it.each(matrix.flatMap(([operation, attempt, allowed]) => users.map((who) => [operation, who, allowed.includes(who), attempt] as const)))(
    '%s: %s → allowed %s',
    async (_, who, allowed, attempt) => {
      const res = await attempt(who);
      expect(res.body.result).toBe(allowed ? 'success' : 'error');
      if (!allowed) expect(res.body.code).toBe('BAD_REQUEST');
    },
  );
}

/** The development outbox of a server's data directory (readOutbox's), oldest first. */
export async function mailOf(dataDir: string): Promise<OutboxEntry[]> {
  return (await readOutbox(join(dataDir, 'outbox'), Number.POSITIVE_INFINITY)).reverse();
}

/** The invitation link last mailed to `email`, as mailed (on the server's configured origin). */
export async function invitationLink(dataDir: string, email: string): Promise<string> {
  const mail = (await mailOf(dataDir)).filter((m) => m.to === email && m.text.includes('/join/')).at(-1);
  if (!mail) throw new Error(`no invitation mailed to ${email}`);
  return /(https?:\/\/\S+\/join\/\S+\/)/.exec(mail.text)![1]!;
}

/** The same address on another origin (the server's own, where the test reaches it). */
export const onOrigin = (link: string, origin: string) => link.replace(/^https?:\/\/[^/]+/, origin);
