/**
 * Messaging's sections of POST /register: the newest message id, unread messages
 * (Zulip's `unread_msgs`), recent direct-message conversations, topic visibility policies
 * and starred messages, from the caller's own rows (what they received or flagged).
 */
import { wantsState, type MessagingState, type StateParams } from '@teamchat/contracts';
import type { MuteState } from '../domain/unread-count';
import type { MessagesReadModel } from '../projections/messages';
import { participantsOfKey } from '../projections/message-docs';
import { scanPersonalPlaces } from './personal-scan';
import { unreadMessages } from './unread-messages';

/** Recent conversations are taken from the newest 1000 direct messages, as in Zulip. */
const RECENT_DIRECT_MESSAGES = 1000;

type Model = Pick<MessagesReadModel, 'messages' | 'personal' | 'conversationIds' | 'places' | 'userTopics'>;

/** What the unread count needs besides the rows: the channels the user muted and is subscribed to. */
export interface MuteSources {
  mutedChannelIds: (userId: number) => Promise<ReadonlySet<number>>;
  subscribedChannelIds: (userId: number) => Promise<number[]>;
  /** A channel's name, for the legacy `muted_topics` (absent: that section is left out). */
  channelName?: (channelId: number) => Promise<string | undefined>;
}

type UserTopics = Awaited<ReturnType<Model['userTopics']['find']>>;

async function muteState(topics: UserTopics, sources: MuteSources | undefined, userId: number): Promise<MuteState> {
  const topic_policies = new Map(topics.map((t) => [`${t.channel_id}:${t.topic_lc}`, t.visibility_policy]));
  if (!sources) return { muted_channel_ids: new Set(), topic_policies };
  const [muted, subscribed] = await Promise.all([sources.mutedChannelIds(userId), sources.subscribedChannelIds(userId)]);
  // As Zulip: only a channel the user is subscribed to counts as muted.
  return { muted_channel_ids: new Set(subscribed.filter((id) => muted.has(id))), topic_policies };
}

const byId = (a: number, b: number) => a - b;

export async function messagingState(model: Model, userId: number, params: StateParams, mutes?: MuteSources): Promise<MessagingState> {
  const want = (type: string) => wantsState(params, type);
  const state: MessagingState = {};
  // Read once for the three sections that use them (a user may have thousands).
  let topics: UserTopics | undefined;
  const userTopics = async () => (topics ??= await model.userTopics.find({ user_id: userId }));
  if (want('message')) {
    const [newest] = await scanPersonalPlaces(model, userId, {}, {}, -1, 1);
    state.max_message_id = newest?.message_id ?? -1;
  }
  // Zulip sends unreads to clients that follow both new messages and flag changes.
  if (want('message') && want('update_message_flags')) state.unread_msgs = await unreadMessages(model, userId, await muteState(await userTopics(), mutes, userId));
  if (want('recent_private_conversations')) state.recent_private_conversations = await recentConversations(model, userId);
  if (want('user_topic')) {
    state.user_topics = (await userTopics())
      .filter((t) => t.visibility_policy !== 0)
      .sort((a, b) => a.last_updated - b.last_updated || a.channel_id - b.channel_id)
      .map((t) => ({ stream_id: t.channel_id, topic_name: t.topic, last_updated: t.last_updated, visibility_policy: t.visibility_policy }));
  }
  // Zulip's pre-6.0 form of the muted topics, [channel name, topic, date muted], which
  // zulip-terminal still reads. Only for clients naming the type: no `muted_topics` event
  // keeps it current yet (user_topic events do), so a full register leaves it out.
  if (params.fetch_event_types?.includes('muted_topics') && mutes?.channelName) {
    const muted = (await userTopics()).filter((t) => t.visibility_policy === 1).sort((a, b) => a.last_updated - b.last_updated);
    const named = await Promise.all(muted.map(async (t) => [await mutes.channelName!(t.channel_id), t.topic, t.last_updated] as const));
    state.muted_topics = named.filter((row): row is [string, string, number] => row[0] !== undefined);
  }
  if (want('starred_messages')) {
    // Only a row holds a star (personal-state.ts).
    // From the index alone: a user may have starred thousands.
    const [ids] = await model.personal.rows.findColumns({ user_id: userId, starred: true }, ['message_id'], { sort: ['message_id', 1] });
    state.starred_messages = ids as number[];
  }
  return state;
}

async function recentConversations(model: Pick<Model, 'personal'>, userId: number): Promise<NonNullable<MessagingState['recent_private_conversations']>> {
  // Every direct message a user holds has a row (personal-state.ts); the two fields from
  // the indexes, not the rows' documents.
  const [ids, keys] = await model.personal.rows.findColumns({ user_id: userId, direct: true }, ['message_id', 'dm_key'], {
    sort: ['message_id', -1],
    sortDistinct: true,
    limit: RECENT_DIRECT_MESSAGES,
  });
  const conversations = new Map<string, { max_message_id: number; user_ids: number[] }>();
  ids!.forEach((id, i) => {
    const dm_key = keys![i] as string | null;
    const key = dm_key ?? '';
    if (conversations.has(key)) return;
    // Others only: a conversation with oneself has none.
    conversations.set(key, { max_message_id: id as number, user_ids: participantsOfKey(dm_key).filter((other) => other !== userId).sort(byId) });
  });
  return [...conversations.values()];
}
