/**
 * The organization's defaults for new users' settings (Zulip's
 * realm_user_settings_defaults, issue 17): Zulip's own defaults until an administrator
 * changes one. Changes are facts on one stream (`realm_user_settings_defaults`); a user
 * created afterwards starts with them.
 */
import { z } from 'zod';

const int = () => z.number().int();

/** Zulip's defaults of the settings an organization may change for its new users. */
export const REALM_USER_SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  dense_mode: true,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  starred_message_counts: true,
  receives_typing_notifications: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  color_scheme: 1,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  emojiset: 'google',
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: 'always',
  web_stream_unreads_count_display_policy: 2,
  web_channel_default_view: 1,
  hide_ai_features: false,
  enter_sends: false,
  enable_drafts_synchronization: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  presence_enabled: true,
  email_address_visibility: 1,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  web_mark_read_on_scroll_policy: 1,
  web_suggest_update_timezone: true,
  web_navigate_to_sent_message: true,
} as const satisfies Record<string, boolean | number | string>;
export type RealmUserSettingName = keyof typeof REALM_USER_SETTING_DEFAULTS;

export const RealmUserSettingsDefaultChanged = z.object({
  type: z.literal('RealmUserSettingsDefaultChanged'),
  property: z.string(),
  value: z.union([z.boolean(), int(), z.string()]),
  /** Active users, who hear of the change. */
  audience_user_ids: z.array(int()),
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
