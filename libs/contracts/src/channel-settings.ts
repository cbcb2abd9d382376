/**
 * The names of a channel's settings, which both the facts and the channel objects built
 * from them spell: kept apart so that neither module imports the other for them.
 */
import type { GroupSettingValue } from './groups';

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];

export const CHANNEL_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
] as const;
export type ChannelGroupSettingName = (typeof CHANNEL_GROUP_SETTINGS)[number];
export type ChannelGroupSettings = Record<ChannelGroupSettingName, GroupSettingValue>;
