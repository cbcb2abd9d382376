/**
 * Messaging's sections of POST /register: the newest message id, unread messages
 * (Zulip's `unread_msgs`), recent direct-message conversations, topic visibility policies
 * and starred messages, from the caller's own rows (what they received or flagged).
 */
import { wantsState, type MessagingState, type StateParams, type UnreadMsgs } from '@teamchat/contracts';
import { unreadCount, type MuteState } from '../domain/unread-count';
import type { MessagesReadModel } from '../projections/messages';
import { scanPersonalPlaces, type PersonalPlace } from './personal-scan';

/** Zulip's limits: unreads beyond the newest 50,000 are reported as missing, not listed. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** Recent conversations are taken from the newest 1000 direct messages, as in Zulip. */
const RECENT_DIRECT_MESSAGES = 1000;

type Model = Pick<MessagesReadModel, 'messages' | 'personal' | 'conversationIds' | 'userTopics'>;

/** What the unread count needs besides the rows: the channels the user muted and is subscribed to. */
export interface MuteSources {
  mutedChannelIds: (userId: number) => Promise<ReadonlySet<number>>;
  subscribedChannelIds: (userId: number) => Promise<number[]>;
  /** A channel's name, for the legacy `muted_topics` (absent: that section is left out). */
  channelName?: (channelId: number) => Promise<string | undefined>;
}

async function muteState(model: Pick<Model, 'userTopics'>, sources: MuteSources | undefined, userId: number): Promise<MuteState> {
  const topics = await model.userTopics.find({ user_id: userId });
  const topic_policies = new Map(topics.map((t) => [`${t.channel_id}:${t.topic_lc}`, t.visibility_policy]));
  if (!sources) return { muted_channel_ids: new Set(), topic_policies };
  const [muted, subscribed] = await Promise.all([sources.mutedChannelIds(userId), sources.subscribedChannelIds(userId)]);
  // As Zulip: only a channel the user is subscribed to counts as muted.
  return { muted_channel_ids: new Set(subscribed.filter((id) => muted.has(id))), topic_policies };
}

const byId = (a: number, b: number) => a - b;
const participantsOf = (row: Pick<PersonalPlace, 'dm_key'>) => (row.dm_key ? row.dm_key.split(',').map(Number) : []);

export async function messagingState(model: Model, userId: number, params: StateParams, mutes?: MuteSources): Promise<MessagingState> {
  const want = (type: string) => wantsState(params, type);
  const state: MessagingState = {};
  if (want('message')) {
    const [newest] = await scanPersonalPlaces(model, userId, {}, {}, -1, 1);
    state.max_message_id = newest?.message_id ?? -1;
  }
  // Zulip sends unreads to clients that follow both new messages and flag changes.
  if (want('message') && want('update_message_flags')) state.unread_msgs = await unreadMessages(model, userId, await muteState(model, mutes, userId));
  if (want('recent_private_conversations')) state.recent_private_conversations = await recentConversations(model, userId);
  if (want('user_topic')) {
    const topics = await model.userTopics.find({ user_id: userId });
    state.user_topics = topics
      .filter((t) => t.visibility_policy !== 0)
      .sort((a, b) => a.last_updated - b.last_updated || a.channel_id - b.channel_id)
      .map((t) => ({ stream_id: t.channel_id, topic_name: t.topic, last_updated: t.last_updated, visibility_policy: t.visibility_policy }));
  }
  // Zulip's pre-6.0 form of the muted topics, [channel name, topic, date muted], which
  // zulip-terminal still reads. Only for clients naming the type: no `muted_topics` event
  // keeps it current yet (user_topic events do), so a full register leaves it out.
  if (params.fetch_event_types?.includes('muted_topics') && mutes?.channelName) {
    const muted = (await model.userTopics.find({ user_id: userId })).filter((t) => t.visibility_policy === 1).sort((a, b) => a.last_updated - b.last_updated);
    const named = await Promise.all(muted.map(async (t) => [await mutes.channelName!(t.channel_id), t.topic, t.last_updated] as const));
    state.muted_topics = named.filter((row): row is [string, string, number] => row[0] !== undefined);
  }
  if (want('starred_messages')) {
    // Only a row holds a star (personal-state.ts).
    // From the index alone: a user may have starred thousands.
    const rows = await model.personal.rows.findFields({ user_id: userId, starred: true }, ['message_id'], { sort: ['message_id', 1] });
    state.starred_messages = rows.map((r) => r.message_id as number);
  }
  return state;
}

