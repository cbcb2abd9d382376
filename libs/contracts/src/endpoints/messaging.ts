/**
 * The messaging service's endpoints: sending, reading and changing messages, personal
 * flags and topic visibility.
 */
import { z } from 'zod';
import { ApiMessage } from '../client-events';
import { EmptyReply, endpoint } from './contract';
import { MESSAGE_BODY_LIMIT } from '../limits';

const int = () => z.number().int();
const nonNegativeInt = () => z.number().int().min(0);

/**
 * The kind of message: the wire's legacy `stream` and `private` become `channel` and
 * `direct`. The output is itself valid input, so the service's second validation of the
 * same schema keeps it.
 */
const MessageType = z
  .enum(['direct', 'private', 'channel', 'stream'])
  .transform((type): 'direct' | 'channel' => (type === 'stream' ? 'channel' : type === 'private' ? 'direct' : type));

export const SendMessageParams = z.object({
  type: MessageType,
  to: z.union([z.string(), int(), z.array(z.string()), z.array(int())]),
  content: z.string(),
  topic: z.string().optional(),
  queue_id: z.string().optional(),
  local_id: z.string().optional(),
  read_by_sender: z.boolean().optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

const NarrowOperand = z.union([z.string(), int(), z.array(z.union([z.string(), int()]))]);
export const NarrowTerm = z.union([
  z.object({ operator: z.string(), operand: NarrowOperand, negated: z.boolean().optional() }),
  /** Legacy form: [operator, operand]. */
  z.tuple([z.string(), NarrowOperand]),
]);
export type NarrowTerm = z.infer<typeof NarrowTerm>;

/** A narrow term in one shape, its operator under the spec's name. */
export interface NormalizedNarrowTerm {
  operator: string;
  /** The operator as the client wrote it, for error messages. */
  written: string;
  operand: z.infer<typeof NarrowOperand>;
  negated: boolean;
}

/** Legacy operator names, as clients still send them, and the spec's names for them. */
const NARROW_OPERATOR_NAMES: Readonly<Record<string, string>> = {
  stream: 'channel',
  streams: 'channels',
  subject: 'topic',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
};

/**
 * The one reading of a narrow term, for every service that takes a narrow (GET /messages,
 * a queue's narrow): either wire form, operator names case-insensitive, legacy names
 * translated.
 */
export function normalizeNarrowTerm(term: NarrowTerm): NormalizedNarrowTerm {
  const [written, operand, negated] = Array.isArray(term) ? [term[0], term[1], false] : [term.operator, term.operand, term.negated ?? false];
  const lower = written.toLowerCase();
  return { operator: NARROW_OPERATOR_NAMES[lower] ?? lower, written, operand, negated };
}

export const GetMessagesParams = z.object({
  anchor: z.union([z.string(), int()]).optional(),
  include_anchor: z.boolean().optional(),
  anchor_date: z.string().optional(),
  num_before: nonNegativeInt().optional(),
  num_after: nonNegativeInt().optional(),
  narrow: z.array(NarrowTerm).optional(),
  client_gravatar: z.boolean().optional(),
  apply_markdown: z.boolean().optional(),
  message_ids: z.array(int()).optional(),
  allow_empty_topic_name: z.boolean().optional(),
  use_first_unread_anchor: z.boolean().optional(),
});
export type GetMessagesParams = z.infer<typeof GetMessagesParams>;

export const MessageIdPathParams = z.object({ message_id: int() });

export const GetMessageParams = z.object({
  message_id: int(),
  apply_markdown: z.boolean().optional(),
  allow_empty_topic_name: z.boolean().optional(),
});

export const RenderMessageParams = z.object({ content: z.string() });

export const UpdateFlagsParams = z.object({
  messages: z.array(int()),
  op: z.enum(['add', 'remove']),
  flag: z.string(),
});
export type UpdateFlagsParams = z.infer<typeof UpdateFlagsParams>;

export const UpdateFlagsForNarrowParams = z.object({
  anchor: z.union([z.string(), int()]),
  include_anchor: z.boolean().optional(),
  num_before: nonNegativeInt(),
  num_after: nonNegativeInt(),
  narrow: z.array(NarrowTerm),
  op: z.enum(['add', 'remove']),
  flag: z.string(),
});
export type UpdateFlagsForNarrowParams = z.infer<typeof UpdateFlagsForNarrowParams>;

export const MarkTopicAsReadParams = z.object({ channel_id: int(), topic_name: z.string() });

export const ReactionParams = z.object({
  message_id: int(),
  emoji_name: z.string(),
  emoji_code: z.string().optional(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']).optional(),
});
export type ReactionParams = z.infer<typeof ReactionParams>;

/** POST /submessage: `content` is the JSON the widget's clients exchange, checked against the widget. */
export const SubmessageParams = z.object({
  message_id: int(),
  msg_type: z.string(),
  content: z.string(),
});
export type SubmessageParams = z.infer<typeof SubmessageParams>;

export const UpdateMessageParams = z.object({
  message_id: int(),
  content: z.string().optional(),
  topic: z.string().optional(),
  channel_id: int().optional(),
  propagate_mode: z.enum(['change_one', 'change_later', 'change_all']).optional(),
  send_notification_to_old_thread: z.boolean().optional(),
  send_notification_to_new_thread: z.boolean().optional(),
  prev_content_sha256: z.string().optional(),
});
export type UpdateMessageParams = z.infer<typeof UpdateMessageParams>;

export const UserTopicParams = z.object({
  channel_id: int(),
  topic: z.string(),
  visibility_policy: int(),
});
export type UserTopicParams = z.infer<typeof UserTopicParams>;

/** A message as one user sees it in their history: the Message object and their flags. */
export const MessageWithFlags = ApiMessage.extend({ flags: z.array(z.string()) });
export type MessageWithFlags = z.infer<typeof MessageWithFlags>;

/** Where a range of messages sits in the narrow. */
export const MessageRange = z.object({
  /** Absent when the request named message ids instead of an anchor. */
  anchor: z.number().optional(),
  found_anchor: z.boolean(),
  found_oldest: z.boolean(),
  found_newest: z.boolean(),
  history_limited: z.boolean(),
});
export type MessageRange = z.infer<typeof MessageRange>;

export const messagingEndpoints = {
  sendMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.send_message',
    http: { method: 'POST', path: '/messages', wireNames: { subject: 'topic' }, bodyLimit: MESSAGE_BODY_LIMIT },
    auth: true,
    params: SendMessageParams,
    reply: z.object({ id: int(), automatic_new_visibility_policy: int().optional() }),
  }),
  /** Its `messages` follow the reply's members already serialized (BusReply `json`). */
  getMessages: endpoint({
    service: 'messaging',
    subject: 'messaging.get_messages',
    http: { method: 'GET', path: '/messages' },
    auth: true,
    params: GetMessagesParams,
    reply: MessageRange,
    // With a search narrow, each message also holds its content and topic with the matches highlighted.
    serialized: z.object({ messages: z.array(MessageWithFlags.extend({ match_content: z.string().optional(), match_subject: z.string().optional() })) }),
  }),
  getMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.get_message',
    http: { method: 'GET', path: '/messages/{message_id}' },
    auth: true,
    params: GetMessageParams,
    reply: z.object({ message: MessageWithFlags, raw_content: z.string() }),
  }),
  updateMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.update_message',
    http: { method: 'PATCH', path: '/messages/{message_id}', wireNames: { stream_id: 'channel_id', subject: 'topic' }, bodyLimit: MESSAGE_BODY_LIMIT },
    auth: true,
    params: UpdateMessageParams,
    reply: EmptyReply,
  }),
  deleteMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.delete_message',
    http: { method: 'DELETE', path: '/messages/{message_id}' },
    auth: true,
    params: MessageIdPathParams,
    reply: EmptyReply,
  }),
  renderMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.render_message',
    http: { method: 'POST', path: '/messages/render', bodyLimit: MESSAGE_BODY_LIMIT },
    auth: true,
    params: RenderMessageParams,
    reply: z.object({ rendered: z.string() }),
  }),
  /** Reporting a message to the organization's moderators (Zulip feature level 382). */
  reportMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.report_message',
    http: { method: 'POST', path: '/messages/{message_id}/report' },
    auth: true,
    // Strings, not enums: the decider names the parameter that is wrong, as Zulip does.
    params: z.object({ message_id: int(), report_type: z.string(), description: z.string().optional() }),
    reply: EmptyReply,
  }),
  addReaction: endpoint({
    service: 'messaging',
    subject: 'messaging.add_reaction',
    http: { method: 'POST', path: '/messages/{message_id}/reactions' },
    auth: true,
    params: ReactionParams,
    reply: EmptyReply,
  }),
  removeReaction: endpoint({
    service: 'messaging',
    subject: 'messaging.remove_reaction',
    http: { method: 'DELETE', path: '/messages/{message_id}/reactions' },
    auth: true,
    params: ReactionParams,
    reply: EmptyReply,
  }),
  addSubmessage: endpoint({
    service: 'messaging',
    subject: 'messaging.add_submessage',
    http: { method: 'POST', path: '/submessage' },
    auth: true,
    params: SubmessageParams,
    reply: EmptyReply,
  }),
  updateFlags: endpoint({
    service: 'messaging',
    subject: 'messaging.update_flags',
    http: { method: 'POST', path: '/messages/flags' },
    auth: true,
    params: UpdateFlagsParams,
    reply: z.object({ messages: z.array(int()) }),
  }),
  updateFlagsForNarrow: endpoint({
    service: 'messaging',
    subject: 'messaging.update_flags_for_narrow',
    http: { method: 'POST', path: '/messages/flags/narrow' },
    auth: true,
    params: UpdateFlagsForNarrowParams,
    reply: z.object({
      processed_count: int(),
      updated_count: int(),
      first_processed_id: int().nullable(),
      last_processed_id: int().nullable(),
      found_oldest: z.boolean(),
      found_newest: z.boolean(),
      ignored_because_not_subscribed_channels: z.array(int()),
    }),
  }),
  markTopicAsRead: endpoint({
    service: 'messaging',
    subject: 'messaging.mark_topic_as_read',
    http: { method: 'POST', path: '/mark_topic_as_read', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: MarkTopicAsReadParams,
    reply: EmptyReply,
  }),
  updateUserTopic: endpoint({
    service: 'messaging',
    subject: 'messaging.update_user_topic',
    http: { method: 'POST', path: '/user_topics', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: UserTopicParams,
    reply: EmptyReply,
  }),
};
