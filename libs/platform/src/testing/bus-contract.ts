import { isBusError, type Bus, type BusError, type Json } from '../ports/bus';
import { jestGlobals } from './nats-server';

export interface BusUnderTest {
  bus: Bus;
  /** An independent connection to the same bus; the same instance for an in-process bus. */
  second?: Bus;
  cleanup: () => Promise<void>;
}

/**
 * The behaviour every Bus adapter shares, so that code tested on the in-process bus runs
 * unchanged over NATS. `open` is called before each test and must give fresh connections.
 */
export function busContract(name: string, open: () => Promise<BusUnderTest>): void {
  const { describe, it, expect, beforeEach, afterEach } = jestGlobals();

  describe(`Bus contract: ${name}`, () => {
    let bus: Bus;
    let second: Bus;
    let cleanup: () => Promise<void>;
    let prefix: string;
    // Subjects unique per test, so that a test never sees another's traffic on a shared server.
    const subject = (suffix: string) => `${prefix}.${suffix}`;

    beforeEach(async () => {
      const opened = await open();
      bus = opened.bus;
      second = opened.second ?? opened.bus;
      cleanup = opened.cleanup;
      prefix = `contract${Math.random().toString(36).slice(2, 10)}`;
    });

    afterEach(() => cleanup());

    it('round-trips JSON values through request and reply', async () => {
      await second.serve(subject('echo'), async (payload, actual) => ({ payload, subject: actual }));
      const values: Json[] = [
        {
          nested: { list: [1, 'two', null, true, { deep: -1.5e-3 }], empty: {} },
          unicode: 'héllo 🌍 日本語 "quoted" \\ \n\t\u0000',
          zero: 0,
          no: false,
        },
        'a string',
        42,
        null,
        [[], [{}]],
      ];
      for (const payload of values) {
        await expect(bus.request(subject('echo'), payload, 2000)).resolves.toEqual({
          payload,
          subject: subject('echo'),
        });
      }
    });

    it('carries only what JSON carries: Dates become strings, undefined fields vanish', async () => {
      let received: unknown;
      await second.serve(subject('json'), async (payload) => {
        received = payload;
        return { gone: undefined, at: new Date(0) } as unknown as Json;
      });
      const payload = { at: new Date(86_400_000), gone: undefined, kept: [undefined, 1] };
      const reply = await bus.request(subject('json'), payload as unknown as Json, 2000);
      expect(received).toStrictEqual({ at: '1970-01-02T00:00:00.000Z', kept: [null, 1] });
      expect(reply).toStrictEqual({ at: '1970-01-01T00:00:00.000Z' });
    });

    it('copies the payload: changing it after request() does not reach the handler', async () => {
      await second.serve(subject('later'), async (payload) => {
        await delay(20);
        return payload;
      });
      const payload = { list: [1, 2], name: 'original' };
      const reply = bus.request(subject('later'), payload, 2000);
      payload.list.push(3);
      payload.name = 'changed';
      await expect(reply).resolves.toEqual({ list: [1, 2], name: 'original' });
    });

    it('gives every requester its own copy of a reply', async () => {
      const shared = { count: 1 };
      await second.serve(subject('shared'), async () => shared);
      const first = (await bus.request(subject('shared'), null, 2000)) as { count: number };
      first.count = 99;
      await expect(bus.request(subject('shared'), null, 2000)).resolves.toEqual({ count: 1 });
      expect(shared.count).toBe(1);
    });

    it('rejects with NO_RESPONDERS when nobody serves the subject', async () => {
      const err = await rejection(bus.request(subject('nobody'), {}, 1000));
      expect(isBusError(err)).toBe(true);
      expect((err as BusError).code).toBe('NO_RESPONDERS');
    });

    it('rejects with TIMEOUT, distinct from NO_RESPONDERS, when the reply comes too late', async () => {
      // The reply comes long after the request's 50 ms, so that a machine under load (a CI
      // run measured 560 ms) still tells the request's own timer from a wait for the reply.
      await second.serve(subject('slow'), async () => {
        await delay(2000);
        return 'too late';
      });
      const started = Date.now();
      const err = await rejection(bus.request(subject('slow'), {}, 50));
      const elapsed = Date.now() - started;
      expect(isBusError(err)).toBe(true);
      expect((err as BusError).code).toBe('TIMEOUT');
      expect(elapsed).toBeGreaterThanOrEqual(40);
      expect(elapsed).toBeLessThan(1500);
    });

    it('survives a handler that rejects: no reply (TIMEOUT), the error is logged, serving goes on', async () => {
      const logged = await capturingConsoleError(async () => {
        await second.serve(subject('faulty'), async (payload) => {
          if (payload === 'fail') throw new Error('handler bug');
          return 'fine';
        });
        const err = await rejection(bus.request(subject('faulty'), 'fail', 100));
        expect((err as BusError).code).toBe('TIMEOUT');
        await expect(bus.request(subject('faulty'), 'ok', 2000)).resolves.toBe('fine');
      });
      expect(logged.length).toBeGreaterThan(0);
    });

    it('shares requests among the members of a queue group, each answered once', async () => {
      const served = { a: 0, b: 0 };
      await bus.serve(subject('work'), async (n) => {
        served.a++;
        return { by: 'a', n };
      }, 'workers');
      await second.serve(subject('work'), async (n) => {
        served.b++;
        return { by: 'b', n };
      }, 'workers');
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, n) => bus.request(subject('work'), n, 2000)),
      );
      replies.forEach((reply, n) => expect((reply as { n: number }).n).toBe(n));
      await delay(50);
      expect(served.a + served.b).toBe(20);
      expect(served.a).toBeGreaterThan(0);
      expect(served.b).toBeGreaterThan(0);
    });

    it('does not let a slow request hold up a concurrent one on the same server', async () => {
      await second.serve(subject('mixed'), async (payload) => {
        const { id, ms } = payload as { id: string; ms: number };
        await delay(ms);
        return id;
      });
      const finished: string[] = [];
      const slow = bus.request(subject('mixed'), { id: 'slow', ms: 500 }, 2000).then((id) => finished.push(id as string));
      await delay(20);
      const fast = bus.request(subject('mixed'), { id: 'fast', ms: 0 }, 2000).then((id) => finished.push(id as string));
      await Promise.all([slow, fast]);
      expect(finished).toEqual(['fast', 'slow']);
    });

    it('fans a publication out to every plain subscriber, in order, each with its own copy', async () => {
      const first: Json[] = [];
      const other: Json[] = [];
      await bus.subscribe(subject('news'), (payload) => {
        first.push(structuredClone(payload));
        (payload as { n: number }).n = -1;
      });
      await second.subscribe(subject('news'), (payload) => other.push(payload));
      for (let n = 0; n < 3; n++) bus.publish(subject('news'), { n });
      await bus.flush();
      await waitFor(() => first.length === 3 && other.length === 3);
      expect(first).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      expect(other).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    });

    it('gives each publication to one member of a queue group, besides plain subscribers', async () => {
      const members: number[][] = [[], []];
      const plain: number[] = [];
      await bus.subscribe(subject('jobs'), (n) => members[0].push(n as number), 'group');
      await second.subscribe(subject('jobs'), (n) => members[1].push(n as number), 'group');
      await second.subscribe(subject('jobs'), (n) => plain.push(n as number));
      for (let n = 0; n < 40; n++) bus.publish(subject('jobs'), n);
      await bus.flush();
      await waitFor(() => plain.length === 40 && members[0].length + members[1].length === 40);
      await delay(50);
      const all = [...members[0], ...members[1]].sort((x, y) => x - y);
      expect(all).toEqual(Array.from({ length: 40 }, (_, n) => n));
      expect(members[0].length).toBeGreaterThan(0);
      expect(members[1].length).toBeGreaterThan(0);
    });

    it('matches `>` (one or more tokens) and `*` (exactly one token) wildcards', async () => {
      const tail: string[] = [];
      const single: string[] = [];
      await bus.subscribe(subject('w.>'), (_, actual) => tail.push(actual));
      await bus.subscribe(subject('w.*.x'), (_, actual) => single.push(actual));
      for (const suffix of ['w', 'w.a', 'w.a.x', 'w.a.b.x', 'other.a', 'w.end']) second.publish(subject(suffix), null);
      await second.flush();
      await waitFor(() => tail.includes(subject('w.end')));
      expect(tail).toEqual(['w.a', 'w.a.x', 'w.a.b.x', 'w.end'].map(subject));
      expect(single).toEqual([subject('w.a.x')]);
    });

    it('serves a wildcard subject, telling the handler the subject requested', async () => {
      await second.serve(subject('svc.>'), async (_, actual) => actual);
      await expect(bus.request(subject('svc.users.7'), null, 2000)).resolves.toBe(subject('svc.users.7'));
    });

    it('stops delivery on unsubscribe', async () => {
      const kept: Json[] = [];
      const dropped: Json[] = [];
      const subscription = await bus.subscribe(subject('feed'), (payload) => dropped.push(payload));
      await bus.subscribe(subject('feed'), (payload) => kept.push(payload));
      second.publish(subject('feed'), 1);
      await waitFor(() => kept.length === 1 && dropped.length === 1);
      await subscription.unsubscribe();
      second.publish(subject('feed'), 2);
      await waitFor(() => kept.length === 2);
      await delay(20);
      expect(dropped).toEqual([1]);

      const serving = await second.serve(subject('gone'), async () => 'here');
      await expect(bus.request(subject('gone'), null, 2000)).resolves.toBe('here');
      await serving.unsubscribe();
      const err = await rejection(bus.request(subject('gone'), null, 1000));
      expect((err as BusError).code).toBe('NO_RESPONDERS');
    });

    it('refuses payloads over the 1 MiB NATS default, in requests and in replies', async () => {
      const big = 'x'.repeat(1024 * 1024 + 1);
      await second.serve(subject('big'), async (payload) => (payload === 'send big' ? big : 'ok'));
      const err = await rejection(bus.request(subject('big'), big, 1000));
      expect((err as { code?: unknown }).code).toBe('MAX_PAYLOAD_EXCEEDED');
      const logged = await capturingConsoleError(async () => {
        const tooBig = await rejection(bus.request(subject('big'), 'send big', 200));
        expect((tooBig as BusError).code).toBe('TIMEOUT');
      });
      expect(logged.length).toBeGreaterThan(0);
    });

    it('lets a running handler reply while its bus closes', async () => {
      let started!: () => void;
      const handlerStarted = new Promise<void>((resolve) => (started = resolve));
      await bus.serve(subject('draining'), async () => {
        started();
        await delay(100);
        return 'finished';
      });
      const reply = second.request(subject('draining'), null, 2000);
      await handlerStarted;
      await bus.close();
      await expect(reply).resolves.toBe('finished');
    });

    it('refuses everything with CLOSED once closed, and close() may be called again', async () => {
      await bus.serve(subject('closing'), async () => 'open');
      await bus.close();
      await bus.close();
      for (const attempt of [
        bus.request(subject('closing'), null, 1000),
        bus.serve(subject('closing'), async () => null),
        bus.subscribe(subject('closing'), () => undefined),
        bus.flush(),
      ]) {
        const err = await rejection(attempt);
        expect(isBusError(err) && err.code).toBe('CLOSED');
      }
      let thrown: unknown;
      try {
        bus.publish(subject('closing'), null);
      } catch (err) {
        thrown = err;
      }
      expect(isBusError(thrown) && thrown.code).toBe('CLOSED');
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, got a value');
}

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(5);
  }
}

/** Runs `fn` with console.error captured (handler failures are logged there by default). */
async function capturingConsoleError(fn: () => Promise<void>): Promise<unknown[][]> {
  const calls: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void calls.push(args);
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return calls;
}
