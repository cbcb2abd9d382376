/**
 * Organization-level policies. Until organization settings exist they hold Zulip's
 * defaults (`Realm.REALM_PERMISSION_GROUP_SETTINGS` and `DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS`
 * in zerver/models/realms.py), each group-setting as the system group it defaults to.
 *
 * Channels can grant more through their own group-settings: a user may move or delete
 * where either the organization or the channel allows it. The move time limits bind
 * everyone under moderator however the permission was granted, as in Zulip, except that a
 * channel's can_delete_any_message_group, like the organization's, deletes at any time.
 */
import { SYSTEM_GROUP, type GroupMember, type GroupSettingValue } from '@teamchat/contracts';
import { isUserInGroupSetting, type GroupDirectory } from './group-settings';
import { isModerator } from './roles';

/** The organization settings that decide who may do what, as deciders take them. */
export interface OrganizationPolicy {
  canCreatePublicChannelGroup: GroupSettingValue;
  canCreatePrivateChannelGroup: GroupSettingValue;
  /** Who may subscribe others to channels they can access (channels can grant more). */
  canAddSubscribersGroup: GroupSettingValue;
  /** Who may give a channel a topics policy other than `inherit`. */
  canSetTopicsPolicyGroup: GroupSettingValue;
  /** Who may grant channel-level deletion rights (can_delete_*_message_group). */
  canSetDeleteMessagePolicyGroup: GroupSettingValue;
  /**
   * The server has no web-public setting (Zulip's WEB_PUBLIC_STREAMS_ENABLED, off by
   * default here), so no channel can be web-public.
   */
  webPublicChannelsEnabled: boolean;
  /** The organization lets spectators (no account) read web-public channels (Zulip's enable_spectator_access). */
  enableSpectatorAccess: boolean;
  /** Who may create web-public channels, or make a channel web-public. */
  canCreateWebPublicChannelGroup: GroupSettingValue;
  /** Whether content may be edited at all. */
  allowMessageEditing: boolean;
  /** Senders may edit their content for this long. */
  messageContentEditLimitSeconds: number;
  /** Who may move messages between topics of a channel, and for how long. */
  canMoveMessagesBetweenTopicsGroup: GroupSettingValue;
  moveMessagesWithinChannelLimitSeconds: number;
  /** Who may move messages to another channel, and for how long. */
  canMoveMessagesBetweenChannelsGroup: GroupSettingValue;
  moveMessagesBetweenChannelsLimitSeconds: number;
  /** Who may delete their own messages (null: no time limit) and anyone's. */
  canDeleteOwnMessageGroup: GroupSettingValue;
  messageContentDeleteLimitSeconds: number | null;
  canDeleteAnyMessageGroup: GroupSettingValue;
  /** Who may use channel and topic wildcard mentions in busy conversations. */
  canMentionManyUsersGroup: GroupSettingValue;
  /** "Many users": more subscribers or topic participants than this. */
  wildcardMentionLargeThreshold: number;
  /** Who may create user groups, and who manages every user group. */
  canCreateGroups: GroupSettingValue;
  canManageAllGroups: GroupSettingValue;
  /** Who sees users' real email addresses (EMAIL_ADDRESS_VISIBILITY in people.ts). */
  emailAddressVisibility: number;
  /** Who may create bots, and incoming-webhook ("write-only") bots. */
  canCreateBotsGroup: GroupSettingValue;
  canCreateWriteOnlyBotsGroup: GroupSettingValue;
}

/**
 * Members create channels, subscribe others and set topics policies; moderators grant
 * deletion rights. Anyone may move messages between topics (guests too, where they can
 * post), members may move them to other channels, both within 7 days.
 */
export const ORGANIZATION_POLICY: Readonly<OrganizationPolicy> = Object.freeze({
  canCreatePublicChannelGroup: SYSTEM_GROUP.members,
  canCreatePrivateChannelGroup: SYSTEM_GROUP.members,
  canAddSubscribersGroup: SYSTEM_GROUP.members,
  canSetTopicsPolicyGroup: SYSTEM_GROUP.members,
  canSetDeleteMessagePolicyGroup: SYSTEM_GROUP.moderators,
  webPublicChannelsEnabled: false,
  enableSpectatorAccess: false,
  // Zulip's default: owners.
  canCreateWebPublicChannelGroup: SYSTEM_GROUP.owners,
  allowMessageEditing: true,
  // Zulip's default: 10 minutes.
  messageContentEditLimitSeconds: 600,
  canMoveMessagesBetweenTopicsGroup: SYSTEM_GROUP.everyone,
  moveMessagesWithinChannelLimitSeconds: 7 * 24 * 3600,
  canMoveMessagesBetweenChannelsGroup: SYSTEM_GROUP.members,
  moveMessagesBetweenChannelsLimitSeconds: 7 * 24 * 3600,
  canDeleteOwnMessageGroup: SYSTEM_GROUP.everyone,
  messageContentDeleteLimitSeconds: null,
  canDeleteAnyMessageGroup: SYSTEM_GROUP.administrators,
  canMentionManyUsersGroup: SYSTEM_GROUP.administrators,
  wildcardMentionLargeThreshold: 15,
  canCreateGroups: SYSTEM_GROUP.members,
  canManageAllGroups: SYSTEM_GROUP.owners,
  // Zulip's default for new users (RealmUserDefault): everyone sees real addresses.
  emailAddressVisibility: 1,
  canCreateBotsGroup: SYSTEM_GROUP.members,
  canCreateWriteOnlyBotsGroup: SYSTEM_GROUP.members,
});

/** Whether an organization-level group-setting includes the user. */
export const orgAllows = (group: GroupSettingValue, user: GroupMember, nowSeconds: number, groups: GroupDirectory): boolean =>
  isUserInGroupSetting(group, user, nowSeconds, groups);

/** Moderators and above are not bound by the move time limits (as in Zulip). */
export const exemptFromMoveLimits = (role: number): boolean => isModerator(role);

/**
 * Web-public channels need the server's setting, the organization's spectator access and
 * the actor in can_create_web_public_channel_group (Zulip's order and messages); an
 * absent actor is a trusted internal caller.
 */
export function webPublicRefusal(
  policy: OrganizationPolicy,
  actor: GroupMember | undefined,
  nowSeconds: number,
  groups: GroupDirectory,
): 'disabled' | 'not_allowed' | null {
  if (!policy.webPublicChannelsEnabled || !policy.enableSpectatorAccess) return 'disabled';
  if (actor && !isUserInGroupSetting(policy.canCreateWebPublicChannelGroup, actor, nowSeconds, groups)) return 'not_allowed';
  return null;
}
