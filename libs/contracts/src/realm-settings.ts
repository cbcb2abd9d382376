/**
 * The organization's settings (Zulip's realm properties and permission group-settings that
 * PATCH /realm changes), written once: their kinds, who may change them, their defaults and
 * the realm event each change becomes. Accounts decides changes; every service that decides
 * permissions keeps its own projection of the `RealmSettingsChanged` facts.
 */
import { z } from 'zod';
import { GroupSettingValue, SYSTEM_GROUP, type GroupSettingRules } from './groups';

/** How a setting's value is checked and stored. */
export type RealmSettingKind =
  /** Text, trimmed, at most `maxLength` code points (`nonEmpty`: refused when blank). */
  | { kind: 'text'; maxLength: number; nonEmpty?: boolean }
  | { kind: 'boolean' }
  /** A non-negative integer. */
  | { kind: 'count' }
  /** A time limit: a positive number of seconds, or null for none (`unlimited` on the wire). */
  | { kind: 'limit' }
  /** One of a few integers. */
  | { kind: 'choice'; values: readonly number[] }
  | { kind: 'group'; rules: GroupSettingRules }
  /**
   * A channel of the organization by id, or -1 for none (Zulip's channel-valued settings).
   * `private`: only a private channel may be chosen.
   */
  | { kind: 'channel'; private: boolean };

export interface RealmSettingSpec {
  type: RealmSettingKind;
  /** Only owners may change it (Zulip's OrganizationOwnerRequiredError cases); otherwise administrators. */
  ownerOnly?: boolean;
  /**
   * The realm event's form: message editing settings and group-settings are announced as
   * `update_dict` with property `default`, for historical reasons in Zulip; the rest as `update`.
   */
  event: 'update' | 'update_dict';
}

const text = (maxLength: number, nonEmpty = false) => ({ type: { kind: 'text' as const, maxLength, nonEmpty }, event: 'update' as const });
const flag = (ownerOnly = false) => ({ type: { kind: 'boolean' as const }, event: 'update' as const, ownerOnly });
const limit = <E extends 'update' | 'update_dict' = 'update'>(event?: E) => ({ type: { kind: 'limit' as const }, event: (event ?? 'update') as E });
const group = (allowEveryone: boolean, ownerOnly = false) => ({
  type: { kind: 'group' as const, rules: { allowEveryone } },
  event: 'update_dict' as const,
  ownerOnly,
});

/** A channel-valued setting's value when no channel is set, as Zulip writes it in register and events. */
export const NO_CHANNEL = -1;

/** Zulip's `Realm.MAX_REALM_NAME_LENGTH` and `MAX_REALM_DESCRIPTION_LENGTH`. */
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/** Zulip's video chat providers (`Realm.VIDEO_CHAT_PROVIDERS`): none and Jitsi Meet, the two that need no server credentials. */
export const VIDEO_CHAT_PROVIDERS = { disabled: 0, jitsi_meet: 1 } as const;

export const REALM_SETTINGS = {
  name: text(MAX_REALM_NAME_LENGTH, true),
  description: text(MAX_REALM_DESCRIPTION_LENGTH),
  invite_required: flag(true),
  emails_restricted_to_domains: flag(true),
  disallow_disposable_email_addresses: flag(true),
  waiting_period_threshold: { type: { kind: 'count' as const }, event: 'update' as const, ownerOnly: true },
  allow_message_editing: { type: { kind: 'boolean' as const }, event: 'update_dict' as const },
  message_content_edit_limit_seconds: limit('update_dict'),
  move_messages_within_stream_limit_seconds: limit(),
  move_messages_between_streams_limit_seconds: limit(),
  message_content_delete_limit_seconds: limit(),
  allow_edit_history: flag(),
  name_changes_disabled: flag(),
  email_changes_disabled: flag(),
  avatar_changes_disabled: flag(),
  inline_image_preview: flag(),
  inline_url_embed_preview: flag(),
  send_welcome_emails: flag(),
  digest_emails_enabled: flag(),
  enable_read_receipts: flag(),
  require_unique_names: flag(),
  presence_disabled: flag(),
  enable_spectator_access: flag(true),
  /** Who sees users' real email addresses (Zulip's EMAIL_ADDRESS_VISIBILITY values); each user may restrict theirs further. */
  email_address_visibility: { type: { kind: 'choice' as const, values: [1, 2, 3, 4, 5] as readonly number[] }, event: 'update' as const },
  video_chat_provider: { type: { kind: 'choice' as const, values: Object.values(VIDEO_CHAT_PROVIDERS) as readonly number[] }, event: 'update' as const },
  can_add_custom_emoji_group: group(false),
  can_add_subscribers_group: group(false),
  can_create_bots_group: group(false),
  can_create_groups: group(false),
  can_create_private_channel_group: group(false),
  can_create_public_channel_group: group(false),
  can_create_web_public_channel_group: group(false, true),
  can_create_write_only_bots_group: group(false),
  can_delete_any_message_group: group(false),
  can_delete_own_message_group: group(true),
  can_invite_users_group: group(false, true),
  create_multiuse_invite_group: group(false, true),
  can_manage_all_groups: group(false, true),
  can_mention_many_users_group: group(true),
  can_move_messages_between_channels_group: group(false),
  can_move_messages_between_topics_group: group(true),
  can_resolve_topics_group: group(true),
  can_set_delete_message_policy_group: group(false),
  can_set_topics_policy_group: group(false),
  can_summarize_topics_group: group(true),
  direct_message_initiator_group: group(true),
  direct_message_permission_group: group(true),
  /** Where message reports go (POST /messages/{id}/report); -1: reporting is off. Zulip requires a private channel. */
  moderation_request_channel_id: { type: { kind: 'channel' as const, private: true }, event: 'update' as const },
} satisfies Record<string, RealmSettingSpec>;

