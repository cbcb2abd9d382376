/**
 * Organization policies for messages. Until organization settings exist they hold Zulip's
 * defaults (`Realm.REALM_PERMISSION_GROUP_SETTINGS` and `DEFAULT_MOVE_MESSAGE_LIMIT_SECONDS`
 * in zerver/models/realms.py), each group-setting as the system group it defaults to:
 * anyone may move messages between topics (guests too, where they can post), members may
 * move them to other channels, both within 7 days.
 *
 * Channels can grant more through their own group-settings (see message-changes.ts): a
 * user may move or delete where either the organization or the channel allows it. The
 * time limits below bind everyone under moderator however the permission was granted,
 * as in Zulip, except that a channel's can_delete_any_message_group, like the
 * organization's, deletes at any time.
 */
import { isUserInGroupSetting, ROLE, SYSTEM_GROUP, type GroupMember, type GroupSettingValue } from '@teamchat/contracts';

/** The organization settings that decide who may change messages, as deciders take them. */
export interface OrganizationPolicy {
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
}

export const ORGANIZATION_POLICY: Readonly<OrganizationPolicy> = Object.freeze({
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
});

/** Whether an organization-level group-setting includes the user. */
export const orgAllows = (group: GroupSettingValue, user: GroupMember, nowSeconds: number) => isUserInGroupSetting(group, user, nowSeconds);

/** Lower role numbers are more privileged: 100 owner … 600 guest. */
export const hasRole = (role: number, atLeast: number) => role <= atLeast;

/** Moderators and above are not bound by the move time limits (as in Zulip). */
export const exemptFromMoveLimits = (role: number) => hasRole(role, ROLE.moderator);
