/**
 * The throughput lines: autocannon with CONNECTIONS connections for SECONDS, in a process
 * of its own (on two cores, a load generator sharing the server's event loop would halve
 * what the server can show).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import { form, http, narrowQuery, type Person } from './http';
import { profiled } from './profile';
import { CONNECTIONS, ONLY, SECONDS } from './settings';

const run = promisify(execFile);

export interface Row {
  name: string;
  result: autocannon.Result;
  /** CPU time the server process (every thread) spent per request answered, in µs. */
  cpuPerRequest: number;
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** The line, or undefined where BENCH_ONLY leaves it out. */
export async function measure(name: string, target: Target): Promise<Row | undefined> {
  if (!ONLY.test(name)) return undefined;
  return profiled(name, () => autocannonRun(name, target));
}

async function autocannonRun(name: string, target: Target): Promise<Row> {
  const args = [require.resolve('autocannon/autocannon.js'), '--json', '-c', String(CONNECTIONS), '-d', String(SECONDS)];
  if (target.method) args.push('-m', target.method);
  for (const [key, value] of Object.entries(target.headers ?? {})) args.push('-H', `${key}=${value}`);
  if (target.body) args.push('-b', target.body);
  args.push(target.url);
  // On a shared machine throughput swings with the neighbours; the CPU time the server
  // spends per request swings much less, so it is the figure to compare changes by.
  const before = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const cpu = process.cpuUsage(before);
  const result = JSON.parse(stdout) as autocannon.Result;
  return { name, result, cpuPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests.total) };
}

/** A message sent to `channel` by `who`, as a throughput target. */
export function sendTarget(api: string, who: Person, channel: string, content: string): Target {
  return {
    url: `${api}/messages`,
    method: 'POST',
    headers: { authorization: who.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ type: 'stream', to: channel, topic: 'bench', content }),
  };
}

/** The server's lines on the seeded data: the fixed cost of a call, a send, and reads of 100 messages. */
export async function measureServerLines(api: string, member: Person, reader: Person, channels: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  const record = (row: Row | undefined) => {
    if (row) rows.push(row);
  };
  // The fixed cost of any API call: HTTP, authentication, one bus round trip, a trivial handler.
  record(await measure('GET /users/me', { url: `${api}/users/me`, headers: { authorization: member.authorization } }));
  record(await measure('POST /messages', sendTarget(api, member, 'general', 'Benchmark message with **some** markdown.')));

  const reads: [string, unknown[], string][] = [
    ['GET channel+topic (100)', [{ operator: 'channel', operand: channels[3] }, { operator: 'topic', operand: 'topic-4' }], 'newest'],
    ['GET search (100)', [{ operator: 'channel', operand: channels[5] }, { operator: 'search', operand: 'delta' }], 'newest'],
    ['GET first_unread (100)', [{ operator: 'channel', operand: channels[7] }], 'first_unread'],
    // Personal history: every channel the reader receives, merged (queries/personal-scan.ts).
    ['GET combined feed (100)', [], 'newest'],
    ['GET is:unread (100)', [{ operator: 'is', operand: 'unread' }], 'newest'],
  ];
  for (const [name, narrow, anchor] of reads) {
    if (!ONLY.test(name)) continue;
    // newest: the 100 latest; first_unread: the anchor and the 99 after it (the reader
    // has read nothing, so that is where a client opening the channel starts).
    const [before, after] = anchor === 'newest' ? [100, 0] : [0, 99];
    const url = `${api}/messages?anchor=${anchor}&num_before=${before}&num_after=${after}&narrow=${narrowQuery(narrow)}`;
    const check = await http(url, { headers: { authorization: reader.authorization } });
    if (check.messages.length < 100) throw new Error(`${name}: expected 100 messages, got ${check.messages.length}`);
    record(await measure(name, { url, headers: { authorization: reader.authorization } }));
  }
  return rows;
}
