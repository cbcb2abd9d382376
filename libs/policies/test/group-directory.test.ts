/** Custom groups in group-settings: membership through a group directory, recursively, and which values a setting accepts. */
import { describe, expect, it } from '@jest/globals';
import { isApiError, ROLE, SYSTEM_GROUP, type GroupMember } from '@teamchat/contracts';
import { isUserInGroupSetting, membersOfGroupSetting, parseGroupSetting, subgroupClosure, type DirectoryGroup, type GroupDirectory } from '../src';

const NOW = 1_700_000_000;
const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: NOW - 86400 });
const owner = person(1, ROLE.owner);
const moderator = person(3, ROLE.moderator);
const member = person(4, ROLE.member);
const member2 = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const everybody = [owner, moderator, member, member2, guest];

const directory = (groups: Record<number, Partial<DirectoryGroup>>): GroupDirectory => ({
  group: (id) => {
    const g = groups[id];
    return g && { direct_members: g.direct_members ?? [], direct_subgroups: g.direct_subgroups ?? [], deactivated: g.deactivated ?? false };
  },
});

// 9 holds member directly and group 10; 10 holds the guest and role:moderators; 11 and 12 form a cycle.
const groups = directory({
  9: { direct_members: [4], direct_subgroups: [10] },
  10: { direct_members: [6], direct_subgroups: [SYSTEM_GROUP.moderators] },
  11: { direct_members: [5], direct_subgroups: [12] },
  12: { direct_subgroups: [11] },
  13: { direct_members: [5], deactivated: true },
});

function errorOf(call: () => unknown): string {
  try {
    call();
  } catch (err) {
    if (isApiError(err)) return err.msg;
    throw err;
  }
  throw new Error('expected an API error');
}

describe('custom groups in isUserInGroupSetting', () => {
  it('resolves members recursively through custom and system subgroups', () => {
    expect(membersOfGroupSetting(9, everybody, NOW, groups)).toEqual([1, 3, 4, 6]);
    expect(membersOfGroupSetting({ direct_members: [5], direct_subgroups: [10] }, everybody, NOW, groups)).toEqual([1, 3, 5, 6]);
  });

  it('ends on a cycle of subgroups', () => {
    expect(membersOfGroupSetting(12, everybody, NOW, groups)).toEqual([5]);
    expect(isUserInGroupSetting(12, member, NOW, groups)).toBe(false);
  });

  it('knows no custom group without a directory (the old call still compiles and answers)', () => {
    expect(isUserInGroupSetting(9, member, NOW)).toBe(false);
    expect(isUserInGroupSetting(SYSTEM_GROUP.members, member, NOW)).toBe(true);
  });
});

describe('subgroupClosure', () => {
  it('follows custom subgroups and the system groups’ nesting', () => {
    expect([...subgroupClosure([9], groups)].sort((a, b) => a - b)).toEqual([
      SYSTEM_GROUP.moderators,
      SYSTEM_GROUP.administrators,
      SYSTEM_GROUP.owners,
      9,
      10,
    ]);
    expect([...subgroupClosure([11], groups)].sort()).toEqual([11, 12]);
  });
});

describe('custom groups in parseGroupSetting', () => {
  const rules = { allowEveryone: true };
  it('accepts an active custom group, alone or in an anonymous group', () => {
    expect(parseGroupSetting('s', 9, rules, groups)).toBe(9);
    expect(parseGroupSetting('s', { direct_members: [], direct_subgroups: [10] }, rules, groups)).toBe(10);
    expect(parseGroupSetting('s', { direct_members: [4], direct_subgroups: [10, 9] }, rules, groups)).toEqual({ direct_members: [4], direct_subgroups: [9, 10] });
  });

  it('refuses unknown and deactivated groups, and any custom group without a directory', () => {
    expect(errorOf(() => parseGroupSetting('s', 99, rules, groups))).toBe('Invalid user group ID: 99');
    expect(errorOf(() => parseGroupSetting('s', 13, rules, groups))).toBe('Invalid user group ID: 13');
    expect(errorOf(() => parseGroupSetting('s', { direct_members: [1], direct_subgroups: [13] }, rules, groups))).toBe('Invalid user group ID: 13');
    expect(errorOf(() => parseGroupSetting('s', 9, rules))).toBe('Invalid user group ID: 9');
  });

  it('refuses role:owners where a setting does not allow it', () => {
    expect(errorOf(() => parseGroupSetting('can_mention_group', SYSTEM_GROUP.owners, { allowEveryone: true, allowOwners: false }))).toBe(
      "'can_mention_group' setting cannot be set to 'role:owners' group.",
    );
    expect(parseGroupSetting('s', SYSTEM_GROUP.owners, rules)).toBe(SYSTEM_GROUP.owners);
  });
});