export async function unreadMessages(
  model: Pick<Model, 'messages' | 'personal' | 'conversationIds'>,
  userId: number,
  mutes: MuteState = { muted_channel_ids: new Set(), topic_policies: new Map() },
): Promise<UnreadMsgs> {
  const newest = await scanPersonalPlaces(model, userId, { unread: true }, {}, -1, MAX_UNREAD_MESSAGES + 1);
  const missing = newest.length > MAX_UNREAD_MESSAGES;
  const rows = newest.slice(0, MAX_UNREAD_MESSAGES).reverse();
  // Topics are listed as written, which only the message has (rows keep the lower-cased
  // key); a topic takes the spelling of its oldest unread message, so only those are read
  // (a few hundred documents rather than up to 50,000).
  // By channel, then topic: no key string built per message (50,000 of them).
  const firstOfTopic = new Map<number, Map<string | null, number>>();
  for (const r of rows) {
    if (r.channel_id === null) continue;
    let topics = firstOfTopic.get(r.channel_id);
    if (!topics) firstOfTopic.set(r.channel_id, (topics = new Map()));
    if (!topics.has(r.topic_lc)) topics.set(r.topic_lc, r.message_id);
  }
  const docs = await model.messages.getMany([...firstOfTopic.values()].flatMap((topics) => [...topics.values()]));
  const topicOf = new Map(docs.map((d) => [d._id, d.recipient.type === 'channel' ? d.recipient.topic : '']));

  type TopicUnreads = { stream_id: number; topic: string; unread_message_ids: number[] };
  const streams = new Map<number, Map<string, TopicUnreads>>();
  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  for (const row of rows) {
    if (row.flags.length > 0 && (row.flags.includes('mentioned') || row.flags.includes('wildcard_mentioned'))) mentions.push(row.message_id);
    if (row.channel_id !== null) {
      let topics = streams.get(row.channel_id);
      if (!topics) streams.set(row.channel_id, (topics = new Map()));
      let entry = row.topic_lc === null ? undefined : topics.get(row.topic_lc);
      if (!entry) {
        const topic = topicOf.get(row.message_id) ?? row.topic_lc ?? '';
        const key = row.topic_lc ?? topic.toLowerCase();
        entry = topics.get(key);
        if (!entry) topics.set(key, (entry = { stream_id: row.channel_id, topic, unread_message_ids: [] }));
      }
      entry.unread_message_ids.push(row.message_id);
      continue;
    }
    const participants = participantsOf(row);
    if (participants.length <= 2) {
      // A conversation with oneself has oneself as the other user.
      const other = participants.find((id) => id !== userId) ?? userId;
      const entry = pms.get(other) ?? { other_user_id: other, sender_id: other, unread_message_ids: [] };
      entry.unread_message_ids.push(row.message_id);
      pms.set(other, entry);
    } else {
      const key = [...participants].sort(byId).join(',');
      const entry = huddles.get(key) ?? { user_ids_string: key, unread_message_ids: [] };
      entry.unread_message_ids.push(row.message_id);
      huddles.set(key, entry);
    }
  }
  return {
    count: unreadCount(rows, mutes),
    pms: [...pms.values()].sort((a, b) => a.other_user_id - b.other_user_id),
    streams: [...streams.values()].flatMap((topics) => [...topics.values()]).sort((a, b) => a.stream_id - b.stream_id || a.unread_message_ids[0]! - b.unread_message_ids[0]!),
    huddles: [...huddles.values()].sort((a, b) => a.user_ids_string.localeCompare(b.user_ids_string)),
    mentions,
    old_unreads_missing: missing,
  };
}

async function recentConversations(model: Pick<Model, 'personal'>, userId: number): Promise<NonNullable<MessagingState['recent_private_conversations']>> {
  // Every direct message a user holds has a row (personal-state.ts).
  const rows = await model.personal.rows.find({ user_id: userId, direct: true }, { sort: ['message_id', -1], limit: RECENT_DIRECT_MESSAGES });
  const conversations = new Map<string, { max_message_id: number; user_ids: number[] }>();
  for (const row of rows) {
    const key = row.dm_key ?? '';
    if (conversations.has(key)) continue;
    // Others only: a conversation with oneself has none.
    conversations.set(key, { max_message_id: row.message_id, user_ids: participantsOf(row).filter((id) => id !== userId).sort(byId) });
  }
  return [...conversations.values()];
}
