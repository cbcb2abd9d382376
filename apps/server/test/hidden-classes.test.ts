/**
 * A request builds its objects with the hidden classes earlier requests built. V8 gives an
 * object spread from one with more than a few members (`{ ...command, recipient_id }`,
 * `{ ...(actor ? { actor } : {}), ...consistency, params }`) a hidden class of its own: on
 * the request path that cost every request new classes, which only a full collection
 * frees, and left the code reading those objects megamorphic.
 *
 * V8's map log (`--log-maps`) records every hidden class a thread creates. Two servers
 * serve the same warm-up and then FEW and MANY rounds of a profile read, a send, a
 * channel+topic history fetch and an event poll; what the second one's threads created
 * beyond the first's is what the extra rounds created.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbeddedProcess } from './harness';
import { scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();
const WARM_UP = 100;
const FEW = 20;
const MANY = 520;

/** Hidden classes created by all the threads of one server (each thread writes a log of its own). */
async function classesCreated(rounds: number): Promise<number> {
  const logs = mkdtempSync(join(tmpdir(), 'teamchat-maps-'));
  // Only the map events: code and map details would make the logs a hundred times larger.
  const flags = ['--log-maps', '--no-log-maps-details', '--no-log-code', '--no-log-source-code', `--logfile=${join(logs, 'v8.log')}`];
  const server = await startEmbeddedProcess(newDataDir(), {}, flags);
  try {
    const member = await Client.login(server.api, 'member@example.com');
    const { body: queue } = await member.post('/register', { event_types: JSON.stringify(['message']) });
    expect(queue.result).toBe('success');
    const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'classes' }]);
    let lastEventId = queue.last_event_id as number;
    const round = async (i: number) => {
      expect((await member.get('/users/me')).status).toBe(200);
      expect((await member.post('/messages', { type: 'stream', to: 'general', topic: 'classes', content: `round **${i}**` })).status).toBe(200);
      expect((await member.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow })).status).toBe(200);
      const { body } = await member.get('/events', { queue_id: queue.queue_id, last_event_id: lastEventId, dont_block: true });
      for (const event of body.events as { id: number }[]) lastEventId = Math.max(lastEventId, event.id);
    };
    for (let i = 0; i < WARM_UP + rounds; i++) await round(i);
  } finally {
    await server.stop();
  }
  let created = 0;
  for (const file of readdirSync(logs)) {
    const log = readFileSync(join(logs, file), 'latin1');
    for (let at = log.indexOf('\nmap,'); at >= 0; at = log.indexOf('\nmap,', at + 1)) created++;
  }
  rmSync(logs, { recursive: true, force: true });
  return created;
}

describe('hidden classes on the request path (embedded, V8 map log)', () => {
  it('creates none per request, on any thread', async () => {
    const few = await classesCreated(FEW);
    const many = await classesCreated(MANY);
    // Startup and the first run of timed work (a WAL checkpoint in each store's worker,
    // projectors saving their position within a second) differ from run to run: by 20–60
    // classes alone, up to 129 (0.258 a round) with jest running another file beside this
    // one, and once 255 (0.51 a round) in the whole suite on a loaded machine. One class
    // per request on a single route would be at least 1 a round; with the spreads, a
    // round of four requests created about 21. 0.8 a round (400) leaves room for the
    // noise and still fails on any per-request class.
    expect((many - few) / (MANY - FEW)).toBeLessThan(0.8);
  }, 180_000);
});
