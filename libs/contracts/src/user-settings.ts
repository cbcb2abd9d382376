/**
 * A user's personal settings (PATCH /settings, spec endpoint 3, and POST /register's
 * `user_settings`), written once: each setting's kind, which decides how a value is
 * checked, and Zulip's default for a new user. Accounts decides changes (one
 * UserSettingChanged fact per changed setting); register and the gateway read the table.
 */
import { z } from 'zod';

export type UserSettingKind =
  | { kind: 'boolean' }
  /** One of a few integers (an enumeration). */
  | { kind: 'choice'; values: readonly number[] }
  /** An integer within bounds (inclusive). */
  | { kind: 'range'; min: number; max: number }
  /** One of a few words (an enumeration). */
  | { kind: 'word'; values: readonly string[] }
  /** A language code of LANGUAGES. */
  | { kind: 'language' }
  /** A time zone database identifier, or '' for none. */
  | { kind: 'timezone' }
  /** A sound of NOTIFICATION_SOUNDS. */
  | { kind: 'sound' };

interface UserSettingSpec {
  type: UserSettingKind;
  default: boolean | number | string;
}

const flag = (value: boolean) => ({ type: { kind: 'boolean' as const }, default: value });
const choice = (values: readonly number[], value: number) => ({ type: { kind: 'choice' as const, values }, default: value });
const word = (values: readonly string[], value: string) => ({ type: { kind: 'word' as const, values }, default: value });
const range = (min: number, max: number, value: number) => ({ type: { kind: 'range' as const, min, max }, default: value });

/**
 * The languages the server answers `default_language` for, with the English name the
 * `user_settings` event carries (`language_name`). Zulip's translated languages, by code.
 */
export const LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  en: 'English',
  ar: 'Arabic',
  bg: 'Bulgarian',
  ca: 'Catalan',
  cs: 'Czech',
  de: 'German',
  el: 'Greek',
  es: 'Spanish',
  fa: 'Persian',
  fi: 'Finnish',
  fr: 'French',
  gl: 'Galician',
  hi: 'Hindi',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  lt: 'Lithuanian',
  ml: 'Malayalam',
  nl: 'Dutch',
  pl: 'Polish',
  pt: 'Portuguese',
  'pt-br': 'Portuguese (Brazil)',
  ro: 'Romanian',
  ru: 'Russian',
  sr: 'Serbian',
  sv: 'Swedish',
  ta: 'Tamil',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  'zh-hans': 'Simplified Chinese',
  'zh-hant': 'Traditional Chinese',
});

/** Zulip's bundled notification sounds, and `none`. */
export const NOTIFICATION_SOUNDS = ['zulip', 'ding', 'chime', 'none'] as const;

/** Zulip's EMAIL_ADDRESS_VISIBILITY values: everyone, members, administrators, nobody, moderators. */
export const EMAIL_VISIBILITY_VALUES = [1, 2, 3, 4, 5] as const;

/** Zulip's 7-day bound on email notification batching. */
export const MAX_EMAIL_BATCHING_SECONDS = 7 * 24 * 3600;

