/**
 * The presence endpoints over this instance's PresenceBook, and who hears of a change.
 * The directory resolves users (emails, bots, deactivated users); presence itself is
 * never stored.
 */
import {
  badRequest,
  type Actor,
  type ClientEvent,
  type LegacyUserPresence,
  type ModernUserPresence,
  type PresencesReply,
  type UpdatePresenceParams,
} from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import {
  legacyPresence,
  modernPresence,
  parseStatus,
  singleUserPresence,
  type PresenceBook,
  type PresenceReport,
  type UserPresence,
} from '../domain/presence';
import type { Delivery } from '../projections/fan-out';

export interface PresenceDeps {
  book: PresenceBook;
  directory: Directory;
  deliver: (delivery: Delivery) => void;
  now?: () => number;
  /** Hands a report this instance took to the other events instances (absent when it is the only one). */
  share?: (report: PresenceReport) => void;
}

/**
 * Whether a user shares their presence: Zulip's `presence_enabled` setting (invisible
 * mode when off), which does not exist yet. The settings work fills this in; a user
 * who does not share it is neither recorded nor announced.
 */
export function sharesPresence(_actor: Pick<Actor, 'user_id'>): boolean {
  return true;
}

const nowSeconds = (deps: PresenceDeps) => Math.floor((deps.now?.() ?? Date.now()) / 1000);

/** Whose presence a caller may list: active humans (bots never report presence). */
async function visiblePresences(deps: PresenceDeps, historyLimitDays: number | undefined, now: number): Promise<UserPresence[]> {
  const all = [...deps.book.all()];
  const users = new Map((await deps.directory.usersByIds(all.map((p) => p.user_id))).map((u) => [u._id, u]));
  const since = historyLimitDays === undefined ? -Infinity : now - historyLimitDays * 86400;
  return all.filter((p) => {
    const user = users.get(p.user_id);
    return user !== undefined && user.is_active && !user.is_bot && p.last_connected >= since;
  });
}

export async function presencesReply(
  deps: PresenceDeps,
  options: { slim: boolean; last_update_id?: number; history_limit_days?: number },
): Promise<PresencesReply> {
  const now = nowSeconds(deps);
  const presences: Record<string, ModernUserPresence | LegacyUserPresence> = {};
  // Zulip answers a client that names a last_update_id in the modern format, with only what changed since.
  const modern = options.slim || options.last_update_id !== undefined;
  const after = options.last_update_id ?? -1;
  for (const p of await visiblePresences(deps, options.history_limit_days, now)) {
    if (modern) {
      if (p.last_update_id > after) presences[String(p.user_id)] = modernPresence(p);
    } else presences[p.email] = legacyPresence(p);
  }
  return { presences, server_timestamp: Date.now() / 1000, presence_last_update_id: deps.book.presenceLastUpdateId };
}

export async function updatePresence(deps: PresenceDeps, actor: Actor, params: UpdatePresenceParams): Promise<Partial<PresencesReply>> {
  if (actor.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  const status = parseStatus(params.status);
  if (sharesPresence(actor)) {
    const report = { user_id: actor.user_id, email: actor.email, client: actor.client, status, nowSeconds: nowSeconds(deps) };
    await recordPresence(deps, report);
    deps.share?.(report);
  }
  if (params.ping_only) return {};
  return presencesReply(deps, { slim: params.slim_presence ?? false, last_update_id: params.last_update_id, history_limit_days: params.history_limit_days });
}

/** Records a report, taken here or by another events instance, and tells this instance's queues when it is news. */
export async function recordPresence(deps: PresenceDeps, report: PresenceReport): Promise<void> {
  const { announce, presence } = deps.book.report(report);
  if (announce) await announcePresence(deps, presence, report.client);
}

/** A presence event to every other active user's queues, in the form each queue asked for. */
async function announcePresence(deps: PresenceDeps, p: UserPresence, client: string): Promise<void> {
  const others = (await deps.directory.activeUsers()).filter((u) => u._id !== p.user_id).map((u) => u._id);
  const report = p.clients.get(client)!;
  const legacy: ClientEvent = {
    type: 'presence',
    user_id: p.user_id,
    email: p.email,
    server_timestamp: Date.now() / 1000,
    presence: { [client]: { client, status: report.status, timestamp: report.timestamp, pushable: false } },
  };
  const simplified: ClientEvent = { type: 'presence', presences: { [String(p.user_id)]: modernPresence(p) } };
  deps.deliver({ user_ids: others, eventFor: (queue) => (queue.options.simplified_presence_events ? simplified : legacy) });
}

async function resolveUser(deps: PresenceDeps, idOrEmail: string): Promise<UserDoc> {
  const user = /^\d+$/.test(idOrEmail) ? await deps.directory.userById(Number(idOrEmail)) : await deps.directory.userByEmail(idOrEmail);
  if (!user || !user.is_active) throw badRequest('No such user');
  return user;
}

export async function getUserPresence(deps: PresenceDeps, idOrEmail: string): Promise<{ presence: LegacyUserPresence }> {
  const user = await resolveUser(deps, idOrEmail);
  if (user.is_bot) throw badRequest('Presence is not supported for bot users.');
  const presence = deps.book.get(user._id);
  if (!presence) throw badRequest(`No presence data for ${idOrEmail}`);
  return { presence: singleUserPresence(presence, nowSeconds(deps)) };
}

/**
 * What POST /register can put in its `presences` state section (slim_presence chooses
 * the format), so that a queue starts with what its client would otherwise poll for.
 */
export function presencesForRegister(deps: PresenceDeps, slim: boolean): Promise<PresencesReply> {
  return presencesReply(deps, { slim });
}
