/**
 * Live web sessions, by hash: what `/json/…` requests authenticate against. A session
 * leaves it on logout, with its user's deactivation, and with a new password (all the
 * user's sessions but the one the password was changed from), and when the sweep ends it
 * past its expiry (refused by `expires_at` from that instant, whenever the sweep runs).
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface SessionDoc extends Doc {
  /** The SHA-256 of the cookie's value (base64url): never the cookie itself. */
  _id: string;
  user_id: number;
  started_at: number;
  expires_at: number;
}

export class SessionsReadModel {
  readonly sessions: Collection<SessionDoc>;

  constructor(readModels: ReadModelStore) {
    this.sessions = readModels.collection<SessionDoc>('web_sessions', [{ fields: ['user_id'] }, { fields: ['expires_at'] }]);
  }

  private async endAll(userId: number, kept?: string): Promise<void> {
    for (const id of await this.sessions.findIds({ user_id: userId })) {
      if (id !== kept) await this.sessions.delete(id);
    }
  }

  readonly handlers = {
    SessionStarted: (fact) => this.sessions.put({ _id: fact.session_hash, user_id: fact.user_id, started_at: fact.started_at, expires_at: fact.expires_at }),
    SessionEnded: (fact) => this.sessions.delete(fact.session_hash),
    UserDeactivated: (fact) => this.endAll(fact.user_id),
    UserPasswordSet: (fact) => this.endAll(fact.user_id, fact.kept_session_hash),
  } satisfies FactHandlers;

  /** Sessions past their expiry at `now`, soonest expired first. */
  expiredBy(now: number, limit: number): Promise<SessionDoc[]> {
    return this.sessions.find({ expires_at: { $lte: now } }, { sort: ['expires_at', 1], limit });
  }

  get(sessionHash: string): Promise<SessionDoc | undefined> {
    return this.sessions.get(sessionHash);
  }
}
