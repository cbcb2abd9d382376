/**
 * The expired-session sweep against real stores (SQLite): it ends exactly the sessions past
 * their expiry with facts, the read model drops them, live sessions stay, and a second
 * sweep (or a second instance sweeping the same sessions) ends nothing more.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { streams } from '@teamchat/contracts';
import { AggregateRepository, createLogger, Projector, SqliteEventStore, SqliteReadModelStore } from '@teamchat/platform';
import { evolveSessions, initialSessions } from '../src/domain/sessions';
import { sweepExpiredSessions } from '../src/handlers/sessions';
import { SessionsReadModel } from '../src/projections/sessions';

const NOW = 1_800_000_000_000;
const dir = mkdtempSync(join(tmpdir(), 'teamchat-sweep-'));
const store = SqliteEventStore.open(join(dir, 'events.db'));
const readModels = SqliteReadModelStore.open(join(dir, 'read.db'));
const model = new SessionsReadModel(readModels);
const projector = new Projector({ name: 'sessions', store, readModels, handlers: model.handlers, log: createLogger('sweep-test') });

beforeAll(() => projector.start());
afterAll(async () => {
  await projector.stop();
  await store.close();
  await readModels.close();
  rmSync(dir, { recursive: true, force: true });
});

const session = (user_id: number, session_hash: string, expires_at: number) => ({
  type: 'SessionStarted' as const,
  user_id,
  session_hash,
  method: 'password' as const,
  client: 'website',
  started_at: NOW - 1000,
  expires_at,
});

it('ends the expired sessions of every user, keeps the live ones, and ends each once', async () => {
  const deps = { model, sessions: new AggregateRepository(store, { initial: initialSessions, evolve: evolveSessions }) };
  for (const [user, facts] of [
    [4, [session(4, 'a-expired', NOW - 1), session(4, 'a-live', NOW + 60_000)]],
    [5, [session(5, 'b-expired', NOW)]],
    [6, [session(6, 'c-live', NOW + 1)]],
  ] as const) {
    await deps.sessions.execute(streams.sessions(user), () => ({ facts: [...facts], result: undefined }));
  }
  await projector.waitFor(await store.headPosition());
  // Two instances sweeping at once end each session once (each checks the user's stream).
  const other = { model, sessions: new AggregateRepository(store, { initial: initialSessions, evolve: evolveSessions }) };
  const [ended, endedElsewhere] = await Promise.all([sweepExpiredSessions(deps, NOW), sweepExpiredSessions(other, NOW)]);
  expect(ended + endedElsewhere).toBe(2);
  await projector.waitFor(await store.headPosition());
  expect((await model.sessions.findIds({})).sort()).toEqual(['a-live', 'c-live']);
  const facts = [];
  for (const user of [4, 5, 6]) facts.push(...(await store.readStream(streams.sessions(user))).filter((stored) => stored.type === 'SessionEnded').map((stored) => stored.data));
  expect(facts).toEqual([
    { type: 'SessionEnded', user_id: 4, session_hash: 'a-expired', reason: 'expired' },
    { type: 'SessionEnded', user_id: 5, session_hash: 'b-expired', reason: 'expired' },
  ]);
  await expect(sweepExpiredSessions(deps, NOW)).resolves.toBe(0);
});
