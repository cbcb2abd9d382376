import { describe, expect, it } from '@jest/globals';
import { defaultChannelGroupSettings, groupSettingsOf, isApiError, ROLE, SYSTEM_GROUP, type GroupMember } from '@teamchat/contracts';
import { FULL_MEMBER_WAITING_PERIOD_DAYS, hasChannelPermission, isUserInGroupSetting, parseGroupSetting, sameGroupSetting, NO_CUSTOM_GROUPS } from '../src';

const NOW = 1_700_000_000;
const person = (user_id: number, role: number, date_joined = NOW - 86400): GroupMember => ({ user_id, role, date_joined });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const moderator = person(3, ROLE.moderator);
const member = person(4, ROLE.member);
const newMember = person(5, ROLE.member, NOW);
const guest = person(6, ROLE.guest);
const everybody = [owner, admin, moderator, member, newMember, guest];

const membersOf = (setting: Parameters<typeof isUserInGroupSetting>[0]) =>
  everybody.filter((user) => isUserInGroupSetting(setting, user, NOW)).map((user) => user.user_id);

function errorOf(call: () => unknown): string {
  try {
    call();
  } catch (err) {
    if (isApiError(err)) return `${err.code}: ${err.msg}`;
    throw err;
  }
  throw new Error('expected an API error');
}

describe('isUserInGroupSetting', () => {
  it.each([
    ['role:internet', SYSTEM_GROUP.internet, [1, 2, 3, 4, 5, 6]],
    ['role:everyone', SYSTEM_GROUP.everyone, [1, 2, 3, 4, 5, 6]],
    ['role:members', SYSTEM_GROUP.members, [1, 2, 3, 4, 5]],
    ['role:fullmembers', SYSTEM_GROUP.fullmembers, [1, 2, 3, 4, 5]],
    ['role:moderators', SYSTEM_GROUP.moderators, [1, 2, 3]],
    ['role:administrators', SYSTEM_GROUP.administrators, [1, 2]],
    ['role:owners', SYSTEM_GROUP.owners, [1]],
    ['role:nobody', SYSTEM_GROUP.nobody, []],
  ])('puts the right roles in %s', (_, group, ids) => expect(membersOf(group)).toEqual(ids));

  it('counts a member who joined this very second as a full member: the waiting period is 0 days', () => {
    expect(FULL_MEMBER_WAITING_PERIOD_DAYS).toBe(0);
    expect(isUserInGroupSetting(SYSTEM_GROUP.fullmembers, newMember, NOW)).toBe(true);
  });

  it('has nobody in a group that does not exist', () => expect(membersOf(99)).toEqual([]));

  it('takes the direct members and the members of the subgroups of an anonymous group', () =>
    expect(membersOf({ direct_members: [4, 6], direct_subgroups: [SYSTEM_GROUP.owners] })).toEqual([1, 4, 6]));

  it('has nobody in an empty anonymous group', () => expect(membersOf({ direct_members: [], direct_subgroups: [] })).toEqual([]));
});

