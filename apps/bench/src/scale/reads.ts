/**
 * The reads the scale bench times, each as one client would make it, one request at a
 * time (a latency, not a throughput): the reader's channel, topic and combined feed,
 * its first unread, its direct messages, starred messages and mentions, deep pages, a
 * search for a rare and for a common word, and its registration.
 *
 * A read's time runs from the request to the last byte of its answer, as an HTTP latency
 * is measured: the client's own JSON parse comes after. For most answers it is a fraction
 * of a millisecond; for a registration's 7 MB it was 20-35 ms of the bench's own thread,
 * so the registration line reports it apart (in its detail).
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { latencyFigures } from '../latency';
import { RARE_WORD, channelName, type ScaleModel } from './model';

export interface ReadLine {
  name: string;
  p50: number;
  p99: number;
  /** What the line's answer held: messages returned, or bytes and unreads for registration. */
  detail: string;
}

type Narrow = { operator: string; operand: string | number }[];

export class ReadClient {
  constructor(
    readonly api: string,
    readonly authorization: string,
  ) {}

  static async login(api: string, email: string): Promise<ReadClient> {
    const response = await fetch(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }) });
    const body = (await response.json()) as { result: string; api_key: string; msg?: string };
    if (body.result !== 'success') throw new Error(`dev_fetch_api_key ${email}: ${body.msg}`);
    return new ReadClient(api, `Basic ${Buffer.from(`${email}:${body.api_key}`).toString('base64')}`);
  }

  /** When the last answer's last byte arrived (performance.now()), before it was parsed. */
  receivedAt = 0;

  /** A request that must succeed; returns its body and how many bytes it was. */
  async call(method: 'GET' | 'POST' | 'DELETE', path: string, params: Record<string, string>): Promise<{ body: Record<string, any>; bytes: number }> {
    const query = new URLSearchParams(params).toString();
    const response = await fetch(method === 'POST' ? `${this.api}${path}` : `${this.api}${path}?${query}`, {
      method,
      headers: { authorization: this.authorization, ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(method === 'POST' ? { body: query } : {}),
    });
    const text = await response.text();
    this.receivedAt = performance.now();
    const body = JSON.parse(text) as Record<string, any>;
    if (!response.ok || body.result !== 'success') throw new Error(`${method} ${path} ${query}: ${response.status} ${text.slice(0, 300)}`);
    return { body, bytes: Buffer.byteLength(text) };
  }

  messages(narrow: Narrow, anchor: string | number, before: number, after: number) {
    return this.call('GET', '/messages', { anchor: String(anchor), num_before: String(before), num_after: String(after), narrow: JSON.stringify(narrow) });
  }
}

/**
 * The bench's own garbage collector, when the process was started with --expose-gc (as
 * `npm run bench:scale` starts it): run between the samples of a line whose answers are
 * megabytes, so that collecting the last answer's objects does not fall inside the next
 * sample's time.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** Milliseconds of this process's own collections inside the windows (each [start, end] in performance.now() time). */
function collectionsInside(entries: readonly PerformanceEntry[], windows: readonly [number, number][]): number {
  let total = 0;
  for (const entry of entries) {
    const [start, end] = [entry.startTime, entry.startTime + entry.duration];
    for (const [from, to] of windows) total += Math.max(0, Math.min(end, to) - Math.max(start, from));
  }
  return total;
}

/**
 * Times `samples` sequential runs of `request` by `client` (after one unmeasured warm-up),
 * each to the last byte of its answer. A line whose request fails is reported as failed
 * (no figures, the error as its detail) and the others are still measured; the bench then
 * ends with a failure. `withParse` (answers of megabytes): the detail also gives the times
 * with the client's parse, the warm-up's own time (the process's first of its kind: caches
 * built, code not yet optimized) and the first five measured. The client collects its
 * garbage between such samples, and the detail says how much of its collecting still fell
 * inside the timings: before, parsing each 7 MB registration left 0.5-0.8 s of the
 * client's collections inside 200 samples' times, up to 52 ms in one.
 */
