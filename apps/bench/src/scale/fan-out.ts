/**
 * A send to the largest channel (1,000 subscribers at full size) while 50 of its
 * subscribers long-poll their event queues: the time from the send's request until the
 * last of the 50 has the message, for each of ROUNDS sends one after another.
 */
import { latencyFigures } from '../latency';
import { channelName, emailOf, type ScaleModel } from './model';
import { ReadClient } from './reads';

const POLLERS = 50;
const ROUNDS = 10;
const ROUND_TIMEOUT_MS = 30_000;

export interface FanOutReport {
  pollers: number;
  subscribers: number;
  p50: number;
  max: number;
}

interface Poller {
  client: ReadClient;
  queue: string;
  last: number;
  /** When each round's message arrived. */
  seen: Map<number, number>;
}

export async function measureFanOut(api: string, model: ScaleModel): Promise<FanOutReport> {
  const channel = model.largestChannel;
  const subscribers = model.subscribersOf(channel);
  const sender = await ReadClient.login(api, emailOf(subscribers[0]!));
  const listeners = subscribers.slice(1, POLLERS + 1);
  const pollers: Poller[] = await Promise.all(
    listeners.map(async (user) => {
      const client = await ReadClient.login(api, emailOf(user));
      const { body } = await client.call('POST', '/register', { event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['message']) });
      return { client, queue: body.queue_id as string, last: body.last_event_id as number, seen: new Map() };
    }),
  );
  let stopping = false;
  let wake: (() => void) | undefined;
  const loops = pollers.map(async (poller) => {
    while (!stopping) {
      let body: Record<string, any>;
      try {
        ({ body } = await poller.client.call('GET', '/events', { queue_id: poller.queue, last_event_id: String(poller.last) }));
      } catch (err) {
        if (stopping) return;
        throw err;
      }
      const now = performance.now();
      for (const event of body.events as { id: number; type: string; message?: { content: string } }[]) {
        poller.last = Math.max(poller.last, event.id);
        const round = /fan-out round (\d+)/.exec(event.message?.content ?? '')?.[1];
        if (event.type === 'message' && round !== undefined) poller.seen.set(Number(round), now);
      }
      wake?.();
    }
  });
  const durations: number[] = [];
  try {
    const marker = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      const id = marker + round;
      const started = performance.now();
      await sender.call('POST', '/messages', { type: 'stream', to: channelName(channel), topic: 'fan-out', content: `fan-out round ${id}` });
      const deadline = started + ROUND_TIMEOUT_MS;
      while (!pollers.every((p) => p.seen.has(id))) {
        if (performance.now() > deadline) throw new Error(`fan-out: ${pollers.filter((p) => !p.seen.has(id)).length} of ${POLLERS} pollers never got round ${round}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      durations.push(Math.max(...pollers.map((p) => p.seen.get(id)!)) - started);
    }
  } finally {
    stopping = true;
    // The pending long-polls end with the queues: deleting each one answers its poll.
    await Promise.all(pollers.map((p) => p.client.call('DELETE', '/events', { queue_id: p.queue }).catch(() => undefined)));
  }
  void Promise.allSettled(loops);
  const { p50, max } = latencyFigures(durations);
  return { pollers: pollers.length, subscribers: subscribers.length, p50, max };
}
