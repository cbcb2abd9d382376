/**
 * What clients see of messages: `message` events (one object per form its queues see, the
 * queue's narrow applied), edits and moves, deletions, reactions, personal flags and topic
 * visibility, widgets' submessages, to the users each fact names.
 */
import {
  cachedGravatarUrls,
  displayTopic,
  formatMessage,
  initialMessageFlags,
  widgetSubmessage,
  type AvatarState,
  type ClientEvent,
  type FactOf,
  type UpdateMessageFlagsEvent,
} from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { IDS_PER_POSITION } from '../domain/event-queue';
import { matchesQueueNarrow } from '../domain/queue-narrow';
import { same, type Delivery } from './delivery';
import type { FanOutContext } from './people-fan-out';

export const messageFanOut = {
  RecipientAllocated: null,
  MessageSent: (fact: FactOf<'MessageSent'>, stored: StoredFact, ctx: FanOutContext) => [messageDelivery(fact, stored.position, ctx.avatars?.of(fact.sender_id))],
  ReactionAdded: (fact: FactOf<'ReactionAdded'>) => [reactionDelivery(fact, 'add')],
  ReactionRemoved: (fact: FactOf<'ReactionRemoved'>) => [reactionDelivery(fact, 'remove')],
  SubmessageAdded: (fact: FactOf<'SubmessageAdded'>, stored: StoredFact): Delivery[] => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same({
        type: 'submessage',
        msg_type: fact.msg_type,
        message_id: fact.message_id,
        // The submessage's id, as GET /messages lists it: its fact's position.
        submessage_id: stored.position,
        sender_id: fact.sender_id,
        content: fact.content,
      }),
    },
  ],
  MessageEdited: (fact: FactOf<'MessageEdited'>) => editDeliveries(fact),
  MessageDeleted: (fact: FactOf<'MessageDeleted'>): Delivery[] =>
    deletionDeliveries(fact.audience_user_ids, [fact.message_id], fact.channel_id !== null && fact.topic !== null ? { stream_id: fact.channel_id, topic: fact.topic } : null),
  MessageFlagsUpdated: (fact: FactOf<'MessageFlagsUpdated'>): Delivery[] => [
    {
      user_ids: [fact.user_id],
      eventFor: same({
        type: 'update_message_flags',
        op: fact.op,
        operation: fact.op,
        flag: fact.flag,
        messages: fact.message_ids,
        all: false,
        ...(fact.message_details ? { message_details: wireMessageDetails(fact.message_details) } : {}),
      }),
    },
  ],
  UserTopicUpdated: (fact: FactOf<'UserTopicUpdated'>): Delivery[] => [
    {
      user_ids: [fact.user_id],
      eventFor: same({
        type: 'user_topic',
        stream_id: fact.channel_id,
        topic_name: fact.topic,
        last_updated: fact.last_updated,
        visibility_policy: fact.visibility_policy,
      }),
    },
  ],
};

function reactionDelivery(fact: FactOf<'ReactionAdded' | 'ReactionRemoved'>, op: 'add' | 'remove'): Delivery {
  return {
    user_ids: fact.audience_user_ids,
    eventFor: same({
      type: 'reaction',
      op,
      message_id: fact.message_id,
      user_id: fact.user_id,
      emoji_name: fact.emoji_name,
      emoji_code: fact.emoji_code,
      reaction_type: fact.reaction_type,
    }),
  };
}

const avatarUrls = cachedGravatarUrls();

/**
 * A message event is made once per form that its queues see (formats × flags), not once per
 * queue: queues alike share the event object, whose JSON is then made once too
 * (EventQueue.toJson). Only the sender's echo, for the one queue that sent it, is its own.
 */
function messageDelivery(fact: FactOf<'MessageSent'>, id: number, senderAvatar: AvatarState | undefined): Delivery {
  const messages = new Map<string, ReturnType<typeof formatMessage>>();
  const events = new Map<string, ClientEvent>();
  return {
    user_ids: fact.recipient_user_ids,
    eventFor: (queue) => {
      const { options } = queue;
      if (!matchesQueueNarrow(options.narrow, fact)) return null;
      const format = `${+options.apply_markdown}${+options.client_gravatar}${+options.empty_topic_name}`;
      let message = messages.get(format);
      if (!message) {
        // Object.assign, not a spread: V8 gives `{ ...fact, id }` a hidden class of its own
        // every time (the fact has too many members), one per message kept until a full GC.
        message = formatMessage(
          Object.assign({}, fact, { id }, fact.widget ? { submessages: [widgetSubmessage(id, fact.sender_id, fact.widget)] } : undefined),
          { apply_markdown: options.apply_markdown, client_gravatar: options.client_gravatar, allow_empty_topic_name: options.empty_topic_name },
          avatarUrls,
          senderAvatar,
        );
        messages.set(format, message);
      }
      const flags = initialMessageFlags(fact, options.user_id);
      const echo = fact.local_echo;
      if (echo && echo.queue_id === queue.id && fact.sender_id === options.user_id) {
        return { type: 'message', message, flags, local_message_id: echo.local_id };
      }
      const key = `${format}${flags.join(',')}`;
      let event = events.get(key);
      if (!event) {
        event = { type: 'message', message, flags };
        events.set(key, event);
      }
      return event;
    },
  };
}

