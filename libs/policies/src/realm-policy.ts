/**
 * The organization's policy as deciders take it, from its current settings (PATCH /realm).
 * Each service that decides permissions projects the settings facts itself and derives the
 * policy here, so that every service reads a setting the same way.
 */
import type { RealmSettings } from '@teamchat/contracts';
import { ORGANIZATION_POLICY, type OrganizationPolicy } from './organization-policy';

export function organizationPolicyOf(settings: RealmSettings): OrganizationPolicy {
  return {
    ...ORGANIZATION_POLICY,
    canCreatePublicChannelGroup: settings.can_create_public_channel_group,
    canCreatePrivateChannelGroup: settings.can_create_private_channel_group,
    canAddSubscribersGroup: settings.can_add_subscribers_group,
    canSetTopicsPolicyGroup: settings.can_set_topics_policy_group,
    canSetDeleteMessagePolicyGroup: settings.can_set_delete_message_policy_group,
    enableSpectatorAccess: settings.enable_spectator_access,
    canCreateWebPublicChannelGroup: settings.can_create_web_public_channel_group,
    allowMessageEditing: settings.allow_message_editing,
    messageContentEditLimitSeconds: settings.message_content_edit_limit_seconds ?? Number.MAX_SAFE_INTEGER,
    canMoveMessagesBetweenTopicsGroup: settings.can_move_messages_between_topics_group,
    moveMessagesWithinChannelLimitSeconds: settings.move_messages_within_stream_limit_seconds ?? Number.MAX_SAFE_INTEGER,
    canMoveMessagesBetweenChannelsGroup: settings.can_move_messages_between_channels_group,
    moveMessagesBetweenChannelsLimitSeconds: settings.move_messages_between_streams_limit_seconds ?? Number.MAX_SAFE_INTEGER,
    canDeleteOwnMessageGroup: settings.can_delete_own_message_group,
    messageContentDeleteLimitSeconds: settings.message_content_delete_limit_seconds,
    canDeleteAnyMessageGroup: settings.can_delete_any_message_group,
    canMentionManyUsersGroup: settings.can_mention_many_users_group,
    canCreateGroups: settings.can_create_groups,
    canManageAllGroups: settings.can_manage_all_groups,
  };
}