export type RealmSettingName = keyof typeof REALM_SETTINGS;
export const REALM_SETTING_NAMES = Object.keys(REALM_SETTINGS) as RealmSettingName[];

/** A stored value: text, flag, number, null (no limit) or a group-setting. */
export const RealmSettingValue = z.union([z.string(), z.boolean(), z.number().int(), z.null(), GroupSettingValue]);
export type RealmSettingValue = z.infer<typeof RealmSettingValue>;

type ValueOf<S extends RealmSettingSpec> = S['type'] extends { kind: 'text' }
  ? string
  : S['type'] extends { kind: 'boolean' }
    ? boolean
    : S['type'] extends { kind: 'count' } | { kind: 'choice' } | { kind: 'channel' }
      ? number
      : S['type'] extends { kind: 'limit' }
        ? number | null
        : GroupSettingValue;

/** Every setting with its current value. */
export type RealmSettings = { [K in RealmSettingName]: ValueOf<(typeof REALM_SETTINGS)[K]> };

/** Zulip's default for `enable_read_receipts` in a new organization (`do_create_realm`). */
export function readReceiptsByDefault(created: { invite_required: boolean; emails_restricted_to_domains: boolean }): boolean {
  return created.invite_required || created.emails_restricted_to_domains;
}

/**
 * What an organization starts with: Zulip's defaults, which are also what this server
 * enforced before the settings could be changed (libs/policies' ORGANIZATION_POLICY). The
 * name is the organization's own, from `OrganizationCreated`.
 */
export const DEFAULT_REALM_SETTINGS: Readonly<Omit<RealmSettings, 'name'>> = Object.freeze({
  description: '',
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  waiting_period_threshold: 0,
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  move_messages_within_stream_limit_seconds: 7 * 24 * 3600,
  move_messages_between_streams_limit_seconds: 7 * 24 * 3600,
  message_content_delete_limit_seconds: null,
  allow_edit_history: true,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  send_welcome_emails: false,
  digest_emails_enabled: false,
  // Zulip turns read receipts on for a new organization that is closed (invitations
  // required, or addresses restricted to its domains): this server creates every
  // organization with invitations required, so they start on.
  enable_read_receipts: readReceiptsByDefault({ invite_required: true, emails_restricted_to_domains: false }),
  require_unique_names: false,
  presence_disabled: false,
  enable_spectator_access: false,
  email_address_visibility: 1,
  video_chat_provider: VIDEO_CHAT_PROVIDERS.jitsi_meet,
  can_add_custom_emoji_group: SYSTEM_GROUP.members,
  can_add_subscribers_group: SYSTEM_GROUP.members,
  can_create_bots_group: SYSTEM_GROUP.members,
  can_create_groups: SYSTEM_GROUP.members,
  can_create_private_channel_group: SYSTEM_GROUP.members,
  can_create_public_channel_group: SYSTEM_GROUP.members,
  can_create_web_public_channel_group: SYSTEM_GROUP.owners,
  can_create_write_only_bots_group: SYSTEM_GROUP.members,
  can_delete_any_message_group: SYSTEM_GROUP.administrators,
  can_delete_own_message_group: SYSTEM_GROUP.everyone,
  can_invite_users_group: SYSTEM_GROUP.administrators,
  create_multiuse_invite_group: SYSTEM_GROUP.administrators,
  can_manage_all_groups: SYSTEM_GROUP.owners,
  can_mention_many_users_group: SYSTEM_GROUP.administrators,
  can_move_messages_between_channels_group: SYSTEM_GROUP.members,
  can_move_messages_between_topics_group: SYSTEM_GROUP.everyone,
  can_resolve_topics_group: SYSTEM_GROUP.everyone,
  can_set_delete_message_policy_group: SYSTEM_GROUP.moderators,
  can_set_topics_policy_group: SYSTEM_GROUP.members,
  can_summarize_topics_group: SYSTEM_GROUP.everyone,
  direct_message_initiator_group: SYSTEM_GROUP.everyone,
  direct_message_permission_group: SYSTEM_GROUP.everyone,
  moderation_request_channel_id: NO_CHANNEL,
});

/** The settings as they stand after `changes` (facts replayed in order). */
export function applyRealmChanges(settings: RealmSettings, changes: Readonly<Record<string, RealmSettingValue>>): RealmSettings {
  const next = { ...settings } as Record<string, RealmSettingValue>;
  for (const [name, value] of Object.entries(changes)) if (Object.hasOwn(REALM_SETTINGS, name)) next[name] = value;
  return next as RealmSettings;
}

export const realmSettingsOf = (name: string): RealmSettings => ({ ...DEFAULT_REALM_SETTINGS, name });
