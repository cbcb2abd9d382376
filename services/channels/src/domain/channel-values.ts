/**
 * The values a request may give a channel, checked and brought to the form facts hold:
 * names, descriptions, retention periods and group-settings.
 */
import {
  badRequest,
  CHANNEL_GROUP_SETTING_RULES,
  LIMITS,
  SYSTEM_GROUP,
  type ChannelGroupSettingName,
  type GroupMember,
  type GroupSettingValue,
} from '@teamchat/contracts';
import { codePointLength, directMembersOf, orgAllows, ORGANIZATION_POLICY as POLICY, parseGroupSetting, webPublicRefusal, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { insufficientPermission } from './registry';

export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw badRequest('Channel name is required');
  if (codePointLength(name) > LIMITS.max_stream_name_length) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.max_stream_name_length} characters)`);
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest('Invalid character in channel name');
  return name;
}

/** Zulip keeps descriptions on one line: newlines become spaces (before rendering). */
export function normalizeDescription(raw: string): string {
  const description = raw.replace(/\r?\n/g, ' ');
  if (codePointLength(description) > LIMITS.max_stream_description_length) throw badRequest('Channel description too long');
  return description;
}

/** `realm_default` (null: the organization's setting), `unlimited` (-1) or a positive number of days. */
export function parseMessageRetentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  if (typeof value === 'number' && value > 0) return value;
  throw badRequest(`Bad value for 'message_retention_days': ${String(value)}`);
}

const DELETE_SETTINGS: ReadonlySet<ChannelGroupSettingName> = new Set(['can_delete_any_message_group', 'can_delete_own_message_group']);

/**
 * Checks a requested group-setting value: known groups (system groups and the active
 * custom groups of `groups`), active direct members, and — as
 * Zulip — only users who may set the deletion policy may grant channel-level deletion.
 */
export function parseChannelGroupSetting(
  name: ChannelGroupSettingName,
  value: GroupSettingValue,
  actor: GroupMember | undefined,
  activeUserIds: ReadonlySet<number>,
  nowSeconds: number,
  groups: GroupDirectory,
  policy: OrganizationPolicy = POLICY,
): GroupSettingValue {
  const parsed = parseGroupSetting(name, value, CHANNEL_GROUP_SETTING_RULES[name], groups);
  const unknown = directMembersOf(parsed).find((id) => !activeUserIds.has(id));
  if (unknown !== undefined) throw badRequest(`Invalid user ID: ${unknown}`);
  if (actor && DELETE_SETTINGS.has(name) && parsed !== SYSTEM_GROUP.nobody && !orgAllows(policy.canSetDeleteMessagePolicyGroup, actor, nowSeconds, groups)) {
    throw insufficientPermission();
  }
  return parsed;
}

/** Refuses making a channel web-public unless the server, the organization and the actor allow it. */
export function checkWebPublic(policy: OrganizationPolicy, actor: GroupMember | undefined, nowSeconds: number, groups: GroupDirectory): void {
  const refusal = webPublicRefusal(policy, actor, nowSeconds, groups);
  if (refusal === 'disabled') throw badRequest('Web-public channels are not enabled.');
  if (refusal === 'not_allowed') throw insufficientPermission();
}
