/**
 * Custom user groups in channel permissions: a group-setting may name a custom group, and
 * who holds the permission follows the group's membership (through subgroups) as the
 * command's directory of groups shows it, not the roles alone.
 */
import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, defaultChannelGroupSettings, ROLE, SYSTEM_GROUP, type GroupMember } from '@teamchat/contracts';
import { NO_CUSTOM_GROUPS, type DirectoryGroup, type GroupDirectory } from '@teamchat/policies';
import { decideArchiveChannel } from '../src/domain/archive-channel';
import { decideGroupAccess, decideRoleAccess, groupsBefore } from '../src/domain/group-access';
import { decideCreateChannels, type CreateChannels } from '../src/domain/create-channels';
import { evolveRegistry, initialRegistry, type RegistryState } from '../src/domain/registry';
import { decideSubscribe, decideSubscribeRequest, initialChannel } from '../src/domain/subscriptions';
import { decideUnsubscribeRequest } from '../src/domain/unsubscribe';
import { decideUpdateChannel } from '../src/domain/update-channel';
import { channelCreated } from './fixtures';

const NOW = 1_700_000_000_999;
const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: 1_600_000_000 });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const mark = person(4, ROLE.member);
const mary = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const users = [owner, admin, mark, mary, guest];

/** Group 9 ("reviewers") holds Mary directly and group 10 ("leads"), which holds `leads`. */
function directory(reviewers: number[], leads: number[] = [], deactivated: number[] = []): GroupDirectory {
  const groups: Record<number, DirectoryGroup> = {
    9: { direct_members: reviewers, direct_subgroups: [10], deactivated: deactivated.includes(9) },
    10: { direct_members: leads, direct_subgroups: [], deactivated: deactivated.includes(10) },
  };
  return { group: (id) => groups[id] };
}
const withMary = directory([5]);
const withoutMary = directory([]);

/** A private channel of the administrator's, which group 9 administers and may add subscribers to. */
const secret = channelCreated(2, 'secret', {
  creator_id: 2,
  invite_only: true,
  history_public_to_subscribers: false,
  ...defaultChannelGroupSettings(2),
  can_administer_channel_group: 9,
  can_remove_subscribers_group: 9,
});
/** A private channel group 9 may add subscribers to (which gives content access too). */
const club = channelCreated(3, 'club', {
  creator_id: 2,
  invite_only: true,
  history_public_to_subscribers: false,
  ...defaultChannelGroupSettings(2),
  can_add_subscribers_group: 9,
});
const registry: RegistryState = [channelCreated(1, 'general', { creator_id: 2, ...defaultChannelGroupSettings(2) }), secret, club].reduce(
  evolveRegistry,
  initialRegistry(),
);
const secretView = channelFromCreated(secret);

const msgOf = (run: () => unknown) => {
  try {
    run();
    return 'allowed';
  } catch (err) {
    return (err as { msg: string }).msg;
  }
};

describe('group-settings naming custom groups', () => {
  const create = (groups: GroupDirectory, value: CreateChannels['settings']['group_settings']) =>
    decideCreateChannels(registry, {
      actor: mark,
      channels: [{ name: 'new', description: '', rendered_description: '' }],
      settings: { invite_only: true, is_web_public: false, is_default: false, group_settings: value },
      users,
      groups,
      now: NOW,
    });

  it('accepts an active custom group, alone or in an anonymous group, and refuses unknown or deactivated ones', () => {
    expect(create(withMary, { can_administer_channel_group: 9 })[0]).toMatchObject({ can_administer_channel_group: 9 });
    expect(create(withMary, { can_send_message_group: { direct_members: [4], direct_subgroups: [10] } })[0]).toMatchObject({
      can_send_message_group: { direct_members: [4], direct_subgroups: [10] },
    });
    expect(msgOf(() => create(NO_CUSTOM_GROUPS, { can_administer_channel_group: 9 }))).toBe('Invalid user group ID: 9');
    expect(msgOf(() => create(directory([5], [], [9]), { can_administer_channel_group: 9 }))).toBe('Invalid user group ID: 9');
    expect(msgOf(() => create(withMary, { can_add_subscribers_group: { direct_members: [], direct_subgroups: [9, 11] } }))).toBe('Invalid user group ID: 11');
  });

  it('tells the members of a group that gives metadata access of the new private channel', () => {
    // The creator (Mark) administers it; the group adds Mary, or nobody new when it holds Mark.
    expect(create(withMary, { can_add_subscribers_group: 9 })[0]!.audience_user_ids).toEqual([1, 2, 4, 5]);
    expect(create(directory([], [4]), { can_add_subscribers_group: 9 })[0]!.audience_user_ids).toEqual([1, 2, 4]);
    expect(create(withMary, { can_add_subscribers_group: 9, can_administer_channel_group: SYSTEM_GROUP.nobody })[0]!.audience_user_ids).toEqual([1, 2, 5]);
  });
});

