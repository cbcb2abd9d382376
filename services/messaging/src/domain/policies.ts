/**
 * Organization policies for messages. Until organization settings exist they hold Zulip's
 * defaults (`Realm.REALM_PERMISSION_GROUP_SETTINGS` in zerver/models/realms.py), each
 * group-setting as the system group it defaults to — except moving between topics, which
 * Zulip 11 grants to role:everyone and which stays with members here so guests cannot
 * rearrange conversations.
 *
 * Channels can grant more through their own group-settings (see message-changes.ts): a
 * user may move or delete where either the organization or the channel allows it. The
 * time limits below bind everyone under moderator however the permission was granted,
 * as in Zulip, except that a channel's can_delete_any_message_group, like the
 * organization's, deletes at any time.
 */
import { isUserInGroupSetting, ROLE, SYSTEM_GROUP, type GroupMember, type GroupSettingValue } from '@teamchat/contracts';

export const ORGANIZATION_POLICY = {
  /** Senders may edit their content for this long (Zulip's default, 10 minutes). */
  messageContentEditLimitSeconds: 600,
  /** Who may move messages between topics of a channel, and for how long (3 days). */
  canMoveMessagesBetweenTopicsGroup: SYSTEM_GROUP.members,
  moveMessagesWithinChannelLimitSeconds: 3 * 24 * 3600,
  /** Who may move messages to another channel, and for how long. */
  canMoveMessagesBetweenChannelsGroup: SYSTEM_GROUP.members,
  moveMessagesBetweenChannelsLimitSeconds: 3 * 24 * 3600,
  /** Who may delete their own messages (no time limit by default) and anyone's. */
  canDeleteOwnMessageGroup: SYSTEM_GROUP.everyone,
  messageContentDeleteLimitSeconds: null as number | null,
  canDeleteAnyMessageGroup: SYSTEM_GROUP.administrators,
  /** Who may use channel and topic wildcard mentions in busy conversations. */
  canMentionManyUsersGroup: SYSTEM_GROUP.administrators,
  /** "Many users": more subscribers or topic participants than this. */
  wildcardMentionLargeThreshold: 15,
} as const;

/** Whether an organization-level group-setting includes the user. */
export const orgAllows = (group: GroupSettingValue, user: GroupMember, nowSeconds: number) => isUserInGroupSetting(group, user, nowSeconds);

/** Lower role numbers are more privileged: 100 owner … 600 guest. */
export const hasRole = (role: number, atLeast: number) => role <= atLeast;

/** Moderators and above are not bound by the move time limits (as in Zulip). */
export const exemptFromMoveLimits = (role: number) => hasRole(role, ROLE.moderator);
