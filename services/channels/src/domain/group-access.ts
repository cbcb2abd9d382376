/**
 * When a user group gains or loses members or subgroups, who may see a private channel
 * whose can_administer_channel_group or can_add_subscribers_group names it changes (Zulip
 * sends the channel to those who see it only now and its removal to those who no longer
 * do). Pure: the channels, their subscribers, the users and the groups after the change
 * come from the caller; the groups before it are derived from the fact.
 */
import { SYSTEM_GROUP_NAMES, type ChannelView, type FactOf, type GroupMember, type GroupSettingValue } from '@teamchat/contracts';
import { metadataAudience, type DirectoryGroup, type GroupDirectory } from '@teamchat/policies';

export type GroupMembershipFact = FactOf<'UserGroupMembersAdded' | 'UserGroupMembersRemoved' | 'UserGroupSubgroupsAdded' | 'UserGroupSubgroupsRemoved'>;

const without = (ids: readonly number[], gone: readonly number[]) => ids.filter((id) => !gone.includes(id));
const withAdded = (ids: readonly number[], added: readonly number[]) => [...new Set([...ids, ...added])];

/** The groups as they were just before `fact`, given the groups just after it. */
export function groupsBefore(after: GroupDirectory, fact: GroupMembershipFact): GroupDirectory {
  return {
    group(id: number): DirectoryGroup | undefined {
      const group = after.group(id);
      if (!group || id !== fact.group_id) return group;
      switch (fact.type) {
        case 'UserGroupMembersAdded':
          return { ...group, direct_members: without(group.direct_members, fact.user_ids) };
        case 'UserGroupMembersRemoved':
          return { ...group, direct_members: withAdded(group.direct_members, fact.user_ids) };
        case 'UserGroupSubgroupsAdded':
          return { ...group, direct_subgroups: without(group.direct_subgroups, fact.subgroup_ids) };
        case 'UserGroupSubgroupsRemoved':
          return { ...group, direct_subgroups: withAdded(group.direct_subgroups, fact.subgroup_ids) };
      }
    },
  };
}

/** A value that only system groups make up cannot change with a custom group's membership. */
const namesCustomGroups = (value: GroupSettingValue) =>
  typeof value === 'number' ? !Object.hasOwn(SYSTEM_GROUP_NAMES, value) : value.direct_subgroups.some((id) => !Object.hasOwn(SYSTEM_GROUP_NAMES, id));

/**
 * The private channels whose audience a change of groups or roles may move: public and web-public channels
 * are seen by every member whatever they say. Archived channels are left out: clients
 * that do not ask for them are never told of them.
 */
export const isPrivateAndLive = (channel: ChannelView) => channel.invite_only && !channel.is_web_public && !channel.is_archived;

/** Of those, the ones whose access a custom group's membership can move. */
export const mayChangeAccess = (channel: ChannelView) =>
  isPrivateAndLive(channel) &&
  (namesCustomGroups(channel.can_administer_channel_group) || namesCustomGroups(channel.can_add_subscribers_group));

export interface AccessContext {
  channel: ChannelView;
  subscriber_ids: number[];
  first_message_id: number | null;
}

/**
 * One ChannelAccessChanged per private channel whose audience a role change moved: an
 * administrator sees every private channel, so crossing that line shows or hides them.
 */
export function decideRoleAccess(
  fact: FactOf<'UserRoleChanged'>,
  channels: AccessContext[],
  users: GroupMember[],
  groups: GroupDirectory,
  nowSeconds: number,
): FactOf<'ChannelAccessChanged'>[] {
  const before = users.map((u) => (u.user_id === fact.user_id ? { ...u, role: fact.old_role } : u));
  const after = users.map((u) => (u.user_id === fact.user_id ? { ...u, role: fact.role } : u));
  const facts: FactOf<'ChannelAccessChanged'>[] = [];
  for (const { channel, subscriber_ids, first_message_id } of channels) {
    if (!isPrivateAndLive(channel)) continue;
    const subscribers = new Set(subscriber_ids);
    const saw = metadataAudience(channel, before, subscribers, nowSeconds, groups).includes(fact.user_id);
    const sees = metadataAudience(channel, after, subscribers, nowSeconds, groups).includes(fact.user_id);
    if (saw === sees) continue;
    facts.push({
      type: 'ChannelAccessChanged',
      channel_id: channel.channel_id,
      name: channel.name,
      role_user_id: fact.user_id,
      ...(sees
        ? { shown: { user_ids: [fact.user_id], channel, subscriber_ids: [...subscribers].sort((a, b) => a - b), first_message_id } }
        : { hidden_user_ids: [fact.user_id] }),
    });
  }
  return facts;
}

/** One ChannelAccessChanged per channel whose audience the group fact changed. */
export function decideGroupAccess(
  fact: GroupMembershipFact,
  channels: AccessContext[],
  users: GroupMember[],
  after: GroupDirectory,
  nowSeconds: number,
): FactOf<'ChannelAccessChanged'>[] {
  const before = groupsBefore(after, fact);
  const facts: FactOf<'ChannelAccessChanged'>[] = [];
  for (const { channel, subscriber_ids, first_message_id } of channels) {
    if (!mayChangeAccess(channel)) continue;
    const subscribers = new Set(subscriber_ids);
    const saw = new Set(metadataAudience(channel, users, subscribers, nowSeconds, before));
    const sees = metadataAudience(channel, users, subscribers, nowSeconds, after);
    const seesSet = new Set(sees);
    const shown = sees.filter((id) => !saw.has(id));
    const hidden = [...saw].filter((id) => !seesSet.has(id)).sort((a, b) => a - b);
    if (shown.length === 0 && hidden.length === 0) continue;
    facts.push({
      type: 'ChannelAccessChanged',
      channel_id: channel.channel_id,
      name: channel.name,
      group_id: fact.group_id,
      ...(shown.length ? { shown: { user_ids: shown, channel, subscriber_ids: [...subscribers].sort((a, b) => a - b), first_message_id } } : {}),
      ...(hidden.length ? { hidden_user_ids: hidden } : {}),
    });
  }
  return facts;
}