describe('administering a channel through a custom group', () => {
  const rename = (actor: GroupMember, groups: GroupDirectory) =>
    decideUpdateChannel(registry, {
      actor,
      channel_id: 2,
      subscribed: false,
      changes: { name: 'hush' },
      subscriber_ids: [2],
      users,
      groups,
      has_named_topics: false,
      first_message_id: null,
      now: NOW,
    });

  it('lets a member of the administering group change the channel, through subgroups too, and no one else', () => {
    expect(rename(mary, withMary)[0]).toMatchObject({ type: 'ChannelUpdated', change: { property: 'name', value: 'hush' } });
    expect(rename(mark, directory([], [4]))).toHaveLength(1);
    // Out of the group, the private channel is unknown to them.
    expect(msgOf(() => rename(mary, withoutMary))).toBe('Invalid channel ID');
    expect(msgOf(() => rename(mark, withMary))).toBe('Invalid channel ID');
  });

  it('lets a group member archive the channel, and tells the group members who see it', () => {
    const archive = (groups: GroupDirectory) =>
      decideArchiveChannel(registry, { actor: mary, channel_id: 2, subscribed: false, subscriber_ids: [2], users, groups, now: NOW });
    expect(archive(withMary)[0]!.audience_user_ids).toEqual([1, 2, 5]);
    expect(msgOf(() => archive(withoutMary))).toBe('Invalid channel ID');
  });

  it('lets a member of can_add_subscribers_group subscribe others, and of can_remove_subscribers_group remove them', () => {
    const subscribeOthers = (groups: GroupDirectory) =>
      decideSubscribeRequest(registry, {
        actor: mary,
        channels: [{ name: 'club', description: '', rendered_description: '' }],
        principal_ids: [4],
        actor_channel_ids: new Set(),
        authorization_errors_fatal: true,
        settings: { invite_only: false, is_web_public: false, is_default: false, group_settings: {} },
        users,
        groups,
        now: NOW,
      });
    expect(subscribeOthers(withMary).plan.channels.map((c) => c.name)).toEqual(['club']);
    expect(msgOf(() => subscribeOthers(withoutMary))).toBe('Unable to access channel (club).');

    const removeOthers = (groups: GroupDirectory) =>
      decideUnsubscribeRequest(registry, { actor: mary, names: ['secret'], principal_ids: [2], actor_channel_ids: new Set(), groups, now: NOW });
    expect(removeOthers(withMary).map((c) => c.name)).toEqual(['secret']);
    expect(msgOf(() => removeOthers(withoutMary))).toBe("Channel(s) (secret) do not exist");
  });

  it('counts group members who see the channel as its peers when someone subscribes', () => {
    const [fact] = decideSubscribe(initialChannel(), { channel: secretView, user_ids: [2], users, groups: withMary, first_message_id: null, now: NOW });
    expect(fact).toMatchObject({ peer_user_ids: [1, 5], shown_user_ids: [] });
  });

  it('never lets a guest administer through a group (the setting does not allow role:everyone)', () => {
    expect(msgOf(() => rename(guest, directory([6])))).toBe('Invalid channel ID');
    expect(SYSTEM_GROUP.nobody).toBe(8);
  });
});

