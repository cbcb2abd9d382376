/**
 * Event queues over HTTP, in both modes: GET /events registering a queue, heartbeats,
 * acknowledgements and their bad values, lifespans, the memory bounds, and queues that
 * survive a restart of the events service with every unacknowledged event, same ids,
 * none twice.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export interface QueuesServer extends RunningServer {
  /** Stops the events service (or the whole embedded server) and starts it again on the same data; resolves with the API's URL. */
  restartEvents(how: 'stop' | 'kill'): Promise<string>;
}

/** Small bounds, so that the suite can reach them. */
export const QUEUES_SUITE_ENV = {
  TEAMCHAT_QUEUE_MAX_EVENTS: '10',
  TEAMCHAT_QUEUES_PER_USER: '4',
  TEAMCHAT_QUEUE_SWEEP_SECONDS: '1',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function queuesSuite(mode: string, start: (env: Record<string, string>) => Promise<QueuesServer>) {
  describe(`event queues (${mode})`, () => {
    const suite = suiteServer(() => start(QUEUES_SUITE_ENV), ['member', 'member2', 'owner', 'admin', 'moderator', 'guest', 'echo-bot']);
    const { clients } = suite;
    const as = (who: string) => clients[who as keyof typeof clients];

    /** After a restart the API has a new address: the same users, keys unchanged, speak to it. */
    function reconnect(api: string) {
      for (const [who, old] of Object.entries(clients)) clients[who as keyof typeof clients] = new Client(api, old.email, old.apiKey);
    }

    const dm = (from: string, to: string, content: string) =>
      as(from).post('/messages', { type: 'direct', to: [`${to}@example.com`], content });
    const poll = async (who: string, queue_id: string, last_event_id: number, dont_block = true) =>
      (await as(who).get('/events', { queue_id, last_event_id, dont_block })).body;
    /**
     * Polls until `count` events wait (or the queue is refused). Another user's write
     * reaches the events service asynchronously (over NATS in the distributed mode): only
     * the caller's own writes are waited for.
     */
    async function pollFor(who: string, queue_id: string, last_event_id: number, count: number) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const body = await poll(who, queue_id, last_event_id);
        if (body.result !== 'success' || body.events.length >= count || Date.now() > deadline) return body;
        await sleep(20);
      }
    }

    it('registers a queue from GET /events without a queue id, with the registration parameters', async () => {
      const first = await as('admin').get('/events', { event_types: ['message'], narrow: [['channel', 'engineering']], apply_markdown: false, dont_block: true });
      expect(first.body).toMatchObject({ result: 'success', events: [], queue_id: expect.any(String) });
      const queue_id = first.body.queue_id as string;
      await as('owner').post('/messages', { type: 'stream', to: 'general', topic: 'q', content: 'outside the narrow' });
      const kept = await as('owner').post('/messages', { type: 'stream', to: 'engineering', topic: 'q', content: 'in the narrow' });
      const { events } = await pollFor('admin', queue_id, -1, 1);
      expect(events.map((e: any) => [e.type, e.message.id, e.message.content])).toEqual([['message', kept.body.id, 'in the narrow']]);

      // Blocking, on a new queue: nothing happens, so a heartbeat comes after the configured period.
      const { event_queue_longpoll_timeout_seconds: timeout } = (await as('admin').post('/register', {})).body;
      const began = Date.now();
      const blocked = await as('admin').get('/events', { event_types: ['message'] });
      const waited = (Date.now() - began) / 1000;
      expect(blocked.body).toMatchObject({ result: 'success', queue_id: expect.any(String), events: [{ type: 'heartbeat' }] });
      expect(waited).toBeGreaterThan(1.5);
      expect(waited).toBeLessThan(timeout);
    }, 15_000);

    it('refuses a malformed registration through GET /events and registers nothing', async () => {
      const refused = await as('admin').get('/events', { narrow: [{ operator: 'search', operand: 'x' }], dont_block: true });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      expect(refused.body).not.toHaveProperty('queue_id');
      const badLifespan = await as('admin').post('/register', { queue_lifespan_secs: -1 });
      expect(badLifespan.status).toBe(400);
      expect(badLifespan.body.msg).toContain("'queue_lifespan_secs'");
    });

    it('refuses a negative or future last_event_id with a clear error and changes nothing', async () => {
      const queue_id = (await as('moderator').post('/register', { event_types: ['message'] })).body.queue_id as string;
      const sent = await dm('member', 'moderator', 'keep me');
      const negative = await as('moderator').get('/events', { queue_id, last_event_id: -2, dont_block: true });
      expect(negative.status).toBe(400);
      expect(negative.body.msg).toContain("'last_event_id'");
      const future = await as('moderator').get('/events', { queue_id, last_event_id: 10 ** 15, dont_block: true });
      expect(future.status).toBe(400);
      expect(future.body).toMatchObject({ code: 'BAD_REQUEST', queue_id });
      expect(future.body.msg).toContain("'last_event_id'");
      // Neither acknowledged anything.
      const { events } = await pollFor('moderator', queue_id, -1, 1);
      expect(events.map((e: any) => e.message.id)).toEqual([sent.body.id]);
      // Acknowledging frees the event; an id the queue gave out is never "from the future".
      expect((await poll('moderator', queue_id, events[0].id)).events).toEqual([]);
      // Someone else's queue is unknown to them, for polling and deleting alike, and stays.
      for (const reply of [await as('member').get('/events', { queue_id, dont_block: true }), await as('member').request('DELETE', '/events', { queue_id })]) {
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id });
      }
      expect((await poll('moderator', queue_id, events[0].id)).events).toEqual([]);
    });

    it('garbage-collects a queue idle past its lifespan (queue_lifespan_secs, lifespan_secs)', async () => {
      const short = (await as('guest').post('/register', { queue_lifespan_secs: 1 })).body.queue_id as string;
      const viaPoll = (await as('guest').get('/events', { lifespan_secs: 1, dont_block: true })).body.queue_id as string;
      const normal = (await as('guest').post('/register', {})).body.queue_id as string;
      await sleep(1300);
      for (const queue_id of [short, viaPoll]) {
        expect((await as('guest').get('/events', { queue_id, dont_block: true })).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id });
      }
      expect((await poll('guest', normal, -1)).result).toBe('success');
    });

    it('drops a queue holding more than the event limit; its client is told to register again', async () => {
      const queue_id = (await as('owner').post('/register', { event_types: ['message'] })).body.queue_id as string;
      for (let i = 0; i < 10; i++) await dm('member2', 'owner', `flood ${i}`);
      const { events } = await pollFor('owner', queue_id, -1, 10);
      expect(events).toHaveLength(10);
      // Acknowledging makes room: only unacknowledged events count.
      expect((await poll('owner', queue_id, events[4].id)).events).toHaveLength(5);
      for (let i = 10; i < 15; i++) await dm('member2', 'owner', `flood ${i}`);
      expect((await pollFor('owner', queue_id, events[4].id, 10)).events).toHaveLength(10);
      await dm('member2', 'owner', 'one too many');
      expect(await pollFor('owner', queue_id, events[4].id, 11)).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID', queue_id });
    });

    it('drops the least recently polled queue of a user past the queue limit', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await as('echo-bot').post('/register', {})).body.queue_id);
      for (const queue_id of ids.slice(1)) expect((await poll('echo-bot', queue_id, -1)).result).toBe('success');
      ids.push((await as('echo-bot').post('/register', {})).body.queue_id);
      expect((await poll('echo-bot', ids[0]!, -1)).code).toBe('BAD_EVENT_QUEUE_ID');
      for (const queue_id of ids.slice(1)) expect((await poll('echo-bot', queue_id, -1)).result).toBe('success');
    });

    it('keeps queues across restarts: every unacknowledged event again, same ids, none twice', async () => {
      const queue_id = (await as('member').post('/register', { event_types: ['message'], apply_markdown: true })).body.queue_id as string;
      const narrowed = (await as('member').post('/register', { event_types: ['message'], narrow: [['channel', 'engineering']] })).body.queue_id as string;
      const deleted = (await as('member').post('/register', {})).body.queue_id as string;
      expect((await as('member').request('DELETE', '/events', { queue_id: deleted })).body.result).toBe('success');
      const expired = (await as('member2').post('/register', { queue_lifespan_secs: 1 })).body.queue_id as string;
      const expiredAt = Date.now() + 1300;

      const sent = [await dm('member2', 'member', 'one'), await dm('member2', 'member', '**two**')];
      await as('admin').post('/messages', { type: 'stream', to: 'engineering', topic: 'restart', content: 'narrowed one' });
      const before = (await pollFor('member', queue_id, -1, 3)).events as any[];
      expect(before.map((e) => e.message.content)).toEqual(['<p>one</p>', '<p><strong>two</strong></p>', '<p>narrowed one</p>']);
      // The first is acknowledged; the others are not yet.
      expect((await poll('member', queue_id, before[0].id)).events).toEqual(before.slice(1));
      sent.push(await dm('member2', 'member', 'three, unseen before the restart'));
      const narrowedBefore = (await pollFor('member', narrowed, -1, 1)).events as any[];
      expect(narrowedBefore.map((e) => e.message.content)).toEqual(['narrowed one']);

      reconnect(await suite.server.restartEvents('stop'));
      const after = (await poll('member', queue_id, before[0].id)).events as any[];
      expect(after.slice(0, 2)).toEqual(before.slice(1));
      expect(after.map((e) => e.message.content)).toEqual(['<p><strong>two</strong></p>', '<p>narrowed one</p>', '<p>three, unseen before the restart</p>']);
      expect(after[2].message.id).toBe(sent[2]!.body.id);
      expect(after[2].id).toBeGreaterThan(after[1].id);
      expect((await poll('member', narrowed, -1)).events).toEqual(narrowedBefore);
      await sleep(expiredAt - Date.now());
      // The deletion was answered once committed: the kill cannot have undone it.
      for (const [which, who, gone] of [['deleted', 'member', deleted], ['expired', 'member2', expired]] as const) {
        expect({ which, ...(await poll(who, gone, -1)) }).toMatchObject({ which, code: 'BAD_EVENT_QUEUE_ID', queue_id: gone });
      }

      // New events after the restart, a heartbeat acknowledged, then a crash.
      const seen = [...before.slice(0, 1), ...after];
      const general = await as('admin').post('/messages', { type: 'stream', to: 'general', topic: 'restart', content: 'not in the narrow' });
      const four = await dm('member2', 'member', 'four');
      const later = (await pollFor('member', queue_id, after[2].id, 2)).events as any[];
      expect(later.map((e) => e.message.id)).toEqual([general.body.id, four.body.id]);
      seen.push(...later);
      const beat = (await poll('member', queue_id, later[1].id, false)).events as any[];
      expect(beat).toEqual([{ type: 'heartbeat', id: expect.any(Number) }]);
      expect(beat[0].id).toBeGreaterThan(later[1].id);
      const five = await dm('member2', 'member', 'five');

      reconnect(await suite.server.restartEvents('kill'));
      const last = (await poll('member', queue_id, beat[0].id)).events as any[];
      expect(last.map((e) => [e.message.id, e.message.content])).toEqual([[five.body.id, '<p>five</p>']]);
      expect(last[0].id).toBeGreaterThan(beat[0].id);
      seen.push(...last);
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      // The narrowed queue still narrows, and a blocking poll is woken by the next event.
      const waiting = as('member').get('/events', { queue_id: narrowed, last_event_id: narrowedBefore[0].id });
      await sleep(200);
      const six = await as('admin').post('/messages', { type: 'stream', to: 'engineering', topic: 'restart', content: 'narrowed two' });
      expect(((await waiting).body.events as any[]).map((e) => e.message.id)).toEqual([six.body.id]);
    }, 60_000);
  });
}
