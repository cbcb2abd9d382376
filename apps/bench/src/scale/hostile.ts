/**
 * One user's expensive searches against everyone else's reads (issue 43 item 4, the
 * figures apps/server/test/scan-fairness.test.ts checks at a small size): a search no
 * index can answer (a common word and its negation: no message matches, so it reads
 * every message holding the word until its time budget), sent PARALLEL at a time, each
 * with another anchor, by one user; meanwhile the reader's simple read (its newest 20
 * messages) is timed, and timed alone just before, in the same run.
 */
import { latencyFigures } from '../latency';
import { emailOf, type ScaleModel } from './model';
import { ReadClient } from './reads';

const PARALLEL = 16;
/** Before the timed reads: the flood is under way. */
const FLOOD_LEAD_MS = 300;

export interface HostileReport {
  parallel: number;
  /** One such search alone, end to end (its status in `answered`'s keys when not 200). */
  searchAloneMs: number;
  alone: { p50: number; p99: number };
  flooded: { p50: number; p99: number };
  /** The hostile searches' HTTP statuses while timed (504: stopped at its budget). */
  answered: Record<string, number>;
}

const simpleRead = { anchor: 'newest', num_before: '20', num_after: '0' };

async function timedReads(reader: ReadClient, count: number): Promise<{ p50: number; p99: number }> {
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await reader.call('GET', '/messages', simpleRead);
    durations.push(performance.now() - started);
  }
  const { p50, p99 } = latencyFigures(durations);
  return { p50, p99 };
}

export async function measureHostileSearch(api: string, model: ScaleModel, reads: number): Promise<HostileReport> {
  const reader = await ReadClient.login(api, emailOf(0));
  const hostile = await ReadClient.login(api, emailOf(1));
  const word = model.words[0]!;
  const search = (anchor: string, signal?: AbortSignal) =>
    fetch(
      `${api}/messages?${new URLSearchParams({
        anchor,
        num_before: '50',
        num_after: '0',
        narrow: JSON.stringify([
          { operator: 'search', operand: word },
          { operator: 'search', operand: word, negated: true },
        ]),
      })}`,
      { headers: { authorization: hostile.authorization }, signal },
    ).then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    });

  let started = performance.now();
  const aloneStatus = await search('newest');
  const searchAloneMs = performance.now() - started;
  if (aloneStatus !== 200 && aloneStatus !== 504) throw new Error(`the expensive search answered ${aloneStatus}`);

  await timedReads(reader, 20);
  const alone = await timedReads(reader, reads);

  const answered: Record<string, number> = {};
  // The flood is stopped only once one of its searches has answered: on a slow or busy
  // machine the timed reads can end before any search does, and the line would show
  // nothing of what the server did with them.
  let firstAnswer!: () => void;
  const answeredOnce = new Promise<void>((resolve) => (firstAnswer = resolve));
  const stop = new AbortController();
  const lanes = Array.from({ length: PARALLEL }, async (_, lane) => {
    for (let i = 0; !stop.signal.aborted; i++) {
      try {
        // Another anchor each time: nothing one search finds helps the next.
        const status = await search(String(1_000_000_000 - lane * 1_000 - i), stop.signal);
        answered[status] = (answered[status] ?? 0) + 1;
        firstAnswer();
      } catch (error) {
        // Aborted at the end (the server is told the client went away); anything else
        // is shown as such, and also ends the wait for a first answer.
        if (stop.signal.aborted) continue;
        const failed = `failed (${(error as Error).message})`;
        answered[failed] = (answered[failed] ?? 0) + 1;
        firstAnswer();
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, FLOOD_LEAD_MS));
  const flooded = await timedReads(reader, reads);
  await answeredOnce;
  stop.abort();
  await Promise.all(lanes);
  return { parallel: PARALLEL, searchAloneMs, alone, flooded, answered };
}