export const USER_SETTINGS = {
  // Display settings.
  twenty_four_hour_time: flag(false),
  // 1 top topic, 2 channel feed, 3 list of topics (feature level 339), 4 top unread topic.
  web_channel_default_view: choice([1, 2, 3, 4], 1),
  starred_message_counts: flag(true),
  receives_typing_notifications: flag(true),
  web_suggest_update_timezone: flag(true),
  fluid_layout_width: flag(false),
  high_contrast_mode: flag(false),
  // The bounds of Zulip's web app controls.
  web_font_size_px: range(12, 20, 14),
  web_line_height_percent: range(122, 158, 122),
  color_scheme: choice([1, 2, 3], 1),
  enable_drafts_synchronization: flag(true),
  translate_emoticons: flag(false),
  display_emoji_reaction_users: flag(true),
  default_language: { type: { kind: 'language' as const }, default: 'en' },
  web_home_view: word(['recent', 'inbox', 'all_messages'], 'inbox'),
  web_escape_navigates_to_home_view: flag(true),
  left_side_userlist: flag(false),
  emojiset: word(['google', 'twitter', 'text'], 'google'),
  demote_inactive_streams: choice([1, 2, 3], 1),
  user_list_style: choice([1, 2, 3], 2),
  web_animate_image_previews: word(['always', 'on_hover', 'never'], 'always'),
  web_stream_unreads_count_display_policy: choice([1, 2, 3], 2),
  hide_ai_features: flag(false),
  web_inbox_show_channel_folders: flag(true),
  timezone: { type: { kind: 'timezone' as const }, default: '' },
  // Notification settings.
  enable_stream_desktop_notifications: flag(false),
  enable_stream_email_notifications: flag(false),
  enable_stream_push_notifications: flag(false),
  enable_stream_audible_notifications: flag(false),
  notification_sound: { type: { kind: 'sound' as const }, default: 'zulip' },
  enable_desktop_notifications: flag(true),
  enable_sounds: flag(true),
  email_notifications_batching_period_seconds: range(1, MAX_EMAIL_BATCHING_SECONDS, 120),
  enable_offline_email_notifications: flag(true),
  enable_offline_push_notifications: flag(true),
  enable_online_push_notifications: flag(true),
  enable_followed_topic_desktop_notifications: flag(true),
  enable_followed_topic_email_notifications: flag(true),
  enable_followed_topic_push_notifications: flag(true),
  enable_followed_topic_audible_notifications: flag(true),
  enable_digest_emails: flag(true),
  enable_marketing_emails: flag(true),
  // Zulip's settings after enable_marketing_emails (the spec does not list them; clients send them).
  enable_login_emails: flag(true),
  message_content_in_email_notifications: flag(true),
  pm_content_in_desktop_notifications: flag(true),
  wildcard_mentions_notify: flag(true),
  enable_followed_topic_wildcard_mentions_notify: flag(true),
  desktop_icon_count_display: choice([1, 2, 3], 1),
  realm_name_in_email_notifications_policy: choice([1, 2, 3], 1),
  automatically_follow_topics_policy: choice([1, 2, 3, 4], 3),
  automatically_unmute_topics_in_muted_streams_policy: choice([1, 2, 3, 4], 2),
  automatically_follow_topics_where_mentioned: flag(true),
  resolved_topic_notice_auto_read_policy: word(['always', 'except_followed', 'never'], 'except_followed'),
  presence_enabled: flag(true),
  enter_sends: flag(false),
  send_private_typing_notifications: flag(true),
  send_stream_typing_notifications: flag(true),
  send_read_receipts: flag(true),
  email_address_visibility: choice(EMAIL_VISIBILITY_VALUES, 1),
  allow_private_data_export: flag(false),
  web_mark_read_on_scroll_policy: choice([1, 2, 3], 1),
  web_left_sidebar_show_channel_folders: flag(true),
  web_left_sidebar_unreads_count_summary: flag(true),
  web_navigate_to_sent_message: flag(true),
} satisfies Record<string, UserSettingSpec>;

export type UserSettingName = keyof typeof USER_SETTINGS;
export const USER_SETTING_NAMES = Object.keys(USER_SETTINGS) as UserSettingName[];
export type UserSettingValue = boolean | number | string;

/** Every setting at its default (timezone: none). */
export const USER_SETTING_DEFAULTS: Readonly<Record<UserSettingName, UserSettingValue>> = Object.freeze(
  Object.fromEntries(USER_SETTING_NAMES.map((name) => [name, USER_SETTINGS[name].default])) as Record<UserSettingName, UserSettingValue>,
);

/** Whether `name` is a time zone this runtime's time zone database knows. */
export function isTimezone(name: string): boolean {
  if (name === '') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const wireType = (spec: UserSettingKind) => {
  switch (spec.kind) {
    case 'boolean':
      return z.boolean();
    case 'choice':
    case 'range':
      return z.number().int();
    default:
      return z.string();
  }
};

/** Each setting's parameter, typed on the wire; enumerations and bounds are the decider's (it names the value it refuses). */
export const UserSettingParams = Object.fromEntries(USER_SETTING_NAMES.map((name) => [name, wireType(USER_SETTINGS[name].type).optional()])) as {
  [K in UserSettingName]: z.ZodOptional<(typeof USER_SETTINGS)[K]['type'] extends { kind: 'boolean' } ? z.ZodBoolean : (typeof USER_SETTINGS)[K]['type'] extends { kind: 'choice' | 'range' } ? z.ZodNumber : z.ZodString>;
};
