/** Given facts / when command / then facts for web sessions, and the session checks. */
import { describe, expect, it } from '@jest/globals';
import type { Fact, FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  csrfTokenOf,
  decideEndSession,
  decideExpireSessions,
  decideStartSession,
  evolveSessions,
  initialSessions,
  sessionActor,
  type SessionsState,
  type StartSession,
} from '../src/domain/sessions';

const spec = <C>(decide: (state: SessionsState, cmd: C) => Fact[]) =>
  deciderSpec<SessionsState, C>({ initial: initialSessions, evolve: evolveSessions, decide: (cmd, state) => decide(state, cmd) });
const start = spec<StartSession>((state, cmd) => decideStartSession(state, cmd));
const expire = spec<{ user_id: number; now: number }>((state, cmd) => decideExpireSessions(state, cmd));
const end = spec<{ user_id: number; session_hash: string }>((state, cmd) => decideEndSession(state, cmd));

const NOW = 1_800_000_000_000;
const DAY = 24 * 3600 * 1000;
const member = { _id: 4, email: 'member@example.com', full_name: 'Mark Member', role: 400, is_bot: false, is_active: true };
const login = (overrides: Partial<StartSession> = {}): StartSession => ({ user: member, session_hash: 'h1', method: 'password', client: 'website', now: NOW, age_ms: 14 * DAY, ...overrides });
const started = (session_hash = 'h1', method: 'password' | 'dev' = 'password'): FactOf<'SessionStarted'> => ({
  type: 'SessionStarted',
  user_id: 4,
  session_hash,
  method,
  client: 'website',
  started_at: NOW,
  expires_at: NOW + 14 * DAY,
});

describe('web sessions', () => {
  it('starts a session for an active human, expiring after the session age', () => {
    start.given([]).when(login()).then([started()]);
    start.given([started('h0')]).when(login({ method: 'dev' })).then([started('h1', 'dev')]);
  });

  it('refuses a deactivated user, a bot and a repeated session hash', () => {
    start.given([]).when(login({ user: { ...member, is_active: false } })).thenThrows({ code: 'USER_DEACTIVATED' });
    start.given([]).when(login({ user: { ...member, is_bot: true } })).thenThrows({ code: 'BAD_REQUEST', msg: /Bots/ });
    start.given([started()]).when(login()).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('ends a live session on logout, once', () => {
    const ended: Fact = { type: 'SessionEnded', user_id: 4, session_hash: 'h1', reason: 'logout' };
    end.given([started()]).when({ user_id: 4, session_hash: 'h1' }).then([ended]);
    end.given([started(), ended]).when({ user_id: 4, session_hash: 'h1' }).then([]);
    end.given([started('h2')]).when({ user_id: 4, session_hash: 'h1' }).then([]);
  });

  it('the sweep ends exactly the sessions past their expiry, once, and nothing for a user without any', () => {
    const later = { ...started('h2'), started_at: NOW + DAY, expires_at: NOW + 15 * DAY };
    const ended = (session_hash: string): FactOf<'SessionEnded'> => ({ type: 'SessionEnded', user_id: 4, session_hash, reason: 'expired' });
    expire.given([started('h1'), later]).when({ user_id: 4, now: NOW + 14 * DAY - 1 }).then([]);
    expire.given([started('h1'), later]).when({ user_id: 4, now: NOW + 14 * DAY }).then([ended('h1')]);
    expire.given([started('h1'), later]).when({ user_id: 4, now: NOW + 15 * DAY }).then([ended('h1'), ended('h2')]);
    expire.given([started('h1'), ended('h1')]).when({ user_id: 4, now: NOW + 20 * DAY }).then([]);
    expire.given([started('h1'), { type: 'SessionEnded', user_id: 4, session_hash: 'h1', reason: 'logout' }]).when({ user_id: 4, now: NOW + 20 * DAY }).then([]);
    expire.given([]).when({ user_id: 4, now: NOW }).then([]);
  });

  it('lets a live session in until it expires, and only for its own active user', () => {
    const session = { user_id: 4, expires_at: NOW + 1000 };
    expect(sessionActor(session, member, NOW, 'website')).toEqual({ user_id: 4, email: 'member@example.com', full_name: 'Mark Member', role: 400, is_bot: false, client: 'website' });
    expect(() => sessionActor(session, member, NOW + 1000, 'website')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }));
    expect(() => sessionActor(undefined, member, NOW, 'website')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(() => sessionActor(session, { ...member, _id: 5 }, NOW, 'website')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(() => sessionActor(session, { ...member, is_active: false }, NOW, 'website')).toThrow(expect.objectContaining({ code: 'USER_DEACTIVATED' }));
  });

  it("derives each session's CSRF token from the server secret: stable, different per session and per secret", () => {
    const token = csrfTokenOf('secret', 'h1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenOf('secret', 'h1')).toBe(token);
    expect(csrfTokenOf('secret', 'h2')).not.toBe(token);
    expect(csrfTokenOf('other secret', 'h1')).not.toBe(token);
  });
});
