/**
 * Organization-level policies for channels. Until organization settings exist they hold
 * Zulip's defaults (`Realm.REALM_PERMISSION_GROUP_SETTINGS` in zerver/models/realms.py),
 * each as the system group it defaults to.
 */
import { ROLE, SYSTEM_GROUP } from '@teamchat/contracts';

export const ORGANIZATION_POLICY = {
  canCreatePublicChannelGroup: SYSTEM_GROUP.members,
  canCreatePrivateChannelGroup: SYSTEM_GROUP.members,
  /** Who may subscribe others to channels they can access (channels can grant more). */
  canAddSubscribersGroup: SYSTEM_GROUP.members,
  /** Who may give a channel a topics policy other than `inherit`. */
  canSetTopicsPolicyGroup: SYSTEM_GROUP.members,
  /** Who may grant channel-level deletion rights (can_delete_*_message_group). */
  canSetDeleteMessagePolicyGroup: SYSTEM_GROUP.moderators,
  /**
   * The server has no web-public setting (Zulip's WEB_PUBLIC_STREAMS_ENABLED, off by
   * default here), so no channel can be web-public.
   */
  webPublicChannelsEnabled: false,
} as const;

/** Default channels are managed by administrators; retention periods by owners (as Zulip). */
export const isAdministrator = (role: number) => role <= ROLE.administrator;
export const isOwner = (role: number) => role <= ROLE.owner;