describe('parseGroupSetting', () => {
  const rules = { allowEveryone: true };

  it('keeps a system group', () => expect(parseGroupSetting('s', SYSTEM_GROUP.moderators, rules)).toBe(SYSTEM_GROUP.moderators));

  it('turns an anonymous group of one subgroup into that group, and an empty one into role:nobody', () => {
    expect(parseGroupSetting('s', { direct_members: [], direct_subgroups: [SYSTEM_GROUP.members] }, rules)).toBe(SYSTEM_GROUP.members);
    expect(parseGroupSetting('s', { direct_members: [], direct_subgroups: [] }, rules)).toBe(SYSTEM_GROUP.nobody);
  });

  it('sorts and deduplicates an anonymous group', () =>
    expect(parseGroupSetting('s', { direct_members: [9, 4, 9], direct_subgroups: [7, 5, 7] }, rules)).toEqual({ direct_members: [4, 9], direct_subgroups: [5, 7] }));

  it.each([
    ['an unknown group', 42, 'BAD_REQUEST: Invalid user group ID: 42'],
    ['group 0', 0, 'BAD_REQUEST: Invalid user group ID: 0'],
    ['an unknown subgroup', { direct_members: [1], direct_subgroups: [2, 77] }, 'BAD_REQUEST: Invalid user group ID: 77'],
    ['an unknown lone subgroup', { direct_members: [], direct_subgroups: [77] }, 'BAD_REQUEST: Invalid user group ID: 77'],
    ['role:internet', SYSTEM_GROUP.internet, "BAD_REQUEST: 's' setting cannot be set to 'role:internet' group."],
  ])('refuses %s', (_, value, error) => expect(errorOf(() => parseGroupSetting('s', value, rules))).toBe(error));

  it('refuses role:everyone where guests may not hold the permission, also when written as a lone subgroup', () => {
    const strict = { allowEveryone: false };
    expect(errorOf(() => parseGroupSetting('can_x', SYSTEM_GROUP.everyone, strict))).toBe("BAD_REQUEST: 'can_x' setting cannot be set to 'role:everyone' group.");
    expect(errorOf(() => parseGroupSetting('can_x', { direct_members: [], direct_subgroups: [SYSTEM_GROUP.everyone] }, strict))).toMatch(/role:everyone/);
  });
});

describe('sameGroupSetting', () => {
  it.each([
    [SYSTEM_GROUP.members, SYSTEM_GROUP.members, true],
    [SYSTEM_GROUP.members, SYSTEM_GROUP.moderators, false],
    [{ direct_members: [1, 2], direct_subgroups: [3] }, { direct_members: [2, 1, 1], direct_subgroups: [3] }, true],
    [{ direct_members: [1, 2], direct_subgroups: [] }, { direct_members: [1], direct_subgroups: [] }, false],
    [{ direct_members: [], direct_subgroups: [3] }, SYSTEM_GROUP.members, false],
  ])('compares %j and %j: %p', (a, b, same) => expect(sameGroupSetting(a, b)).toBe(same));
});

describe('channel group-settings', () => {
  it("hold Zulip's defaults, the creator administering the channel", () =>
    expect(defaultChannelGroupSettings(4)).toEqual({
      can_add_subscribers_group: SYSTEM_GROUP.nobody,
      can_remove_subscribers_group: SYSTEM_GROUP.administrators,
      can_administer_channel_group: { direct_members: [4], direct_subgroups: [] },
      can_delete_any_message_group: SYSTEM_GROUP.nobody,
      can_delete_own_message_group: SYSTEM_GROUP.nobody,
      can_move_messages_out_of_channel_group: SYSTEM_GROUP.nobody,
      can_move_messages_within_channel_group: SYSTEM_GROUP.nobody,
      can_send_message_group: SYSTEM_GROUP.everyone,
    }));

  it('fill in what a channel stored before they existed never recorded', () =>
    expect(groupSettingsOf({ creator_id: null, can_send_message_group: SYSTEM_GROUP.moderators })).toEqual({
      ...defaultChannelGroupSettings(null),
      can_administer_channel_group: SYSTEM_GROUP.nobody,
      can_send_message_group: SYSTEM_GROUP.moderators,
    }));

  it('never grant guests a permission that role:everyone may not hold', () => {
    const channel = { creator_id: null, can_administer_channel_group: { direct_members: [6], direct_subgroups: [] }, can_send_message_group: { direct_members: [6], direct_subgroups: [] } };
    expect(hasChannelPermission(channel, 'can_administer_channel_group', guest, NOW, NO_CUSTOM_GROUPS)).toBe(false);
    expect(hasChannelPermission(channel, 'can_send_message_group', guest, NOW, NO_CUSTOM_GROUPS)).toBe(true);
  });
});
