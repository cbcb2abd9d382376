/**
 * POST and DELETE /users/me/muted_users/{muted_user_id}: who may be named comes from the
 * directory, the decision from the user's own mute stream. Muting also marks the muter's
 * unread messages from that user as read, as Zulip does: from then on they are never
 * unread for the muter (new ones arrive read, see send-message.ts).
 */
import { isSystemBotId, streams, type Actor } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { AggregateRepository } from '@teamchat/platform';
import { decideMute, decideUnmute, type MutedUsersState } from '../domain/muted-users';
import { scanPersonalPlaces } from '../queries/personal-scan';
import { updateFlags, type ChangeDeps } from './message-changes';

export interface MutedUsersDeps {
  directory: Pick<Directory, 'userById'>;
  mutedUserStreams: AggregateRepository<MutedUsersState>;
  /** For marking the muted user's messages read. */
  changes: ChangeDeps;
}

/** Any user of the organization (bots and deactivated users too) or a system bot, as Zulip lets one mute. */
async function exists(deps: MutedUsersDeps, userId: number): Promise<boolean> {
  return isSystemBotId(userId) || (await deps.directory.userById(userId)) !== undefined;
}

export async function muteUser(deps: MutedUsersDeps, actor: Actor, mutedUserId: number): Promise<number | undefined> {
  const target_exists = await exists(deps, mutedUserId);
  const { append } = await deps.mutedUserStreams.execute(streams.mutedUsers(actor.user_id), (state) => ({
    facts: decideMute(state, { user_id: actor.user_id, muted_user_id: mutedUserId, target_exists, now: Date.now() }),
    result: undefined,
  }));
  const muted = append?.positions.at(-1);
  // After the mute, so that a message sent meanwhile is either read at send time or here.
  if (muted !== undefined) await deps.changes.caughtUp(muted);
  const unread = await scanPersonalPlaces(deps.changes.model, actor.user_id, { unread: true, sender_id: mutedUserId }, {}, 1, Number.POSITIVE_INFINITY);
  if (unread.length === 0) return muted;
  const { position } = await updateFlags(deps.changes, actor, { messages: unread.map((r) => r.message_id), op: 'add', flag: 'read' }, false);
  return position ?? muted;
}

export async function unmuteUser(deps: MutedUsersDeps, actor: Actor, mutedUserId: number): Promise<number | undefined> {
  const target_exists = await exists(deps, mutedUserId);
  const { append } = await deps.mutedUserStreams.execute(streams.mutedUsers(actor.user_id), (state) => ({
    facts: decideUnmute(state, { user_id: actor.user_id, muted_user_id: mutedUserId, target_exists }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}
