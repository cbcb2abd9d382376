/**
 * Organization policies for changing messages. Until organization settings and user
 * groups exist, they hold Zulip's defaults, with each group-setting expressed as the
 * role-based system group it defaults to (a role number: that role or more privileged).
 * Channel-level settings (can_move_messages_within_channel_group, …) default to
 * "nobody", so they grant nothing beyond these yet.
 */
import { ROLE } from '@teamchat/contracts';

export const ORGANIZATION_POLICY = {
  /** Senders may edit their content for this long (Zulip's default, 10 minutes). */
  messageContentEditLimitSeconds: 600,
  /** Who may move messages between topics of a channel, and for how long (3 days). */
  canMoveMessagesBetweenTopicsRole: ROLE.member,
  moveMessagesWithinChannelLimitSeconds: 3 * 24 * 3600,
  /** Who may move messages to another channel, and for how long. */
  canMoveMessagesBetweenChannelsRole: ROLE.member,
  moveMessagesBetweenChannelsLimitSeconds: 3 * 24 * 3600,
  /** Who may delete their own messages (no time limit by default) and anyone's. */
  canDeleteOwnMessageRole: ROLE.guest,
  messageContentDeleteLimitSeconds: null as number | null,
  canDeleteAnyMessageRole: ROLE.administrator,
  /** Who may use channel and topic wildcard mentions in busy conversations. */
  canMentionManyUsersRole: ROLE.administrator,
  /** "Many users": more subscribers or topic participants than this. */
  wildcardMentionLargeThreshold: 15,
} as const;

/** Lower role numbers are more privileged: 100 owner … 600 guest. */
export const hasRole = (role: number, atLeast: number) => role <= atLeast;

/** Moderators and above are not bound by the move time limits (as in Zulip). */
export const exemptFromMoveLimits = (role: number) => hasRole(role, ROLE.moderator);
