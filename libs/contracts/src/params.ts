/**
 * Endpoint parameters, typed as the services receive them. The gateway decodes the wire
 * form (query string, form-urlencoded or multipart; JSON-encoded arrays and objects;
 * `true`/`false` booleans) into these shapes guided by the schema itself, then validates;
 * services validate again at their bus edge, so nothing unchecked reaches a decider.
 */
import { z } from 'zod';
import { TOPICS_POLICIES } from './channel-settings';
import { GroupSettingUpdate, GroupSettingValue } from './groups';

const int = () => z.number().int();
const nonNegativeInt = () => z.number().int().min(0);

export const DevFetchApiKeyParams = z.object({ username: z.string() });

export const JwtFetchApiKeyParams = z.object({
  token: z.string(),
  include_profile: z.boolean().optional(),
});

export const SendMessageParams = z.object({
  type: z.enum(['direct', 'private', 'channel', 'stream']),
  to: z.union([z.string(), int(), z.array(z.string()), z.array(int())]),
  content: z.string(),
  topic: z.string().optional(),
  /** Legacy name of `topic`. */
  subject: z.string().optional(),
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

export const RegisterParams = z.object({
  event_types: z.array(z.string()).optional(),
  fetch_event_types: z.array(z.string()).optional(),
  narrow: z.array(NarrowTerm).optional(),
  apply_markdown: z.boolean().optional(),
  client_gravatar: z.boolean().optional(),
  all_public_streams: z.boolean().optional(),
  slim_presence: z.boolean().optional(),
  include_subscribers: z.union([z.boolean(), z.literal('partial')]).optional(),
  client_capabilities: z.record(z.string(), z.unknown()).optional(),
});
export type RegisterParams = z.infer<typeof RegisterParams>;

export const GetEventsParams = z.object({
  queue_id: z.string(),
  last_event_id: int().optional(),
  dont_block: z.boolean().optional(),
});
export type GetEventsParams = z.infer<typeof GetEventsParams>;

export const DeleteQueueParams = z.object({ queue_id: z.string() });

export const UserIdPathParams = z.object({ user_id: int() });

export const NoParams = z.object({});

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

export const MarkTopicAsReadParams = z.object({ stream_id: int(), topic_name: z.string() });

export const ReactionParams = z.object({
  message_id: int(),
  emoji_name: z.string(),
  emoji_code: z.string().optional(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']).optional(),
});
export type ReactionParams = z.infer<typeof ReactionParams>;

export const UpdateMessageParams = z.object({
  message_id: int(),
  content: z.string().optional(),
  topic: z.string().optional(),
  /** Legacy name of `topic`. */
  subject: z.string().optional(),
  stream_id: int().optional(),
  propagate_mode: z.enum(['change_one', 'change_later', 'change_all']).optional(),
  send_notification_to_old_thread: z.boolean().optional(),
  send_notification_to_new_thread: z.boolean().optional(),
  prev_content_sha256: z.string().optional(),
});
export type UpdateMessageParams = z.infer<typeof UpdateMessageParams>;

export const UserTopicParams = z.object({
  stream_id: int(),
  topic: z.string(),
  visibility_policy: int(),
});
export type UserTopicParams = z.infer<typeof UserTopicParams>;

/** `realm_default`, `unlimited` or a number of days. */
const MessageRetentionDays = z.union([z.string(), int()]);

export const SubscribeParams = z.object({
  subscriptions: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  principals: z.union([z.array(int()), z.array(z.string())]).optional(),
  authorization_errors_fatal: z.boolean().optional(),
  announce: z.boolean().optional(),
  invite_only: z.boolean().optional(),
  is_web_public: z.boolean().optional(),
  is_default_stream: z.boolean().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  message_retention_days: MessageRetentionDays.optional(),
  topics_policy: z.enum(TOPICS_POLICIES).optional(),
  can_add_subscribers_group: GroupSettingValue.optional(),
  can_remove_subscribers_group: GroupSettingValue.optional(),
  can_administer_channel_group: GroupSettingValue.optional(),
  can_delete_any_message_group: GroupSettingValue.optional(),
  can_delete_own_message_group: GroupSettingValue.optional(),
  can_move_messages_out_of_channel_group: GroupSettingValue.optional(),
  can_move_messages_within_channel_group: GroupSettingValue.optional(),
  can_send_message_group: GroupSettingValue.optional(),
});
export type SubscribeParams = z.infer<typeof SubscribeParams>;

export const UpdateChannelParams = z.object({
  stream_id: int(),
  description: z.string().optional(),
  new_name: z.string().optional(),
  is_private: z.boolean().optional(),
  is_web_public: z.boolean().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  is_default_stream: z.boolean().optional(),
  message_retention_days: MessageRetentionDays.optional(),
  is_archived: z.boolean().optional(),
  topics_policy: z.enum(TOPICS_POLICIES).optional(),
  can_add_subscribers_group: GroupSettingUpdate.optional(),
  can_remove_subscribers_group: GroupSettingUpdate.optional(),
  can_administer_channel_group: GroupSettingUpdate.optional(),
  can_delete_any_message_group: GroupSettingUpdate.optional(),
  can_delete_own_message_group: GroupSettingUpdate.optional(),
  can_move_messages_out_of_channel_group: GroupSettingUpdate.optional(),
  can_move_messages_within_channel_group: GroupSettingUpdate.optional(),
  can_send_message_group: GroupSettingUpdate.optional(),
});
export type UpdateChannelParams = z.infer<typeof UpdateChannelParams>;

export const ChannelIdPathParams = z.object({ stream_id: int() });
