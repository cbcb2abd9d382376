/**
 * The organization's defaults for new users' settings (Zulip's
 * realm_user_settings_defaults, issue 17): Zulip's own defaults until an administrator
 * changes one. Changes are facts on one stream (`realm_user_settings_defaults`); a user
 * created afterwards starts with them.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';
import { USER_SETTING_DEFAULTS, type UserSettingName, type UserSettingValue } from './user-settings';

const int = () => z.number().int();

/** The settings an organization may change for its new users (Zulip's realm_user_settings_defaults). */
export const REALM_USER_SETTING_NAMES = [
  'twenty_four_hour_time',
  'web_font_size_px',
  'web_line_height_percent',
  'starred_message_counts',
  'receives_typing_notifications',
  'fluid_layout_width',
  'high_contrast_mode',
  'color_scheme',
  'translate_emoticons',
  'display_emoji_reaction_users',
  'default_language',
  'web_home_view',
  'web_escape_navigates_to_home_view',
  'emojiset',
  'demote_inactive_streams',
  'user_list_style',
  'web_animate_image_previews',
  'web_stream_unreads_count_display_policy',
  'web_channel_default_view',
  'hide_ai_features',
  'enter_sends',
  'enable_drafts_synchronization',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'enable_stream_audible_notifications',
  'notification_sound',
  'enable_desktop_notifications',
  'enable_sounds',
  'email_notifications_batching_period_seconds',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'message_content_in_email_notifications',
  'pm_content_in_desktop_notifications',
  'wildcard_mentions_notify',
  'enable_followed_topic_desktop_notifications',
  'enable_followed_topic_email_notifications',
  'enable_followed_topic_push_notifications',
  'enable_followed_topic_audible_notifications',
  'enable_followed_topic_wildcard_mentions_notify',
  'desktop_icon_count_display',
  'realm_name_in_email_notifications_policy',
  'automatically_follow_topics_policy',
  'automatically_unmute_topics_in_muted_streams_policy',
  'automatically_follow_topics_where_mentioned',
  'resolved_topic_notice_auto_read_policy',
  'presence_enabled',
  'email_address_visibility',
  'send_private_typing_notifications',
  'send_stream_typing_notifications',
  'send_read_receipts',
  'allow_private_data_export',
  'web_mark_read_on_scroll_policy',
  'web_suggest_update_timezone',
  'web_navigate_to_sent_message',
] as const satisfies readonly UserSettingName[];
export type RealmUserSettingName = (typeof REALM_USER_SETTING_NAMES)[number];

/** Their defaults: the users' own (one table, user-settings.ts) until an administrator changes one. */
export const REALM_USER_SETTING_DEFAULTS = Object.freeze(
  Object.fromEntries(REALM_USER_SETTING_NAMES.map((name) => [name, USER_SETTING_DEFAULTS[name]])),
) as Readonly<Record<RealmUserSettingName, UserSettingValue>>;

export const RealmUserSettingsDefaultChanged = z.object({
  type: z.literal('RealmUserSettingsDefaultChanged'),
  property: z.string(),
  value: z.union([z.boolean(), int(), z.string()]),
  /** Active users, who hear of the change (named, audiences.ts). */
  ...OrganizationAudience,
});

type Schemas = { [N in RealmUserSettingName]: z.ZodOptional<z.ZodBoolean | z.ZodNumber | z.ZodString> };
/** PATCH /realm/user_settings_defaults: any of the settings, each of its default's type. */
export const UpdateRealmUserDefaultsParams = z.object(
  Object.fromEntries(
    Object.entries(REALM_USER_SETTING_DEFAULTS).map(([name, value]) => [
      name,
      (typeof value === 'boolean' ? z.boolean() : typeof value === 'number' ? int().min(0).max(2 ** 31 - 1) : z.string().max(100)).optional(),
    ]),
  ) as Schemas,
);
