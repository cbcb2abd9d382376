/**
 * Messaging's projection: what each fact does to the read model. Every write is a whole
 * document keyed by the fact's subject and computed from the fact and the current
 * document, so replaying a fact changes nothing.
 */
import { widgetSubmessage, type EditHistoryEntry, type FactOf, type MessageReaction } from '@teamchat/contracts';
import type { FactHandlers, StoredFact } from '@teamchat/platform';
import { dmKey, userTopicId, type MessageDoc } from './message-docs';
import type { MessagesReadModel } from './messages';
import { movesReceipts } from './personal-state';
import { conversationKeysOf } from './recent-ids';
import { messageTextFeatures, withoutResolvedPrefix, withTextFeatures } from './text-features';

/** The projection's cases, by fact type: what the projector subscribes to. */
export function messagesProjection(model: MessagesReadModel): FactHandlers {
  const handlers: FactHandlers = {
    MessageSent: (fact, stored) => sent(model, fact, stored),
    ReactionAdded: (fact) => reaction(model, fact),
    ReactionRemoved: (fact) => reaction(model, fact),
    SubmessageAdded: (fact, stored) => submessage(model, fact, stored),
    MessageFlagsUpdated: (fact) => model.personal.flags(fact),
    MessageEdited: (fact) => edited(model, fact),
    MessageDeleted: (fact) => deleted(model, fact),
    UserTopicUpdated: async (fact) => {
      await model.userTopics.put({
        _id: userTopicId(fact.user_id, fact.channel_id, fact.topic),
        user_id: fact.user_id,
        channel_id: fact.channel_id,
        topic: fact.topic,
        topic_lc: fact.topic.toLowerCase(),
        visibility_policy: fact.visibility_policy,
        last_updated: fact.last_updated,
      });
    },
  };
  return handlers;
}

async function sent(model: MessagesReadModel, fact: FactOf<'MessageSent'>, stored: StoredFact): Promise<void> {
  const id = stored.position;
  const channel = fact.recipient.type === 'channel' ? fact.recipient : null;
  const narrowKeys = {
    channel_id: channel?.channel_id ?? null,
    topic_lc: channel ? channel.topic.toLowerCase() : null,
    dm_key: fact.recipient.type === 'direct' ? dmKey(fact.recipient.users.map((u) => u.id)) : null,
  };
  const features = messageTextFeatures(fact.rendered_content, channel?.topic ?? null);
  const message: MessageDoc = {
    _id: id,
    stream: stored.stream,
    sender_id: fact.sender_id,
    sender_email: fact.sender_email,
    sender_full_name: fact.sender_full_name,
    recipient: fact.recipient,
    ...narrowKeys,
    recipient_id: fact.recipient_id,
    content: fact.content,
    rendered_content: fact.rendered_content,
    client: fact.client,
    timestamp: fact.timestamp,
    is_me_message: fact.is_me_message,
    reactions: [],
    submessages: fact.widget ? [widgetSubmessage(id, fact.sender_id, fact.widget)] : [],
    edit_history: [],
    last_edit_timestamp: null,
    last_moved_timestamp: null,
    ...(fact.topic_links?.length ? { topic_links: fact.topic_links } : {}),
    ...features,
  };
  // Before the document: places that read it find its topic's spelling too.
  if (channel) await model.spellings.joined(channel.channel_id, channel.topic);
  await model.messages.put(message);
  await model.personal.sent(fact, message);
  model.recent.remember({ _id: id, ...narrowKeys });
  model.places.remember({ _id: id, ...narrowKeys, ...(channel ? { topic: channel.topic } : {}) });
}

async function reaction(model: MessagesReadModel, fact: FactOf<'ReactionAdded' | 'ReactionRemoved'>): Promise<void> {
  const message = await model.messages.get(fact.message_id);
  if (!message) return;
  const same = (r: MessageReaction) =>
    r.user_id === fact.user_id && r.emoji_code === fact.emoji_code && r.reaction_type === fact.reaction_type;
  const others = message.reactions.filter((r) => !same(r));
  const reactions =
    fact.type === 'ReactionAdded'
      ? [...others, { emoji_name: fact.emoji_name, emoji_code: fact.emoji_code, reaction_type: fact.reaction_type, user_id: fact.user_id }]
      : others;
  await model.messages.put({ ...message, reactions });
}

