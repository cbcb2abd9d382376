/**
 * Scheduled delivery lateness: BENCH_SCHEDULED (1,000) messages scheduled for the same
 * second, and how long after that second each one's message reaches a client. The time
 * of arrival is when its `message` event reaches a long-polling queue of the sender (the
 * message's timestamp has whole seconds only), so the figure includes event delivery,
 * a few milliseconds. Every scheduled message must arrive exactly once.
 */
import { http } from './http';
import { latencyFigures, type LatencyFigures } from './latency';

const COUNT = Number(process.env.BENCH_SCHEDULED ?? 1000);
const SCHEDULING_CONNECTIONS = 16;
/** The slowest scheduling rate (requests a second) the lead time allows for. */
const SCHEDULING_RATE_FLOOR = 25;

/** The latency figures: milliseconds from the scheduled second to arrival. */
export interface ScheduledReport extends LatencyFigures {
  count: number;
  missing: number;
  duplicates: number;
  /** How long scheduling them took (ms), for context. */
  schedulingMs: number;
}

export async function measureScheduledDelivery(api: string, sender: { authorization: string }): Promise<ScheduledReport> {
  const headers = { authorization: sender.authorization, 'content-type': 'application/x-www-form-urlencoded' };
  const topic = `scheduled-${Date.now()}`;
  const queue = await http(`${api}/register`, { method: 'POST', headers, body: new URLSearchParams({ event_types: '["message"]', narrow: JSON.stringify([['topic', topic]]) }) });
  // Far enough ahead for every request to be in before the second comes, on a busy
  // two-core machine too (it once took longer than 200 a second): the wait before the
  // second is not part of the figure, only the lateness after it.
  const at = Math.ceil(Date.now() / 1000) + Math.max(10, Math.ceil(COUNT / SCHEDULING_RATE_FLOOR));
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: SCHEDULING_CONNECTIONS }, async () => {
      while (next < COUNT) {
        const i = next++;
        await http(`${api}/scheduled_messages`, {
          method: 'POST',
          headers,
          body: new URLSearchParams({ type: 'stream', to: 'general', topic, content: `scheduled ${i}`, scheduled_delivery_timestamp: String(at) }),
        });
      }
    }),
  );
  const schedulingMs = Date.now() - started;
  if (Date.now() >= at * 1000) throw new Error(`scheduling ${COUNT} messages took ${schedulingMs} ms, past their time`);

  const arrivals = new Map<string, number[]>();
  let lastEventId = queue.last_event_id as number;
  const deadline = at * 1000 + 120_000;
  while (arrivals.size < COUNT && Date.now() < deadline) {
    const polled = await http(`${api}/events?queue_id=${encodeURIComponent(queue.queue_id)}&last_event_id=${lastEventId}`, { headers });
    const now = Date.now();
    for (const event of polled.events as any[]) {
      lastEventId = Math.max(lastEventId, event.id);
      if (event.type !== 'message') continue;
      const list = arrivals.get(event.message.content) ?? [];
      list.push(now);
      arrivals.set(event.message.content, list);
    }
  }
  await fetch(`${api}/events?queue_id=${encodeURIComponent(queue.queue_id)}`, { method: 'DELETE', headers });
  const lateness = [...arrivals.values()].map((times) => times[0]! - at * 1000);
  return {
    count: COUNT,
    ...latencyFigures(lateness),
    missing: COUNT - arrivals.size,
    duplicates: [...arrivals.values()].filter((times) => times.length > 1).length,
    schedulingMs,
  };
}

export function scheduledLine(scheduled: ScheduledReport): string {
  return (
    `scheduled delivery, ${scheduled.count} messages scheduled for the same second (scheduling took ${(scheduled.schedulingMs / 1000).toFixed(1)} s): ` +
    `lateness from the scheduled second to the message's event p50 ${scheduled.p50.toFixed(0)} ms, p99 ${scheduled.p99.toFixed(0)} ms, max ${scheduled.max.toFixed(0)} ms; ` +
    `${scheduled.missing} missing, ${scheduled.duplicates} twice`
  );
}
