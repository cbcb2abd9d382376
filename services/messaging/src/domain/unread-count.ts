/**
 * Zulip's unread count (register's `unread_msgs.count`): every unread direct message,
 * and the unread channel messages that are not muted. A channel message is muted when its
 * channel is muted (a subscribed channel with `is_muted`) unless its topic is unmuted or
 * followed, or when its topic is muted in a channel that is not.
 */
import { VISIBILITY_POLICY } from '@teamchat/contracts';

export interface UnreadPlace {
  /** Null for a direct message. */
  channel_id: number | null;
  topic_lc: string | null;
}

export interface MuteState {
  /** Channels the user is subscribed to and muted. */
  muted_channel_ids: ReadonlySet<number>;
  /** The user's topic visibility policy, by `${channel_id}:${topic_lc}` (absent: inherit). */
  topic_policies: ReadonlyMap<string, number>;
}

export function isMutedUnread(place: UnreadPlace, mutes: MuteState): boolean {
  if (place.channel_id === null) return false;
  const policy = mutes.topic_policies.get(`${place.channel_id}:${place.topic_lc ?? ''}`) ?? VISIBILITY_POLICY.inherit;
  if (mutes.muted_channel_ids.has(place.channel_id)) return policy !== VISIBILITY_POLICY.unmuted && policy !== VISIBILITY_POLICY.followed;
  return policy === VISIBILITY_POLICY.muted;
}

export const unreadCount = (places: readonly UnreadPlace[], mutes: MuteState): number =>
  // Nothing muted (as for most users): no policy to look up for each of up to 50,000 places.
  mutes.muted_channel_ids.size === 0 && mutes.topic_policies.size === 0 ? places.length : places.filter((place) => !isMutedUnread(place, mutes)).length;