/** A submessage takes its fact's position as its id; one already there (a replay) is not added twice. */
async function submessage(model: MessagesReadModel, fact: FactOf<'SubmessageAdded'>, stored: StoredFact): Promise<void> {
  const message = await model.messages.get(fact.message_id);
  if (!message) return;
  const submessages = message.submessages ?? [];
  if (submessages.some((s) => s.id === stored.position)) return;
  const added = { id: stored.position, message_id: fact.message_id, sender_id: fact.sender_id, msg_type: fact.msg_type, content: fact.content };
  await model.messages.put({ ...message, submessages: [...submessages, added] });
}

async function edited(model: MessagesReadModel, fact: FactOf<'MessageEdited'>): Promise<void> {
  if (fact.move) {
    const { prev_channel_id, prev_topic, channel_id, topic } = fact.move;
    model.recent.forget([
      ...conversationKeysOf({ channel_id: prev_channel_id, topic_lc: prev_topic.toLowerCase(), dm_key: null }),
      ...conversationKeysOf({ channel_id, topic_lc: topic.toLowerCase(), dm_key: null }),
    ]);
  }
  if (fact.move) {
    await model.personal.beforeMove(fact.move);
    // Every message moved takes the move's topic, spelled as it is (see moved()).
    await model.spellings.joined(fact.move.channel_id, fact.move.topic);
  }
  const message = await model.messages.get(fact.message_id);
  if (!message) return;
  if (fact.content) {
    const entry: EditHistoryEntry = {
      user_id: fact.editor_id,
      timestamp: fact.timestamp,
      prev_content: fact.content.prev_content,
      prev_rendered_content: fact.content.prev_rendered_content,
    };
    if (fact.move && fact.move.message_ids.includes(message._id)) Object.assign(entry, moveEntry(fact.move));
    const edited = withTextFeatures({
      ...message,
      content: fact.content.content,
      rendered_content: fact.content.rendered_content,
      is_me_message: fact.content.is_me_message,
      edit_history: [entry, ...message.edit_history],
      last_edit_timestamp: fact.timestamp,
      ...(fact.move && fact.move.message_ids.includes(message._id) ? moved(message, fact.move, fact.timestamp) : {}),
    });
    await model.messages.put(edited);
    await model.personal.edited(edited, fact.content);
  }
  if (!fact.move) return;
  for (const id of fact.move.message_ids) {
    if (fact.content && id === message._id) continue;
    const other = await model.messages.get(id);
    if (!other) continue;
    await model.messages.put(withTextFeatures({
      ...other,
      ...moved(other, fact.move, fact.timestamp),
      edit_history: [{ user_id: fact.editor_id, timestamp: fact.timestamp, ...moveEntry(fact.move) }, ...other.edit_history],
    }));
  }
  // Who may not see the private destination loses the messages from their history.
  await model.personal.afterMove(fact.move);
  // After the documents changed: a load started before this is not kept (ChannelPlaces).
  model.places.forget([fact.move.prev_channel_id, fact.move.channel_id]);
}

async function deleted(model: MessagesReadModel, fact: FactOf<'MessageDeleted'>): Promise<void> {
  const message = await model.messages.get(fact.message_id);
  if (message) model.recent.forget(conversationKeysOf(message));
  await model.personal.deleted(fact.message_id);
  await model.messages.delete(fact.message_id);
  if (message) model.places.forget([message.channel_id]);
}

type Move = NonNullable<FactOf<'MessageEdited'>['move']>;

function moveEntry(move: Move): Omit<EditHistoryEntry, 'user_id' | 'timestamp'> {
  return {
    ...(move.prev_topic !== move.topic ? { prev_topic: move.prev_topic, topic: move.topic } : {}),
    ...(move.prev_channel_id !== move.channel_id ? { prev_stream: move.prev_channel_id, stream: move.channel_id } : {}),
  };
}

function moved(message: MessageDoc, move: Move, timestamp: number): Partial<MessageDoc> {
  // Resolving or unresolving a topic is not a move (feature level 365).
  const onlyResolved =
    move.prev_channel_id === move.channel_id && withoutResolvedPrefix(move.prev_topic) === withoutResolvedPrefix(move.topic);
  return {
    recipient: { type: 'channel', channel_id: move.channel_id, channel_name: move.channel_name, topic: move.topic },
    recipient_id: move.recipient_id,
    channel_id: move.channel_id,
    topic_lc: move.topic.toLowerCase(),
    last_moved_timestamp: onlyResolved ? message.last_moved_timestamp : timestamp,
    ...(movesReceipts(move) ? { own_receipts: true as const } : {}),
    ...(move.topic !== move.prev_topic ? { topic_links: move.topic_links ?? [] } : {}),
  };
}
