import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Actor, ClientEvent } from '@teamchat/contracts';
import { SqliteReadModelStore, type EventQueueSettings } from '@teamchat/platform';
import { IDS_PER_POSITION } from '../src/domain/event-queue';
import type { Delivery } from '../src/projections/fan-out';
import { QueueDescriptors } from '../src/queries/queue-descriptors';
import { QueueRegistry } from '../src/queries/queues';

const actor = (user_id: number): Actor => ({ user_id, email: `u${user_id}@example.com`, full_name: 'U', role: 400, is_bot: false, client: 'test' });
const alice = actor(4);
const bob = actor(5);
const id = (position: number, k = 0) => position * IDS_PER_POSITION + k;

const message = (n: number) => ({ type: 'message', n }) as unknown as ClientEvent;
const to = (user_ids: number[], ...events: ClientEvent[]): Delivery[] => events.map((event) => ({ user_ids, eventFor: () => event }));

/** A registry over a descriptor store, with the store position it has applied. */
class Service {
  position = 0;
  readonly registry: QueueRegistry;
  constructor(
    readonly descriptors: QueueDescriptors,
    settings: Partial<EventQueueSettings> = {},
  ) {
    this.registry = new QueueRegistry({
      heartbeatSeconds: 0.05,
      settings: { maxEvents: 100, maxPerUser: 10, sweepMs: 60_000, ...settings },
      checkpoint: () => this.position,
      descriptors,
    });
  }
  /** Stores a fact at the next position, with these deliveries. */
  fact(deliveries: Delivery[]): number {
    this.position++;
    for (const delivery of deliveries) this.registry.deliver(delivery, this.position);
    return this.position;
  }
}

const registries: QueueRegistry[] = [];
afterEach(() => registries.splice(0).forEach((r) => r.close()));

function service(store = SqliteReadModelStore.open(':memory:'), settings: Partial<EventQueueSettings> = {}) {
  const s = new Service(new QueueDescriptors(store), settings);
  registries.push(s.registry);
  return s;
}

const poll = (s: Service, who: Actor, queue_id: string, last_event_id = -1, dont_block = true) =>
  s.registry.getEvents(who, { queue_id, last_event_id, dont_block });

