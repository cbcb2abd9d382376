/**
 * Accounts' sections of POST /register: the organization's settings, its users and bots,
 * the system groups and the caller's settings, from accounts' own read models.
 */
import { SYSTEM_GROUP, wantsState, type AccountsState, type GroupSettingValue, type StateParams } from '@teamchat/contracts';
import type { AnnouncementsChannel, Directory, UserDoc, UserGroups } from '@teamchat/directory';
import { emailDomainOf, isAdministrator, isOwner, ORGANIZATION_POLICY } from '@teamchat/policies';
import type { AccountsReadModel } from '../projections/credentials';
import { notificationBotUser, welcomeBotUser } from './notification-bot';
import { userProfile } from './profile';
import { userGroupObjects } from './user-groups';
import { botObject, botsOf, personObject } from './people';

export { systemGroups } from './user-groups';

export interface AccountsStateDeps {
  directory: { allUsers(): Promise<UserDoc[]>; userById(id: number): Promise<UserDoc | undefined>; channelById: Directory['channelById'] };
  /** The organization's host (hidden addresses are shown as `user{id}@host`). */
  realmHost: string;
  accounts: AccountsReadModel;
  userGroups: Pick<UserGroups, 'snapshot'>;
  /** Absent: no new-channel announcements channel. */
  announcements?: Pick<AnnouncementsChannel, 'channelId'>;
  realmUri: string;
  apiKeyOf(user: UserDoc): Promise<string>;
}

const ROLE_MODERATOR = 300;
const ROLE_GUEST = 600;

export async function accountsState(deps: AccountsStateDeps, userId: number, params: StateParams): Promise<AccountsState> {
  const want = (type: string) => wantsState(params, type);
  const state: AccountsState = {};
  const me = await deps.directory.userById(userId);
  if (!me) return state;
  const needUsers = want('realm_user') || want('realm_bot') || want('user_group') || want('realm_user_groups');
  const users = needUsers ? (await deps.directory.allUsers()).sort((a, b) => a._id - b._id) : [];
  if (want('realm')) state.realm = await realmSettings(deps);
  if (want('realm_user')) {
    const options = { client_gravatar: params.client_gravatar === true, host: emailDomainOf(deps.realmHost) };
    // Custom profile fields are not built yet: every user's profile data is empty.
    const realmUser = (user: UserDoc) => ({ ...personObject(me, user, options), profile_data: {} });
    state.realm_users = users.filter((u) => u.is_active).map(realmUser);
    state.realm_non_active_users = users.filter((u) => !u.is_active).map(realmUser);
    // The notification bot, a system user outside the organization, as Zulip lists its cross-realm bots.
    state.cross_realm_bots = [notificationBotUser(params.client_gravatar === true), welcomeBotUser(params.client_gravatar === true)];
    state.me = {
      user_id: me._id,
      email: me.email,
      delivery_email: me.email,
      full_name: me.full_name,
      is_admin: isAdministrator(me.role),
      is_owner: isOwner(me.role),
      is_moderator: me.role === ROLE_MODERATOR,
      is_guest: me.role === ROLE_GUEST,
      is_billing_admin: false,
      role: me.role,
      avatar_source: 'G',
      avatar_url: params.client_gravatar ? null : userProfile(me).avatar_url,
      avatar_url_medium: userProfile(me).avatar_url,
      can_create_streams: me.role !== ROLE_GUEST,
      can_create_public_streams: me.role !== ROLE_GUEST,
      can_create_private_streams: me.role !== ROLE_GUEST,
      can_create_web_public_streams: false,
      can_subscribe_other_users: me.role !== ROLE_GUEST,
      can_invite_others_to_realm: isAdministrator(me.role),
      user_list_incomplete: false,
    };
  }
  if (want('realm_bot')) {
    // Administrators see every bot; others their own, as in Zulip.
    state.realm_bots = await Promise.all(botsOf(me, users).map((bot) => botObject(deps, bot)));
  }
  if (want('user_group') || want('realm_user_groups')) {
    state.realm_user_groups = userGroupObjects(users, await deps.userGroups.snapshot(), params.include_deactivated_groups === true);
  }
  // The legacy types ask for the same settings, which the events service puts at the top level.
  if (want('user_settings') || want('update_display_settings') || want('update_global_notifications')) state.user_settings = defaultUserSettings(me);
  return state;
}