describe('decideGroupAccess: a group named by a private channel gains or loses members', () => {
  const context = (channel = channelFromCreated(club)) => [{ channel, subscriber_ids: [2], first_message_id: 30 }];
  const added = { type: 'UserGroupMembersAdded' as const, group_id: 9, user_ids: [4], audience_user_ids: [] };
  const removed = { type: 'UserGroupMembersRemoved' as const, group_id: 9, user_ids: [5], audience_user_ids: [] };

  it('shows the channel, with its subscribers, to whoever may see it only now', () => {
    expect(decideGroupAccess(added, context(), users, directory([4, 5]), 0)).toEqual([
      {
        type: 'ChannelAccessChanged',
        channel_id: 3,
        name: 'club',
        group_id: 9,
        shown: { user_ids: [4], channel: channelFromCreated(club), subscriber_ids: [2], first_message_id: 30 },
      },
    ]);
  });

  it('hides it from whoever no longer may, but not from its subscribers or administrators', () => {
    expect(decideGroupAccess(removed, context(), users, withoutMary, 0)).toMatchObject([{ channel_id: 3, hidden_user_ids: [5] }]);
    const subscribedMary = [{ channel: channelFromCreated(club), subscriber_ids: [2, 5], first_message_id: null }];
    expect(decideGroupAccess(removed, subscribedMary, users, withoutMary, 0)).toEqual([]);
    expect(decideGroupAccess({ ...removed, user_ids: [2] }, context(), users, withMary, 0)).toEqual([]);
  });

  it('follows subgroups, and ignores channels that are public, archived or name only system groups', () => {
    const subgroupAdded = { type: 'UserGroupSubgroupsAdded' as const, group_id: 9, subgroup_ids: [10], audience_user_ids: [] };
    expect(decideGroupAccess(subgroupAdded, context(), users, directory([], [4]), 0)).toMatchObject([{ shown: { user_ids: [4] } }]);
    const view = channelFromCreated(club);
    for (const channel of [{ ...view, invite_only: false }, { ...view, is_archived: true }, { ...view, can_add_subscribers_group: SYSTEM_GROUP.members }]) {
      expect(decideGroupAccess(added, context(channel), users, directory([4, 5]), 0)).toEqual([]);
    }
  });

  it('derives the groups before the fact from those after it', () => {
    const before = groupsBefore(directory([4, 5]), added);
    expect(before.group(9)?.direct_members).toEqual([5]);
    expect(before.group(10)).toEqual(directory([4, 5]).group(10));
    expect(groupsBefore(withoutMary, removed).group(9)?.direct_members).toEqual([5]);
  });
});

describe('decideRoleAccess: a role change across the administrator line', () => {
  const channel = { ...channelFromCreated(club), can_add_subscribers_group: SYSTEM_GROUP.nobody, can_administer_channel_group: SYSTEM_GROUP.nobody };
  const context = [{ channel, subscriber_ids: [2], first_message_id: 30 }];
  const promoted = { type: 'UserRoleChanged' as const, user_id: 4, role: ROLE.administrator, old_role: ROLE.member, audience_user_ids: [] };

  it('shows a new administrator every private channel, with its subscribers', () => {
    const after = users.map((u) => (u.user_id === 4 ? { ...u, role: ROLE.administrator } : u));
    expect(decideRoleAccess(promoted, context, after, NO_CUSTOM_GROUPS, 0)).toEqual([
      {
        type: 'ChannelAccessChanged',
        channel_id: 3,
        name: 'club',
        role_user_id: 4,
        shown: { user_ids: [4], channel, subscriber_ids: [2], first_message_id: 30 },
      },
    ]);
  });

  it('hides it from a former administrator, unless subscribed, and ignores public and archived channels', () => {
    const demoted = { ...promoted, user_id: 2, role: ROLE.member, old_role: ROLE.administrator };
    expect(decideRoleAccess(demoted, [{ channel, subscriber_ids: [1], first_message_id: null }], users, NO_CUSTOM_GROUPS, 0)).toMatchObject([
      { channel_id: 3, role_user_id: 2, hidden_user_ids: [2] },
    ]);
    expect(decideRoleAccess(demoted, context, users, NO_CUSTOM_GROUPS, 0)).toEqual([]);
    for (const other of [{ ...channel, invite_only: false }, { ...channel, is_archived: true }]) {
      expect(decideRoleAccess(promoted, [{ channel: other, subscriber_ids: [2], first_message_id: null }], users, NO_CUSTOM_GROUPS, 0)).toEqual([]);
    }
    // Moderator to member changes nothing a private channel shows.
    expect(decideRoleAccess({ ...promoted, role: ROLE.member, old_role: ROLE.moderator }, context, users, NO_CUSTOM_GROUPS, 0)).toEqual([]);
  });
});