describe('QueueRegistry', () => {
  it('gives a queue only the facts stored after it was registered', async () => {
    const s = service();
    s.fact(to([4], message(1)));
    const { queue_id } = await s.registry.register(alice, {});
    const p = s.fact(to([4, 5], message(2), message(3)));
    expect((await poll(s, alice, queue_id)).events).toEqual([
      { type: 'message', n: 2, id: id(p, 0) },
      { type: 'message', n: 3, id: id(p, 1) },
    ]);
  });

  it('registers from GET /events without a queue id, and refuses unknown, foreign and bad last_event_id polls', async () => {
    const s = service();
    const fresh = await s.registry.getEvents(alice, { event_types: ['message'], dont_block: true, last_event_id: 12345 });
    expect(fresh.events).toEqual([]);
    s.fact(to([4], message(1)));
    await expect(poll(s, bob, fresh.queue_id)).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', extra: { queue_id: fresh.queue_id } });
    await expect(poll(s, alice, 'nope')).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
    await expect(poll(s, alice, fresh.queue_id, id(s.position + 1))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    // Nothing was acknowledged by the refused poll.
    expect((await poll(s, alice, fresh.queue_id)).events).toHaveLength(1);
  });

  it('writes acknowledgements now and then, not per poll, and every pending one at close', async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const s = service(store);
    const { queue_id } = await s.registry.register(alice, { event_types: ['message'] });
    const stored = async () => {
      await store.batch(async () => undefined);
      return (await s.descriptors.all()).find((d) => d._id === queue_id)!;
    };
    const ids = [1, 2, 3].map((n) => id(s.fact(to([4], message(n)))));
    await poll(s, alice, queue_id, ids[0]);
    await poll(s, alice, queue_id, ids[1]);
    // Polls a moment apart: the descriptor still has the registration's acknowledgement.
    expect((await stored()).acked).toBe(-1);
    s.registry.close();
    expect((await stored()).acked).toBe(ids[1]);
  });

  it('gives an ephemeral event (no fact) an id between the facts around it, leaving their ids as a replay gives them', async () => {
    const s = service();
    const { queue_id } = await s.registry.register(alice, {});
    const p = s.fact(to([4], message(1)));
    s.registry.deliver({ user_ids: [4], eventFor: () => ({ type: 'typing', n: 2 }) as unknown as ClientEvent });
    const q = s.fact(to([4], message(3)));
    expect((await poll(s, alice, queue_id)).events).toEqual([
      { type: 'message', n: 1, id: id(p) },
      { type: 'typing', n: 2, id: id(p, 1) },
      { type: 'message', n: 3, id: id(q) },
    ]);
  });

  it('releases a held ephemeral event after the held facts, with an id above theirs', async () => {
    const s = service();
    const { queue_id } = await s.registry.register(alice, {});
    s.registry.holdForState(queue_id);
    const p = s.fact(to([4], message(1)));
    s.registry.deliver({ user_ids: [4], eventFor: () => ({ type: 'typing', n: 2 }) as unknown as ClientEvent });
    const q = s.fact(to([4], message(3)));
    s.registry.releaseWithState(queue_id, new Map());
    const { events } = await poll(s, alice, queue_id);
    expect(events).toEqual([
      { type: 'message', n: 1, id: id(p) },
      { type: 'message', n: 3, id: id(q) },
      { type: 'typing', n: 2, id: id(q, 1) },
    ]);
  });

  it('answers a blocked poll with a heartbeat above what the client acknowledged', async () => {
    const s = service();
    const { queue_id } = await s.registry.register(alice, {});
    const p = s.fact(to([4], message(1)));
    const { events } = await poll(s, alice, queue_id, id(p), false);
    expect(events).toEqual([{ type: 'heartbeat', id: id(p, 1) }]);
    const next = await poll(s, alice, queue_id, id(p, 1), false);
    expect(next.events).toEqual([{ type: 'heartbeat', id: id(p, 2) }]);
  });

  it('expires a queue idle past its lifespan, not the others', async () => {
    const s = service();
    const short = (await s.registry.register(alice, { queue_lifespan_secs: 1 })).queue_id;
    const long = (await s.registry.register(alice, {})).queue_id;
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 1500;
      await expect(poll(s, alice, short)).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
      expect((await poll(s, alice, long)).events).toEqual([]);
    } finally {
      Date.now = realNow;
    }
  });

  it('drops a queue past its event limit, and a user past the queue limit loses the least recently polled', async () => {
    const s = service(undefined, { maxEvents: 2, maxPerUser: 2 });
    const a = (await s.registry.register(alice, {})).queue_id;
    s.fact(to([4], message(1)));
    s.fact(to([4], message(2)));
    expect((await poll(s, alice, a)).events).toHaveLength(2);
    s.fact(to([4], message(3)));
    await expect(poll(s, alice, a)).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });

    const b = (await s.registry.register(bob, {})).queue_id;
    const c = (await s.registry.register(bob, {})).queue_id;
    await new Promise((r) => setTimeout(r, 5));
    await poll(s, bob, b);
    await s.registry.register(bob, {});
    await expect(poll(s, bob, c)).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
    expect((await poll(s, bob, b)).events).toEqual([]);
  });

  describe('after a restart', () => {
    it('rebuilds each queue from its descriptor: every unacknowledged event, same ids, none twice', async () => {
      const store = SqliteReadModelStore.open(':memory:');
      const before = service(store);
      const history: Delivery[][] = [to([5], message(0))];
      before.fact(history[0]!);
      const q = (await before.registry.register(alice, { event_types: ['message'] })).queue_id;
      const other = (await before.registry.register(alice, {})).queue_id;
      await before.registry.delete(alice, other);
      for (const deliveries of [to([4], message(1)), to([4, 5], message(2), message(3)), to([5], message(4)), to([4], message(5))]) {
        history.push(deliveries);
        before.fact(deliveries);
      }
      const all = (await poll(before, alice, q)).events;
      expect(all.map((e: any) => e.n)).toEqual([1, 2, 3, 5]);
      const acked = all[1]!.id;
      expect((await poll(before, alice, q, acked)).events).toEqual(all.slice(2));
      before.registry.close();
      await store.batch(async () => undefined);

      // The events service starts again: the projector replays after what restore says.
      const after = service(store);
      const from = await after.registry.restore();
      expect(after.registry.size).toBe(1);
      expect(from).toBe(Math.floor(acked / IDS_PER_POSITION) - 1);
      after.position = from!;
      for (const deliveries of history.slice(from)) after.fact(deliveries);
      expect((await poll(after, alice, q, acked)).events).toEqual(all.slice(2));
      await expect(poll(after, alice, other)).rejects.toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
      const p = after.fact(to([4], message(6)));
      expect((await poll(after, alice, q, all[3]!.id)).events).toEqual([{ type: 'message', n: 6, id: id(p) }]);
    });

    it("leaves out again what the queue's initial state held, with the same ids for the rest", async () => {
      const store = SqliteReadModelStore.open(':memory:');
      const before = service(store);
      const { queue_id } = await before.registry.register(alice, {});
      before.registry.holdForState(queue_id);
      const history = [to([4], message(1)), to([4], { type: 'stream', n: 2 } as unknown as ClientEvent), to([4], message(3))];
      for (const deliveries of history) before.fact(deliveries);
      // The state held the messages up to position 2 (message 1), and no stream section.
      before.registry.releaseWithState(queue_id, new Map([['message', 2]]));
      const seen = (await poll(before, alice, queue_id)).events;
      expect(seen.map((e: any) => e.n)).toEqual([2, 3]);
      before.registry.close();
      await store.batch(async () => undefined);

      const after = service(store);
      const from = await after.registry.restore();
      after.position = from!;
      for (const deliveries of history.slice(from)) after.fact(deliveries);
      expect((await poll(after, alice, queue_id)).events).toEqual(seen);
    });

    it('answers a deletion once it is committed: a crash right after cannot bring the queue back', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'teamchat-queues-'));
      const file = join(dir, 'events.sqlite');
      // A window no test waits out: only durable() commits.
      const store = SqliteReadModelStore.open(file, { commitWithinMs: 60_000 });
      try {
        const before = service(store);
        const kept = (await before.registry.register(alice, {})).queue_id;
        const gone = (await before.registry.register(alice, {})).queue_id;
        /** The descriptors a process started after a crash now would find: what is committed. */
        const afterCrash = async () => {
          const other = SqliteReadModelStore.open(file);
          try {
            return (await new QueueDescriptors(other).all()).map((d) => d._id).sort();
          } finally {
            await other.close();
          }
        };
        expect(await afterCrash()).toEqual([]);
        await store.durable();
        expect(await afterCrash()).toEqual([kept, gone].sort());
        await before.registry.delete(alice, gone);
        expect(await afterCrash()).toEqual([kept]);
        before.registry.close();
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('forgets descriptors of queues that expired meanwhile', async () => {
      const store = SqliteReadModelStore.open(':memory:');
      const before = service(store);
      await before.registry.register(alice, { queue_lifespan_secs: 1 });
      await before.registry.register(alice, {});
      before.registry.close();
      const realNow = Date.now;
      try {
        Date.now = () => realNow() + 1500;
        const after = service(store);
        expect(await after.registry.restore()).toBe(0);
        expect(after.registry.size).toBe(1);
        expect(await after.descriptors.all()).toHaveLength(1);
      } finally {
        Date.now = realNow;
      }
    });
  });
});