async function realmSettings(deps: AccountsStateDeps): Promise<Record<string, unknown>> {
  const org = await deps.accounts.organization.get('organization');
  const policy = ORGANIZATION_POLICY;
  const group = (value: GroupSettingValue) => value;
  return {
    realm_name: org?.name ?? '',
    realm_description: '',
    realm_uri: deps.realmUri,
    realm_url: deps.realmUri,
    realm_date_created: org?.date_created ?? 0,
    realm_icon_url: '',
    realm_icon_source: 'G',
    realm_logo_url: '',
    realm_logo_source: 'D',
    realm_night_logo_url: '',
    realm_night_logo_source: 'D',
    realm_default_language: 'en',
    realm_invite_required: true,
    realm_emails_restricted_to_domains: false,
    realm_disallow_disposable_email_addresses: true,
    realm_waiting_period_threshold: 0,
    realm_allow_message_editing: true,
    realm_message_content_edit_limit_seconds: policy.messageContentEditLimitSeconds,
    realm_message_content_delete_limit_seconds: policy.messageContentDeleteLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: policy.moveMessagesWithinChannelLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: policy.moveMessagesBetweenChannelsLimitSeconds,
    realm_mandatory_topics: false,
    realm_topics_policy: 'allow_empty_topic',
    realm_message_retention_days: -1,
    realm_is_zephyr_mirror_realm: false,
    realm_inline_image_preview: true,
    realm_inline_url_embed_preview: false,
    realm_send_welcome_emails: false,
    realm_digest_emails_enabled: false,
    realm_presence_disabled: false,
    realm_enable_spectator_access: false,
    realm_web_public_access_enabled: policy.webPublicChannelsEnabled,
    realm_push_notifications_enabled: false,
    realm_plan_type: 1,
    realm_org_type: 0,
    realm_upload_quota_mib: null,
    realm_video_chat_provider: 0,
    realm_available_video_chat_providers: {},
    realm_authentication_methods: {},
    realm_bot_domain: emailDomainOf(deps.realmHost),
    realm_wildcard_mention_policy: 5,
    realm_enable_read_receipts: false,
    realm_require_unique_names: false,
    realm_new_stream_announcements_stream_id: (await deps.announcements?.channelId()) ?? -1,
    realm_signup_announcements_stream_id: -1,
    realm_zulip_update_announcements_stream_id: -1,
    realm_can_create_public_channel_group: group(policy.canCreatePublicChannelGroup),
    realm_can_create_private_channel_group: group(policy.canCreatePrivateChannelGroup),
    realm_can_create_web_public_channel_group: SYSTEM_GROUP.owners,
    realm_can_add_subscribers_group: group(policy.canAddSubscribersGroup),
    realm_can_set_topics_policy_group: group(policy.canSetTopicsPolicyGroup),
    realm_can_set_delete_message_policy_group: group(policy.canSetDeleteMessagePolicyGroup),
    realm_can_move_messages_between_topics_group: group(policy.canMoveMessagesBetweenTopicsGroup),
    realm_can_move_messages_between_channels_group: group(policy.canMoveMessagesBetweenChannelsGroup),
    realm_can_delete_own_message_group: group(policy.canDeleteOwnMessageGroup),
    realm_can_delete_any_message_group: group(policy.canDeleteAnyMessageGroup),
    realm_can_mention_many_users_group: group(policy.canMentionManyUsersGroup),
    realm_can_access_all_users_group: SYSTEM_GROUP.everyone,
    realm_can_invite_users_group: SYSTEM_GROUP.administrators,
    realm_can_create_groups: group(policy.canCreateGroups),
    realm_can_manage_all_groups: group(policy.canManageAllGroups),
    realm_create_multiuse_invite_group: SYSTEM_GROUP.administrators,
    realm_direct_message_permission_group: SYSTEM_GROUP.everyone,
    realm_direct_message_initiator_group: SYSTEM_GROUP.everyone,
    realm_can_add_custom_emoji_group: SYSTEM_GROUP.members,
    realm_can_create_bots_group: SYSTEM_GROUP.members,
    realm_can_create_write_only_bots_group: SYSTEM_GROUP.members,
    realm_can_resolve_topics_group: SYSTEM_GROUP.everyone,
    realm_can_summarize_topics_group: SYSTEM_GROUP.everyone,
    realm_allow_edit_history: true,
    realm_default_code_block_language: '',
    realm_message_edit_history_visibility_policy: 'all',
    realm_is_me_message_enabled: true,
    max_avatar_file_size_mib: 5,
    max_file_upload_size_mib: 0,
    max_icon_file_size_mib: 5,
    max_logo_file_size_mib: 5,
    realm_max_file_upload_size_mib: 0,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_web_public_streams_enabled: policy.webPublicChannelsEnabled,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: false,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: 140,
    server_typing_started_expiry_period_milliseconds: 15000,
    server_typing_stopped_wait_period_milliseconds: 5000,
    server_typing_started_wait_period_milliseconds: 10000,
  };
}

/** Zulip's defaults for a new user (settings are not configurable here yet). */
function defaultUserSettings(me: UserDoc): NonNullable<AccountsState['user_settings']> {
  return {
    twenty_four_hour_time: false,
    dense_mode: true,
    web_font_size_px: 14,
    web_line_height_percent: 122,
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
    timezone: me.timezone,
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
    enable_marketing_emails: true,
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
    web_left_sidebar_show_channel_folders: true,
    web_left_sidebar_unreads_count_summary: true,
    web_navigate_to_sent_message: true,
  };
}
