/**
 * Who each Authorization header authenticated as, so that most requests skip the round
 * trip to accounts (a bus request and a key hash: about a quarter of what a trivial
 * authenticated call costs).
 *
 * Accounts publishes ActorChanged when a user's actor or their right to authenticate
 * changes; the cache then forgets that user. An answer from accounts older than the
 * newest change it heard of is not cached: it may have crossed the notice on the bus.
 * The bus delivers a notice before the reply to the request that caused it (one
 * publisher, in order), so the next request after a deactivation is refused. Entries
 * also expire, in case a notice is lost (NATS core delivers at most once).
 */
import type { Actor, ActorChanged } from '@teamchat/contracts';
import { LRUCache } from 'lru-cache';

/** An actor without the client name, which each request's User-Agent gives. */
export type Identity = Omit<Actor, 'client'>;

interface Entry {
  identity: Identity;
  /** The accounts read model's position the answer held at. */
  position: number;
  /** A web session's (keyed by `session:` and its hash): its CSRF token and end. */
  session?: WebSession;
}

/** What a web session is besides its user: checked on every `/json/…` request. */
export interface WebSession {
  csrf_token: string;
  /** Milliseconds since the epoch: from then on the session is refused, cached or not. */
  expires_at: number;
}

export interface CredentialsCacheOptions {
  max?: number;
  ttlMs?: number;
}

export class CredentialsCache {
  private readonly entries: LRUCache<string, Entry>;
  /** Per user, the position of the newest change heard of. */
  private readonly changedAt = new Map<number, number>();
  private newest: number | undefined;

  constructor(options: CredentialsCacheOptions = {}) {
    this.entries = new LRUCache<string, Entry>({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 60_000 });
  }

  get(authorization: string): Identity | undefined {
    return this.entries.get(authorization)?.identity;
  }

  /** A web session's entry, unless it has expired since it was cached. */
  getSession(key: string, now: number): (WebSession & { identity: Identity }) | undefined {
    const entry = this.entries.get(key);
    if (!entry?.session) return undefined;
    if (entry.session.expires_at <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return { identity: entry.identity, ...entry.session };
  }

  rememberSession(key: string, actor: Actor, position: number | undefined, session: WebSession): void {
    if (position === undefined || position < (this.changedAt.get(actor.user_id) ?? 0)) return;
    const { client: _perRequest, ...identity } = actor;
    this.entries.set(key, { identity, position, session });
  }

  /** A logout through this gateway: its own entry goes at once (the notice follows). */
  drop(key: string): void {
    this.entries.delete(key);
  }

  /** The caller of one request: the cached identity and the request's client name. */
  static actorOf(identity: Identity, client: string): Actor {
    // Written out member by member, not as `{ ...identity, client }`: V8 gives each object
    // spread from an identity a hidden class of its own (the identity itself comes from an
    // object rest), so every request allocated one, kept it until a full collection, and
    // left every property read of an actor megamorphic. A literal shares one class.
    return { user_id: identity.user_id, email: identity.email, full_name: identity.full_name, role: identity.role, is_bot: identity.is_bot, client };
  }

  /** Keeps what accounts answered at `position`, unless a newer change was heard of. */
  remember(authorization: string, actor: Actor, position: number | undefined): void {
    if (position === undefined || position < (this.changedAt.get(actor.user_id) ?? 0)) return;
    const { client: _perRequest, ...identity } = actor;
    this.entries.set(authorization, { identity, position });
  }

  /**
   * The position accounts must have reached before it authenticates anyone: the newest
   * change heard of (whose user an uncached header does not name).
   */
  get newestChange(): number | undefined {
    return this.newest;
  }

  forget({ user_id, position }: ActorChanged): void {
    if (position > (this.changedAt.get(user_id) ?? 0)) this.changedAt.set(user_id, position);
    if (position > (this.newest ?? 0)) this.newest = position;
    for (const [key, entry] of this.entries.entries()) {
      if (entry.identity.user_id === user_id) this.entries.delete(key);
    }
  }
}
