/**
 * Accounts' sections of POST /register: the organization's settings, its users and bots,
 * the system groups and the caller's settings, from accounts' own read models.
 */
import { avatarUrlOf, DEFAULT_MAX_AVATAR_FILE_SIZE_MIB, DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB, shownAvatarUrl, SYSTEM_GROUP, USER_SETTING_DEFAULTS, wantsState, type AccountsState, type GroupSettingValue, type RealmSettings, type StateParams } from '@teamchat/contracts';
import type { AnnouncementsChannel, Directory, UserDoc, UserGroups } from '@teamchat/directory';
import { emailDomainOf, isAdministrator, isOwner, isUserInGroupSetting, ORGANIZATION_POLICY, webPublicRefusal, type OrganizationPolicy } from '@teamchat/policies';
import type { AccountsReadModel } from '../projections/credentials';
import { serverEmojiDataUrl } from '@teamchat/markdown';
import { defaultExternalAccounts } from '../domain/profile-fields';
import { systemBotUsers } from './system-bots';
import { userGroupObjects } from './user-groups';
import { botObject, botsOf, emailVisibilityOf, personJsonHead, profileDataOf } from './people';

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
  /** The organization's settings as they stand (email visibility, the can_* flags). */
  realmSettings: { current(): Promise<RealmSettings>; policy(): Promise<OrganizationPolicy> };
  /** A user's own settings as they changed them. */
  userSettings(userId: number): Promise<Record<string, unknown>>;
  /** Every user's own email_address_visibility where they set one. */
  emailVisibilities?: () => Promise<ReadonlyMap<number, number>>;
  /** The server's size limits (register's max_*_file_size_mib); absent: Zulip's defaults. */
  uploads?: { maxFileUploadSizeMib: number; maxAvatarFileSizeMib: number };
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
    // realm_users and realm_non_active_users come as JSON (realmUsersMembers).
    // The system bots (notification, welcome), users outside the organization, as Zulip lists its cross-realm bots.
    state.cross_realm_bots = systemBotUsers(params.client_gravatar === true);
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
      avatar_source: me.avatar?.avatar_source ?? 'G',
      avatar_url: shownAvatarUrl(me.email, me.avatar, params.client_gravatar === true),
      avatar_url_medium: avatarUrlOf(me.email, me.avatar, true),
      ...(await permissionFlags(deps, me)),
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

/**
 * register's realm_users and realm_non_active_users as one JSON object in UTF-8
 * (`{"realm_users":[…],"realm_non_active_users":[…]}`), each user with their custom
 * profile field values: each person's JSON is kept per user document (personJsonHead),
 * so at 10,000 users no person object is built or serialized per registration, and the
 * answer is put together by copying bytes. Undefined when the section is not wanted.
 */
export async function realmUsersMembers(
  deps: Pick<AccountsStateDeps, 'directory' | 'realmHost' | 'realmSettings' | 'userSettings' | 'emailVisibilities'>,
  userId: number,
  params: StateParams,
  profileValues: ReadonlyMap<number, Readonly<Record<string, string>>>,
): Promise<Buffer | undefined> {
  if (!wantsState(params, 'realm_user')) return undefined;
  const me = await deps.directory.userById(userId);
  if (!me) return undefined;
  const users = (await deps.directory.allUsers()).sort((a, b) => a._id - b._id);
  const emailVisibility = await emailVisibilityOf(deps, users.map((u) => u._id));
  const options = { client_gravatar: params.client_gravatar === true, host: emailDomainOf(deps.realmHost), emailVisibility };
  const active: Buffer[] = [];
  const inactive: Buffer[] = [];
  for (const user of users) {
    const list = user.is_active ? active : inactive;
    if (list.length > 0) list.push(COMMA);
    list.push(personJsonHead(me, user, options));
    const values = profileValues.get(user._id);
    list.push(values ? Buffer.from(`,"profile_data":${JSON.stringify(profileDataOf(values))}}`) : NO_PROFILE_DATA);
  }
  return Buffer.concat([USERS_OPEN, ...active, BETWEEN_LISTS, ...inactive, LISTS_CLOSE]);
}

const COMMA = Buffer.from(',');
const NO_PROFILE_DATA = Buffer.from(',"profile_data":{}}');
const USERS_OPEN = Buffer.from('{"realm_users":[');
const BETWEEN_LISTS = Buffer.from('],"realm_non_active_users":[');
const LISTS_CLOSE = Buffer.from(']}');

/** The user's can_* flags, from the organization's settings as they stand (Zulip's legacy register fields). */
async function permissionFlags(deps: AccountsStateDeps, me: UserDoc) {
  const settings = await deps.realmSettings.current();
  const policy = await deps.realmSettings.policy();
  const groups = await deps.userGroups.snapshot();
  const member = { user_id: me._id, role: me.role, date_joined: me.date_joined };
  const now = Math.floor(Date.now() / 1000);
  const allows = (setting: GroupSettingValue) => isUserInGroupSetting(setting, member, now, groups);
  const publicChannels = allows(settings.can_create_public_channel_group);
  const privateChannels = allows(settings.can_create_private_channel_group);
  return {
    can_create_streams: publicChannels || privateChannels,
    can_create_public_streams: publicChannels,
    can_create_private_streams: privateChannels,
    can_create_web_public_streams: webPublicRefusal(policy, member, now, groups) === null,
    can_subscribe_other_users: allows(settings.can_add_subscribers_group),
    can_invite_others_to_realm: allows(settings.can_invite_users_group),
  };
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
    // No push bouncer: push notifications are off, with no date they end (Zulip's values without one).
    realm_push_notifications_enabled: false,
    realm_push_notifications_enabled_end_timestamp: null,
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
    max_avatar_file_size_mib: deps.uploads?.maxAvatarFileSizeMib ?? DEFAULT_MAX_AVATAR_FILE_SIZE_MIB,
    max_file_upload_size_mib: deps.uploads?.maxFileUploadSizeMib ?? DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB,
    max_icon_file_size_mib: 5,
    max_logo_file_size_mib: 5,
    // No plan limits here: the organization's limit is the server's.
    realm_max_file_upload_size_mib: deps.uploads?.maxFileUploadSizeMib ?? DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB,
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
    realm_default_external_accounts: defaultExternalAccounts(),
    // The renderer's emoji catalogue as a file (gateway, http/emoji-data.ts), for the apps' pickers.
    server_emoji_data_url: serverEmojiDataUrl(deps.realmUri),
  };
}

/** Every setting at Zulip's default for a new user; the user's changes are laid over them (service.ts). */
function defaultUserSettings(me: UserDoc): NonNullable<AccountsState['user_settings']> {
  return { ...USER_SETTING_DEFAULTS, timezone: me.timezone };
}