async function timed(client: ReadClient, name: string, samples: number, request: () => Promise<string>, withParse = false): Promise<ReadLine> {
  const collections: PerformanceEntry[] = [];
  const observer = withParse ? new PerformanceObserver((list) => collections.push(...list.getEntries())) : undefined;
  observer?.observe({ entryTypes: ['gc'] });
  try {
    const first = performance.now();
    let detail = await request();
    const warmUp = client.receivedAt - first;
    const durations: number[] = [];
    const parsed: number[] = [];
    const windows: [number, number][] = [];
    for (let i = 0; i < samples; i++) {
      if (withParse) collectGarbage?.();
      const started = performance.now();
      detail = await request();
      parsed.push(performance.now() - started);
      durations.push(client.receivedAt - started);
      windows.push([started, client.receivedAt]);
    }
    const { p50, p99 } = latencyFigures(durations);
    if (withParse) {
      const whole = latencyFigures(parsed);
      // The observer is told of collections a little later: a turn for the last ones.
      await new Promise((resolve) => setImmediate(resolve));
      const inside = collectionsInside(collections, windows);
      detail += `; with the client's JSON parse p50 ${whole.p50.toFixed(1)} ms, p99 ${whole.p99.toFixed(1)} ms; the unmeasured first ${warmUp.toFixed(0)} ms`;
      // The p99 of 200 is the second slowest: most often one of the process's first few.
      detail += `, the first five measured ${durations
        .slice(0, 5)
        .map((ms) => ms.toFixed(0))
        .join(', ')} ms`;
      detail += `; the client's own collections inside the timings ${inside.toFixed(0)} ms${collectGarbage ? '' : ' (not collected between samples: run with --expose-gc)'}`;
    }
    return { name, p50, p99, detail };
  } catch (err) {
    return { name, p50: NaN, p99: NaN, detail: `FAILED: ${(err as Error).message}` };
  } finally {
    observer?.disconnect();
  }
}

export async function measureReads(reader: ReadClient, model: ScaleModel, samples: number): Promise<ReadLine[]> {
  const channel = channelName(model.readerBusiestChannel);
  const inChannel: Narrow = [{ operator: 'channel', operand: channel }];
  const page = async (narrow: Narrow, anchor: string | number, before: number, after: number) => {
    const { body } = await reader.messages(narrow, anchor, before, after);
    return `${body.messages.length} messages`;
  };
  // A page a tenth of the way into the history, from the oldest end: what scrolling back far finds.
  const deepAnchor = async (narrow: Narrow) => {
    const oldest = (await reader.messages(narrow, 'oldest', 0, 1)).body.messages[0]?.id as number;
    const newest = (await reader.messages(narrow, 'newest', 1, 0)).body.messages[0]?.id as number;
    return Math.floor(oldest + (newest - oldest) / 10);
  };
  const channelDeep = await deepAnchor(inChannel);
  const feedDeep = await deepAnchor([]);
  const lines: ReadLine[] = [];
  lines.push(await timed(reader, 'channel, newest 50', samples, () => page(inChannel, 'newest', 50, 0)));
  lines.push(await timed(reader, 'topic, newest 50', samples, () => page([...inChannel, { operator: 'topic', operand: 'topic 0' }], 'newest', 50, 0)));
  lines.push(await timed(reader, 'combined feed, newest 50', samples, () => page([], 'newest', 50, 0)));
  lines.push(await timed(reader, 'first unread, 25 + 25', samples, () => page([], 'first_unread', 25, 25)));
  lines.push(await timed(reader, 'direct messages, newest 50', samples, () => page([{ operator: 'is', operand: 'dm' }], 'newest', 50, 0)));
  lines.push(await timed(reader, 'starred, newest 50', samples, () => page([{ operator: 'is', operand: 'starred' }], 'newest', 50, 0)));
  lines.push(await timed(reader, 'mentions, newest 50', samples, () => page([{ operator: 'is', operand: 'mentioned' }], 'newest', 50, 0)));
  lines.push(await timed(reader, 'deep page, channel', samples, () => page(inChannel, channelDeep, 50, 0)));
  lines.push(await timed(reader, 'deep page, combined feed', samples, () => page([], feedDeep, 50, 0)));
  lines.push(await timed(reader, 'search, rare word', samples, () => page([{ operator: 'search', operand: RARE_WORD }], 'newest', 100, 0)));
  lines.push(await timed(reader, 'search, common word', samples, () => page([{ operator: 'search', operand: model.words[0]! }], 'newest', 100, 0)));
  // As many samples as the other lines: of the 50 this line once took, the p99 was the
  // slowest, which was the process's second registration (its code not yet optimized:
  // 190 ms at the server against 60-110 ms for the later ones at 1,000,000 messages).
  lines.push(
    await timed(
      reader,
      'POST /register (reader)',
      samples,
      async () => {
        const { body, bytes } = await reader.call('POST', '/register', {});
        return `${(bytes / 1024).toFixed(0)} KiB, ${body.unread_msgs?.count ?? '?'} unread`;
      },
      true,
    ),
  );
  return lines;
}
