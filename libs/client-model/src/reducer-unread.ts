/**
 * The registration's unread_msgs as the reducer keeps them (reducer.ts): grouped as Zulip
 * groups them, channel messages by channel and topic, direct messages by the other user
 * or by everyone's ids in a group conversation, with the mentions and the count beside them.
 */
import { type Event, sortedIds, type State } from './reducer-shared';

/** Where an unread message is counted: its conversation, as unread_msgs groups them. */
export interface UnreadPlace {
  kind: 'stream' | 'pm' | 'huddle';
  key: string;
}

export function unreadPlaceOf(message: Event, self: number): UnreadPlace {
  if (message.type === 'stream') return { kind: 'stream', key: JSON.stringify([message.stream_id, message.subject]) };
  const others = (message.display_recipient as { id: number }[]).map((u) => u.id).filter((id) => id !== self);
  if (others.length <= 1) return { kind: 'pm', key: String(others[0] ?? self) };
  return { kind: 'huddle', key: sortedIds([...others, self]).join(',') };
}

export function addUnread(state: State, message: Event, self: number, flags: string[]): void {
  const unread = state.unread_msgs;
  const place = unreadPlaceOf(message, self);
  addToPlace(unread, place, message.id, message);
  if (flags.includes('mentioned') || flags.includes('wildcard_mentioned') || flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
    unread.mentions = sortedIds([...unread.mentions, message.id]);
  }
}

export function addUnreadFromDetails(state: State, id: number, details: Event, self: number): void {
  const message =
    details.type === 'stream'
      ? { type: 'stream', stream_id: details.stream_id, subject: details.topic }
      : { type: 'private', display_recipient: (details.user_ids as number[]).map((uid) => ({ id: uid })) };
  addToPlace(state.unread_msgs, unreadPlaceOf(message, self), id, message);
  if (details.mentioned) state.unread_msgs.mentions = sortedIds([...state.unread_msgs.mentions, id]);
}

function addToPlace(unread: Event, place: UnreadPlace, id: number, message: Event): void {
  if (place.kind === 'stream') {
    const entry = unread.streams.find((s: Event) => s.stream_id === message.stream_id && s.topic === message.subject);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    else unread.streams.push({ stream_id: message.stream_id, topic: message.subject, unread_message_ids: [id] });
  } else if (place.kind === 'pm') {
    const other = Number(place.key);
    const entry = unread.pms.find((p: Event) => p.other_user_id === other);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    // sender_id: the older name of other_user_id, which clients still read.
    else unread.pms.push({ other_user_id: other, sender_id: other, unread_message_ids: [id] });
  } else {
    const entry = unread.huddles.find((h: Event) => h.user_ids_string === place.key);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    else unread.huddles.push({ user_ids_string: place.key, unread_message_ids: [id] });
  }
}

export function removeUnreads(state: State, ids: Set<number>): void {
  const unread = state.unread_msgs;
  for (const key of ['streams', 'pms', 'huddles']) {
    for (const entry of unread[key]) entry.unread_message_ids = entry.unread_message_ids.filter((id: number) => !ids.has(id));
    unread[key] = unread[key].filter((entry: Event) => entry.unread_message_ids.length > 0);
  }
  unread.mentions = unread.mentions.filter((id: number) => !ids.has(id));
}

/** Messages moved to another channel or topic take their unread entries with them. */
export function moveUnreads(state: State, event: Event): void {
  if (!('unread_msgs' in state)) return;
  const moved = new Set<number>(event.message_ids);
  const unread = state.unread_msgs;
  const taken = unread.streams.flatMap((s: Event) => s.unread_message_ids.filter((id: number) => moved.has(id)));
  if (taken.length === 0) return;
  for (const entry of unread.streams) entry.unread_message_ids = entry.unread_message_ids.filter((id: number) => !moved.has(id));
  unread.streams = unread.streams.filter((entry: Event) => entry.unread_message_ids.length > 0);
  const target = { type: 'stream', stream_id: event.new_stream_id ?? event.stream_id, subject: event.subject ?? event.orig_subject };
  for (const id of taken) addToPlace(unread, { kind: 'stream', key: '' }, id, target);
}

/**
 * As Zulip counts: every unread direct message, and channel messages unless muted — in a
 * muted channel (one subscribed to with is_muted) whose topic is not unmuted or followed,
 * or in a muted topic of a channel that is not muted.
 */
export function countUnreads(state: State): number {
  const unread = state.unread_msgs;
  const mutedChannels = new Set(((state.subscriptions ?? []) as Event[]).filter((s) => s.is_muted).map((s) => s.stream_id as number));
  const policies = new Map(((state.user_topics ?? []) as Event[]).map((t) => [`${t.stream_id}:${String(t.topic_name).toLowerCase()}`, t.visibility_policy as number]));
  const muted = (entry: Event) => {
    const policy = policies.get(`${entry.stream_id}:${String(entry.topic).toLowerCase()}`) ?? 0;
    return mutedChannels.has(entry.stream_id) ? policy !== 2 && policy !== 3 : policy === 1;
  };
  const direct = ['pms', 'huddles'].reduce((sum, key) => sum + unread[key].reduce((n: number, e: Event) => n + e.unread_message_ids.length, 0), 0);
  return direct + unread.streams.filter((e: Event) => !muted(e)).reduce((n: number, e: Event) => n + e.unread_message_ids.length, 0);
}

