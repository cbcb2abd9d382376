/**
 * The search lines (issue 40): a word one message holds and a word a sixth of them hold,
 * searched over the reader's whole personal history (no channel named, the newest 100),
 * one request at a time, so that p50 and p99 show what one person waits. The rare word
 * is the number of one seeded message (seed.ts writes each message's number); its cost
 * must not grow with the history, which a run at 10,000 and one at 100,000 messages
 * compare.
 */
import { http, narrowQuery, type Person } from './http';
import { MESSAGES } from './settings';
import { measureOneClient, type OneClientRow } from './single-client';

export async function measureSearchLines(api: string, reader: Person): Promise<OneClientRow[]> {
  const rows: OneClientRow[] = [];
  // No other seeded number starts with it: it is at most MESSAGES and has as many digits.
  const rare = String(Math.floor(MESSAGES * 0.37));
  const lines: [string, string, (found: number) => boolean][] = [
    ['GET search rare word (single client)', rare, (found) => found === 1],
    ['GET search common word (single client)', 'delta', (found) => found === 100],
  ];
  for (const [name, word, expected] of lines) {
    const path = `/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrowQuery([{ operator: 'search', operand: word }])}`;
    const headers = { authorization: reader.authorization };
    const check = await http(`${new URL(api).origin}${path}`, { headers });
    if (!expected(check.messages.length)) throw new Error(`${name}: unexpected ${check.messages.length} messages for '${word}'`);
    const row = await measureOneClient(name, { url: api, requests: [{ method: 'GET', path, headers }] });
    if (row) rows.push(row);
  }
  return rows;
}
