/**
 * The unread counts a client shows, read from the registration's `unread_msgs` (which the
 * reducer keeps incrementally, event by event, never refetching): per channel, per topic,
 * per direct-message conversation, and the mentions. Muted channels and topics are
 * counted apart, as Zulip's sidebar shows them (dimmed, not in the total).
 */
import type { State } from './reducer';

export interface UnreadCounts {
  /** Unmuted unread messages per channel id. */
  channels: Map<number, number>;
  /** Every unread message per channel id, muted topics included (shown for muted channels). */
  channelsAll: Map<number, number>;
  /** Per topic: key topicKey(streamId, topic). */
  topics: Map<string, number>;
  /** Per conversation: key the sorted ids of the others, joined with commas. */
  dms: Map<string, number>;
  mentions: number;
  /** Every unread id, for the feed's divider and marking read. */
  ids: Set<number>;
}

export const topicKey = (streamId: number, topic: string) => `${streamId}\u0000${topic.toLowerCase()}`;

export function isTopicMuted(state: State, streamId: number, topic: string): boolean {
  const policy = ((state.user_topics ?? []) as { stream_id: number; topic_name: string; visibility_policy: number }[]).find(
    (t) => t.stream_id === streamId && t.topic_name.toLowerCase() === topic.toLowerCase(),
  )?.visibility_policy ?? 0;
  const channelMuted = ((state.subscriptions ?? []) as { stream_id: number; is_muted: boolean }[]).some((s) => s.stream_id === streamId && s.is_muted);
  return mutedBy(channelMuted, policy);
}

const mutedBy = (channelMuted: boolean, policy: number) => (channelMuted ? policy !== 2 && policy !== 3 : policy === 1);

/**
 * isTopicMuted for many topics at once: the muted channels and the topics' policies read
 * into maps once (asking isTopicMuted of each of 10,000 unread topics scanned every
 * subscription and topic setting for each).
 */
export function topicMuting(state: State): (streamId: number, topic: string) => boolean {
  const policies = new Map<string, number>();
  for (const t of (state.user_topics ?? []) as { stream_id: number; topic_name: string; visibility_policy: number }[]) policies.set(topicKey(t.stream_id, t.topic_name), t.visibility_policy);
  const mutedChannels = new Set(((state.subscriptions ?? []) as { stream_id: number; is_muted: boolean }[]).filter((s) => s.is_muted).map((s) => s.stream_id));
  return (streamId, topic) => mutedBy(mutedChannels.has(streamId), policies.get(topicKey(streamId, topic)) ?? 0);
}

export function unreadCounts(state: State, self: number, muted = topicMuting(state)): UnreadCounts {
  const counts: UnreadCounts = { channels: new Map(), channelsAll: new Map(), topics: new Map(), dms: new Map(), mentions: 0, ids: new Set() };
  const unread = state.unread_msgs;
  if (!unread) return counts;
  const add = <K>(map: Map<K, number>, key: K, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  for (const entry of unread.streams as { stream_id: number; topic: string; unread_message_ids: number[] }[]) {
    const n = entry.unread_message_ids.length;
    for (const id of entry.unread_message_ids) counts.ids.add(id);
    add(counts.topics, topicKey(entry.stream_id, entry.topic), n);
    add(counts.channelsAll, entry.stream_id, n);
    if (!muted(entry.stream_id, entry.topic)) add(counts.channels, entry.stream_id, n);
  }
  for (const entry of unread.pms as { other_user_id: number; unread_message_ids: number[] }[]) {
    for (const id of entry.unread_message_ids) counts.ids.add(id);
    add(counts.dms, entry.other_user_id === self ? '' : String(entry.other_user_id), entry.unread_message_ids.length);
  }
  for (const entry of unread.huddles as { user_ids_string: string; unread_message_ids: number[] }[]) {
    for (const id of entry.unread_message_ids) counts.ids.add(id);
    const others = entry.user_ids_string.split(',').map(Number).filter((id) => id !== self);
    add(counts.dms, others.join(','), entry.unread_message_ids.length);
  }
  counts.mentions = (unread.mentions as number[]).length;
  return counts;
}
