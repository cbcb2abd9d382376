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
 * Times `samples` sequential runs of `request` by `client` (after one unmeasured warm-up),
 * each to the last byte of its answer. A line whose request fails is reported as failed
 * (no figures, the error as its detail) and the others are still measured; the bench then
 * ends with a failure. `withParse`: the detail also gives the times with the client's parse,
 * and the warm-up's own time (the process's first of its kind: caches built, code not yet optimized).
 */
async function timed(client: ReadClient, name: string, samples: number, request: () => Promise<string>, withParse = false): Promise<ReadLine> {
  try {
    const first = performance.now();
    let detail = await request();
    const warmUp = client.receivedAt - first;
    const durations: number[] = [];
    const parsed: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      detail = await request();
      parsed.push(performance.now() - started);
      durations.push(client.receivedAt - started);
    }
    const { p50, p99 } = latencyFigures(durations);
    if (withParse) {
      const whole = latencyFigures(parsed);
      detail += `; with the client's JSON parse p50 ${whole.p50.toFixed(1)} ms, p99 ${whole.p99.toFixed(1)} ms; the unmeasured first ${warmUp.toFixed(0)} ms`;
    }
    return { name, p50, p99, detail };
  } catch (err) {
    return { name, p50: NaN, p99: NaN, detail: `FAILED: ${(err as Error).message}` };
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
