/**
 * GET /events answered before Fastify (src/http/events-fast-path.ts): the same replies as
 * the route gives, and every request the fast path does not take exactly as the route
 * would still reaching the route.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, endpoints, instanceSubject, type Actor } from '@teamchat/contracts';
import { DirectoryBlobStore, InProcessBus, loadHttpSettings, loadUploadSettings, serveContract } from '@teamchat/platform';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildGateway } from '../src/server';

const log = pino({ level: 'silent' });
const alice: Omit<Actor, 'client'> = { user_id: 7, email: 'alice@example.com', full_name: 'Alice', role: 400, is_bot: false };
const AUTH = `Basic ${Buffer.from('alice@example.com:key').toString('base64')}`;

interface Poll {
  actor: Actor;
  params: Record<string, unknown>;
}

async function gateway(env: NodeJS.ProcessEnv = {}) {
  const bus = new InProcessBus();
  const polls: Poll[] = [];
  await serveContract({ bus, log }, endpoints.accounts.authenticate, async (params) => {
    if (params.api_key !== 'key') throw new ApiError('UNAUTHORIZED', 'Invalid API key', 401);
    // Accounts answers at a position: the gateway keeps only such answers.
    return { value: { actor: { ...alice, client: params.client } }, position: 1 };
  });
  const answer = async (params: Record<string, unknown>, actor: Actor) => {
    polls.push({ actor, params });
    if (params.queue_id === 'gone') throw new ApiError('BAD_EVENT_QUEUE_ID', 'Bad event queue ID: gone', 400, { queue_id: 'gone' });
    return { value: { queue_id: String(params.queue_id ?? 'new') }, json: `{"events":[{"id":${Number(params.last_event_id ?? -1) + 1},"type":"heartbeat"}]}` };
  };
  await serveContract({ bus, log }, endpoints.events.getEvents, (params, { actor }) => answer(params, actor));
  // The queues of an events instance named `inst1` (queue ids `inst1:…`).
  await serveContract({ bus, log }, { ...endpoints.events.getEvents, subject: instanceSubject(endpoints.events.getEvents.subject, 'inst1') }, (params, { actor }) =>
    answer({ ...params, instance: 'inst1' }, actor),
  );
  const app: FastifyInstance = await buildGateway({
    bus,
    log,
    heartbeatSeconds: 1,
    http: loadHttpSettings(env, 'development', 1),
    blobs: new DirectoryBlobStore(join(tmpdir(), 'teamchat-fast-path-test')),
    uploads: loadUploadSettings({}),
  });
  /** Requests Fastify itself saw. */
  let routed = 0;
  app.addHook('onRequest', async () => {
    routed++;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const request = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${url}/api/v1${path}`, { ...init, headers: { authorization: AUTH, 'user-agent': 'ZulipMobile/27.1', ...init.headers } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    request,
    polls,
    routed: () => routed,
    async close() {
      await app.close();
      await bus.close();
    },
  };
}

describe('GET /events before Fastify', () => {
  it('answers a poll with known credentials itself, as the route answers it', async () => {
    const g = await gateway();
    // The first request of a key authenticates through the route.
    const first = await g.request('/events?queue_id=q1&last_event_id=4');
    expect(g.routed()).toBe(1);
    const second = await g.request('/events?queue_id=q1&last_event_id=4');
    expect(g.routed()).toBe(1);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body).toEqual({ result: 'success', msg: '', queue_id: 'q1', events: [{ id: 5, type: 'heartbeat' }] });
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // The same parameters and actor reach the service, client name included.
    expect(g.polls[1]).toEqual(g.polls[0]);
    expect(g.polls[1]!.actor.client).toBe('ZulipMobile');
    expect(g.polls[1]!.params).toEqual({ queue_id: 'q1', last_event_id: 4 });
    // Percent-escaped JSON (a registration through GET /events) is read as the route reads it.
    const registered = await g.request(`/events?event_types=${encodeURIComponent('["message"]')}&dont_block=true`);
    expect(registered.body.queue_id).toBe('new');
    expect(g.polls.at(-1)!.params).toEqual({ event_types: ['message'], dont_block: true });
    expect(g.routed()).toBe(1);
    await g.close();
  });

  it('gives a service refusal the route’s envelope, and routes a queue to the instance its id names', async () => {
    const g = await gateway();
    await g.request('/events?queue_id=q1');
    const before = g.routed();
    const gone = await g.request('/events?queue_id=gone&last_event_id=1');
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual({ result: 'error', msg: 'Bad event queue ID: gone', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'gone' });
    const routedToInstance = await g.request(`/events?queue_id=${encodeURIComponent('inst1:abc')}&dont_block=true`);
    expect(routedToInstance.body.queue_id).toBe('inst1:abc');
    expect(g.polls.at(-1)!.params).toEqual({ queue_id: 'inst1:abc', dont_block: true, instance: 'inst1' });
    // An instance nobody serves: its queue is gone.
    const lost = await g.request('/events?queue_id=inst2:abc');
    expect(lost.status).toBe(400);
    expect(lost.body).toEqual({ result: 'error', msg: 'Bad event queue ID: inst2:abc', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'inst2:abc' });
    expect(g.routed()).toBe(before);
    await g.close();
  });

  it('leaves to the route what it does not read exactly as the route would', async () => {
    const g = await gateway();
    await g.request('/events?queue_id=q1');
    const cases: [string, (body: Record<string, unknown>, status: number) => void][] = [
      // An unknown parameter is reported as ignored.
      ['/events?queue_id=q1&colour=red', (body) => expect(body.ignored_parameters_unsupported).toEqual(['colour'])],
      // A refused parameter, in the route's words.
      ['/events?queue_id=q1&last_event_id=-2', (body, status) => expect([status, body.code, String(body.msg)]).toEqual([400, 'BAD_REQUEST', expect.stringContaining("'last_event_id'")])],
      // A repeated key, a `+`, unescaped JSON: the route's parser decides.
      ['/events?queue_id=q1&queue_id=q2', (body) => expect(body.queue_id).toBe('q2')],
      ['/events?queue_id=q+1', (body) => expect(body.queue_id).toBe('q 1')],
      ['/events?event_types=["message"]', (body) => expect(body.queue_id).toBe('new')],
      // A trailing slash is another path.
      ['/events/?queue_id=q1', (_body, status) => expect(status).toBe(404)],
    ];
    let expected = g.routed();
    for (const [path, check] of cases) {
      const { body, status } = await g.request(path);
      check(body, status);
      expect(g.routed()).toBe(++expected);
    }
    // Other methods, and unknown credentials (answered 401 by the route).
    await g.request('/events?queue_id=q1', { method: 'POST' });
    expect(g.routed()).toBe(++expected);
    const stranger = await g.request('/events?queue_id=q1', { headers: { authorization: `Basic ${Buffer.from('alice@example.com:nope').toString('base64')}` } });
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    expect(g.routed()).toBe(++expected);
    await g.close();
  });

  it('with rate limits on, spends the user’s API budget as the route does, and refuses past it', async () => {
    const g = await gateway({ TEAMCHAT_RATE_LIMITS: 'on', TEAMCHAT_RATE_LIMIT_API: '3/60' });
    // The first request of a key authenticates through the route (and spends one).
    const first = await g.request('/events?queue_id=q1');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    const fast = await g.request('/events?queue_id=q1');
    expect(g.routed()).toBe(1);
    expect(fast.status).toBe(200);
    expect(fast.headers.get('x-ratelimit-limit')).toBe('3');
    expect(fast.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(Number(fast.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect((await g.request('/events?queue_id=q1')).headers.get('x-ratelimit-remaining')).toBe('0');
    const polls = g.polls.length;
    const refused = await g.request('/events?queue_id=q1');
    expect(g.routed()).toBe(1);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A refused poll reaches no queue.
    expect(g.polls.length).toBe(polls);
    // The route's refusal for the same budget is the same.
    const viaRoute = await g.request('/events?queue_id=q1&x=+');
    expect({ status: viaRoute.status, code: viaRoute.body.code }).toEqual({ status: 429, code: 'RATE_LIMIT_HIT' });
    await g.close();
  });
});