function editDeliveries(fact: FactOf<'MessageEdited'>): Delivery[] {
  const revoked = new Set(fact.move?.revoked_user_ids ?? []);
  if (revoked.size === 0 || !fact.move) return [editDelivery(fact, fact.audience_user_ids)];
  // Users who lose sight of moved messages see them deleted rather than moved.
  const gone = deletionDeliveries([...revoked], fact.move.message_ids, { stream_id: fact.move.prev_channel_id, topic: fact.move.prev_topic });
  return [editDelivery(fact, fact.audience_user_ids.filter((id) => !revoked.has(id))), ...gone];
}

/**
 * At most this many `delete_message` events of one fact for a queue without
 * `bulk_message_deletion`: a queue's event ids leave room for a thousand events per fact
 * (IDS_PER_POSITION), so a move that hides more messages than this from a user tells an
 * old client of the first ones only; it drops the others when it next reloads.
 */
export const MAX_SINGLE_DELETIONS = IDS_PER_POSITION - 100;

/**
 * A deletion as each queue asks for it (Zulip's process_deletion_event): with the
 * `bulk_message_deletion` capability one event naming every message (`message_ids`);
 * without it, as Zulip sends to such clients, one event per message with `message_id`
 * and no `message_ids`, in id order. The topic is shown as the queue's clients show the
 * empty one. Each form is made once per fact, so queues that see it alike share it.
 */
function deletionDeliveries(user_ids: number[], messageIds: number[], channel: { stream_id: number; topic: string } | null): Delivery[] {
  if (user_ids.length === 0) return [];
  const ids = [...messageIds].sort((a, b) => a - b);
  const forms = new Map<string, ClientEvent>();
  const formOf = (key: string, emptyTopicName: boolean, make: (where: object) => ClientEvent): ClientEvent => {
    const cacheKey = `${key}:${+emptyTopicName}`;
    let event = forms.get(cacheKey);
    if (!event) {
      const where = channel ? { message_type: 'stream', stream_id: channel.stream_id, topic: displayTopic(channel.topic, emptyTopicName) } : { message_type: 'private' };
      event = make(where);
      forms.set(cacheKey, event);
    }
    return event;
  };
  const bulk: Delivery = {
    user_ids,
    eventFor: ({ options }) =>
      options.bulk_message_deletion ? formOf('bulk', options.empty_topic_name, (where) => ({ type: 'delete_message', message_ids: ids, ...where }) as ClientEvent) : null,
  };
  const singles = ids.slice(0, MAX_SINGLE_DELETIONS).map(
    (message_id): Delivery => ({
      user_ids,
      eventFor: ({ options }) =>
        options.bulk_message_deletion ? null : formOf(`${message_id}`, options.empty_topic_name, (where) => ({ type: 'delete_message', message_id, ...where }) as ClientEvent),
    }),
  );
  return [bulk, ...singles];
}

function editDelivery(fact: FactOf<'MessageEdited'>, userIds: number[]): Delivery {
  return {
    user_ids: userIds,
    eventFor: (queue) => {
      const { content, move } = fact;
      const userId = queue.options.user_id;
      const flags = content
        ? [
            ...(content.mentioned_user_ids.includes(userId) ? ['mentioned'] : []),
            ...(content.wildcard_mentioned_user_ids.includes(userId) ? ['wildcard_mentioned'] : []),
            ...(content.alert_word_user_ids?.includes(userId) ? ['has_alert_word'] : []),
          ]
        : [];
      const topic = (t: string) => displayTopic(t, queue.options.empty_topic_name);
      return {
        type: 'update_message',
        user_id: fact.editor_id,
        edit_timestamp: fact.timestamp,
        message_id: fact.message_id,
        message_ids: move ? move.message_ids : [fact.message_id],
        flags,
        rendering_only: false,
        ...(content
          ? {
              orig_content: content.prev_content,
              orig_rendered_content: content.prev_rendered_content,
              content: queue.options.apply_markdown ? content.rendered_content : content.content,
              rendered_content: content.rendered_content,
              is_me_message: content.is_me_message,
            }
          : {}),
        ...(move
          ? {
              stream_id: move.prev_channel_id,
              propagate_mode: move.propagate_mode,
              orig_subject: topic(move.prev_topic),
              ...(move.topic !== move.prev_topic ? { subject: topic(move.topic), topic_links: move.topic_links ?? [] } : {}),
              ...(move.channel_id !== move.prev_channel_id ? { new_stream_id: move.channel_id } : {}),
            }
          : {}),
      };
    },
  };
}

/** The API still calls a channel a stream and a direct message private here. */
function wireMessageDetails(details: NonNullable<FactOf<'MessageFlagsUpdated'>['message_details']>): UpdateMessageFlagsEvent['message_details'] {
  const wire: NonNullable<UpdateMessageFlagsEvent['message_details']> = {};
  for (const [id, detail] of Object.entries(details)) {
    const mentioned = detail.mentioned === undefined ? {} : { mentioned: detail.mentioned };
    wire[id] =
      detail.type === 'channel'
        ? { type: 'stream', stream_id: detail.channel_id, topic: detail.topic, ...mentioned }
        : { type: 'private', user_ids: detail.user_ids, ...mentioned };
  }
  return wire;
}
