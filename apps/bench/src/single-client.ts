/**
 * The single-client lines (the measuring client is one-client.ts, run as a process of its
 * own): one person at a time, each line's latency set against the machine's fsync.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { form, http, narrowQuery, type Person } from './http';
import type { OneClientPlan, OneClientResult } from './one-client';
import { profiled } from './profile';
import { ONLY, SECONDS } from './settings';

const run = promisify(execFile);

export interface OneClientRow {
  name: string;
  /** For a paced line: the idle time between a reply and the next request. */
  pauseMs?: number;
  result: OneClientResult;
  /** Server CPU (every thread) per request, in µs. */
  cpuPerRequest: number;
}

const ONE_CLIENT_WARM_UP = 50;
/**
 * The pause of the paced line: a person sends seconds apart, and on the development VM
 * the disk and the CPUs are as cold after 20 ms as after 200 (see fsync.ts); 50 ms leaves
 * a run enough requests for its percentiles.
 */
export const PACED_PAUSE_MS = 50;

export async function measureOneClient(name: string, plan: Omit<OneClientPlan, 'seconds' | 'warmUp'>): Promise<OneClientRow | undefined> {
  if (!ONLY.test(name)) return undefined;
  return profiled(name, async () => {
    // A paced line warms up with fewer requests: each costs a pause.
    const warmUp = plan.pauseMs ? ONE_CLIENT_WARM_UP / 5 : ONE_CLIENT_WARM_UP;
    const full: OneClientPlan = { ...plan, seconds: SECONDS, warmUp };
    const before = process.cpuUsage();
    const { stdout } = await run(process.execPath, [join(__dirname, 'one-client.js'), JSON.stringify(full)], { maxBuffer: 1024 * 1024 });
    const cpu = process.cpuUsage(before);
    const result = JSON.parse(stdout) as OneClientResult;
    // The warm-up's CPU is in the figure too; it is a small share of a run.
    return { name, ...(plan.pauseMs ? { pauseMs: plan.pauseMs } : {}), result, cpuPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests + warmUp) };
  });
}

export async function measureSingleClientLines(api: string, member: Person, reader: Person, channels: string[]): Promise<OneClientRow[]> {
  const rows: OneClientRow[] = [];
  const path = (url: string) => new URL(url).pathname + new URL(url).search;
  const formHeaders = (who: Person) => ({ authorization: who.authorization, 'content-type': 'application/x-www-form-urlencoded' });
  const single = (name: string) => `${name} (single client)`;
  const record = (row: OneClientRow | undefined) => {
    if (row) rows.push(row);
  };
  record(
    await measureOneClient(single('POST /messages'), {
      url: api,
      requests: [{ method: 'POST', path: path(`${api}/messages`), headers: formHeaders(member), body: form({ type: 'stream', to: 'general', topic: 'single', content: 'One message with **some** markdown.' }) }],
    }),
  );
  // The same send as a person makes it, after a pause: everything on its way starts cold.
  record(
    await measureOneClient(single(`POST /messages, ${PACED_PAUSE_MS} ms apart`), {
      url: api,
      pauseMs: PACED_PAUSE_MS,
      requests: [{ method: 'POST', path: path(`${api}/messages`), headers: formHeaders(member), body: form({ type: 'stream', to: 'general', topic: 'paced', content: 'One message with **some** markdown.' }) }],
    }),
  );
  record(
    await measureOneClient(single('POST /messages direct'), {
      url: api,
      requests: [{ method: 'POST', path: path(`${api}/messages`), headers: formHeaders(member), body: form({ type: 'direct', to: JSON.stringify([reader.user_id]), content: 'A direct message.' }) }],
    }),
  );
  if (ONLY.test(single('PATCH /messages')) || ONLY.test(single('POST /messages/flags'))) {
    const { id } = await http(`${api}/messages`, { method: 'POST', headers: formHeaders(member), body: form({ type: 'stream', to: 'general', topic: 'edited', content: 'to be edited' }) });
    // Two contents in turn: every request is a real edit.
    record(
      await measureOneClient(single('PATCH /messages'), {
        url: api,
        requests: ['first', 'second'].map((word) => ({ method: 'PATCH', path: path(`${api}/messages/${id}`), headers: formHeaders(member), body: form({ content: `The ${word} version.` }) })),
      }),
    );
    // Star, unstar: every request changes a flag.
    record(
      await measureOneClient(single('POST /messages/flags'), {
        url: api,
        requests: ['add', 'remove'].map((op) => ({ method: 'POST', path: path(`${api}/messages/flags`), headers: formHeaders(reader), body: form({ messages: JSON.stringify([id]), op, flag: 'starred' }) })),
      }),
    );
  }
  const narrow = [{ operator: 'channel', operand: channels[3] }, { operator: 'topic', operand: 'topic-4' }];
  record(
    await measureOneClient(single('GET channel+topic (100)'), {
      url: api,
      requests: [{ method: 'GET', path: path(`${api}/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrowQuery(narrow)}`), headers: { authorization: reader.authorization } }],
    }),
  );
  // The reference for the lines above: the least an authenticated request costs, answered
  // on the main thread (no hop to a service thread, no storage), so that the tail the
  // machine itself adds to one client's requests shows in the same run.
  record(
    await measureOneClient(single('GET /users/me'), {
      url: api,
      requests: [{ method: 'GET', path: path(`${api}/users/me`), headers: { authorization: reader.authorization } }],
    }),
  );
  return rows;
}
