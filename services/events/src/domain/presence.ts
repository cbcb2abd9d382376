/**
 * Presence, as Zulip keeps it: per user the last time any client reported them active
 * and the last time any client was connected, plus each client's own last report (for
 * the legacy format). Ephemeral: kept in the events service's memory, never stored as
 * facts, lost on restart (clients report again within a minute). Pure apart from the
 * state it holds: the clock comes in with every call.
 */
import { badRequest, type LegacyClientPresence, type LegacyUserPresence, type ModernUserPresence } from '@teamchat/contracts';

export type PresenceStatus = 'active' | 'idle';

/** Zulip's OFFLINE_THRESHOLD_SECS: a user whose clients were silent this long is offline. */
export const OFFLINE_THRESHOLD_SECONDS = 140;

/** Client names come from the User-Agent, which the caller chooses: keep only the latest few. */
export const MAX_CLIENTS_PER_USER = 8;

export interface UserPresence {
  user_id: number;
  email: string;
  /** Seconds; null until a client reports the user active. */
  last_active: number | null;
  last_connected: number;
  /** The book's sequence number of this user's last change (Zulip's last_update_id). */
  last_update_id: number;
  clients: Map<string, { status: PresenceStatus; timestamp: number }>;
}

export function parseStatus(status: string): PresenceStatus {
  if (status !== 'active' && status !== 'idle') throw badRequest(`Invalid status: ${status}`, { var_name: 'status' });
  return status;
}

export interface PresenceReport {
  user_id: number;
  email: string;
  client: string;
  status: PresenceStatus;
  nowSeconds: number;
}

export class PresenceBook {
  private readonly users = new Map<number, UserPresence>();
  private lastUpdateId = 0;

  get presenceLastUpdateId(): number {
    return this.lastUpdateId;
  }

  get(userId: number): UserPresence | undefined {
    return this.users.get(userId);
  }

  all(): IterableIterator<UserPresence> {
    return this.users.values();
  }

  /**
   * Records a report and says whether others should hear of it: as in Zulip, only when
   * the user is seen for the first time or comes back online or active, not at every ping.
   */
  report(r: PresenceReport): { announce: boolean; presence: UserPresence } {
    const now = r.nowSeconds;
    const before = this.users.get(r.user_id);
    const presence: UserPresence = before ?? {
      user_id: r.user_id,
      email: r.email,
      last_active: null,
      last_connected: now,
      last_update_id: 0,
      clients: new Map(),
    };
    const wasOffline = !before || now - before.last_connected > OFFLINE_THRESHOLD_SECONDS;
    const wasIdle = presence.last_active === null || now - presence.last_active > OFFLINE_THRESHOLD_SECONDS;
    const prev = { active: presence.last_active, connected: presence.last_connected };
    presence.email = r.email;
    presence.last_connected = Math.max(presence.last_connected, now);
    if (r.status === 'active') presence.last_active = Math.max(presence.last_active ?? 0, now);
    presence.clients.delete(r.client);
    presence.clients.set(r.client, { status: r.status, timestamp: now });
    // Insertion order is report order, so the first entry is the least recently heard.
    if (presence.clients.size > MAX_CLIENTS_PER_USER) presence.clients.delete(presence.clients.keys().next().value!);
    const changed = !before || prev.active !== presence.last_active || prev.connected !== presence.last_connected;
    if (changed) presence.last_update_id = ++this.lastUpdateId;
    this.users.set(r.user_id, presence);
    return { announce: !before || (r.status === 'active' && (wasOffline || wasIdle)), presence };
  }
}

export function modernPresence(p: UserPresence): ModernUserPresence {
  // A user never reported active has no active time; 0 reads as "long ago" to clients.
  return { active_timestamp: p.last_active ?? 0, idle_timestamp: p.last_connected };
}

/**
 * The legacy format: each client's last report, and `aggregated`, the most telling of
 * them (the latest active report that is not stale next to the latest report, else the
 * latest report).
 */
export function legacyPresence(p: UserPresence): LegacyUserPresence {
  const result: LegacyUserPresence = {};
  let latest: [string, { status: PresenceStatus; timestamp: number }] | undefined;
  let latestActive: typeof latest;
  for (const entry of p.clients) {
    const [client, info] = entry;
    result[client] = { client, status: info.status, timestamp: info.timestamp, pushable: false };
    if (!latest || info.timestamp > latest[1].timestamp) latest = entry;
    if (info.status === 'active' && (!latestActive || info.timestamp > latestActive[1].timestamp)) latestActive = entry;
  }
  const chosen = latestActive && latest && latest[1].timestamp - latestActive[1].timestamp <= OFFLINE_THRESHOLD_SECONDS ? latestActive : latest;
  if (chosen) result.aggregated = { client: chosen[0], status: chosen[1].status, timestamp: chosen[1].timestamp };
  return result;
}

/** GET /users/{id}/presence: the legacy format without client names, `offline` once stale. */
export function singleUserPresence(p: UserPresence, nowSeconds: number): LegacyUserPresence {
  const legacy = legacyPresence(p);
  const result: LegacyUserPresence = {};
  for (const [key, value] of Object.entries(legacy)) {
    const entry: LegacyClientPresence = { status: value.status, timestamp: value.timestamp };
    if (key === 'aggregated' && nowSeconds - value.timestamp > OFFLINE_THRESHOLD_SECONDS) entry.status = 'offline';
    result[key] = entry;
  }
  return result;
}
