/** The user groups HTTP suite (groups-suite.ts): members and subgroups: adding, removing, joining and leaving, and the members queries. */
import { describe, expect, it } from '@jest/globals';
import { GROUP, type GroupsKit } from './groups-kit';

export function groupMembershipTests({ clients, ids, members, subgroups, groupById, newGroup, refused, eventsUntil }: GroupsKit): void {
  describe('members', () => {
    it('adds and removes members, announced to everyone', async () => {
      const id = await newGroup('member', { members: [ids.member] });
      const queue = (await clients.guest.post('/register', { event_types: ['user_group'] })).body.queue_id;
      expect((await members('member', id, { add: [ids.member2, ids.guest] })).body.result).toBe('success');
      expect((await groupById(id)).members).toEqual([ids.member, ids.member2, ids.guest].sort((a, b) => a - b));
      // can_remove_members_group defaults to nobody: the manager removes.
      expect((await members('member', id, { delete: [ids.guest] })).body.result).toBe('success');
      expect((await groupById(id)).members).toEqual([ids.member, ids.member2].sort((a, b) => a - b));
      const events = await eventsUntil('guest', queue, (evs) => evs.some((e) => e.op === 'remove_members'));
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([
        { type: 'user_group', op: 'add_members', group_id: id, user_ids: [ids.member2, ids.guest].sort((a, b) => a - b) },
        { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [ids.guest] },
      ]);
    });

    it('lets a member leave (can_leave_group is role:everyone) and join only where can_join_group says', async () => {
      const id = await newGroup('member', { members: [ids.member2], can_join_group: GROUP.moderators });
      expect((await members('member2', id, { delete: [ids.member2] })).body.result).toBe('success');
      await refused(() => members('member2', id, { add: [ids.member2] }), 'Insufficient permission');
      expect((await members('moderator', id, { add: [ids.moderator] })).body.result).toBe('success');
      expect((await groupById(id)).members).toEqual([ids.moderator]);
    });

    it.each<[string, () => Record<string, unknown>, () => string]>([
      ['nothing to do', () => ({}), () => 'Nothing to do. Specify at least one of "add" or "delete".'],
      ['a nonexistent user', () => ({ add: [999_999] }), () => 'Invalid user ID: 999999'],
      ['a user already a member', () => ({ add: [ids.member] }), () => `User ${ids.member} is already a member of this group`],
      ['removing a non-member', () => ({ delete: [ids.guest] }), () => `There is no member '${ids.guest}' in this user group`],
    ])('refuses %s', async (_, params, msg) => {
      const id = await newGroup('member', { members: [ids.member] });
      await refused(() => members('member', id, params()), msg());
    });

    it('refuses unknown groups and users in the queries', async () => {
      const missing = await clients.member.get('/user_groups/999999/members');
      expect(missing.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid user group' });
      const noUser = await clients.member.get(`/user_groups/${GROUP.members}/members/999999`);
      expect(noUser.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
      await refused(() => members('member', 999_999, { add: [ids.member] }), 'Invalid user group');
    });
  });

  describe('subgroups', () => {
    it('adds and removes subgroups, announced to everyone', async () => {
      const inner = await newGroup('member');
      const id = await newGroup('member');
      const queue = (await clients.member2.post('/register', { event_types: ['user_group'] })).body.queue_id;
      expect((await subgroups('member', id, { add: [inner, GROUP.moderators] })).body.result).toBe('success');
      expect((await groupById(id)).direct_subgroup_ids).toEqual([GROUP.moderators, inner]);
      // Removing takes can_remove_members_group or managing the group: the creator manages it.
      expect((await subgroups('member', id, { delete: [GROUP.moderators] })).body.result).toBe('success');
      expect((await groupById(id)).direct_subgroup_ids).toEqual([inner]);
      const events = await eventsUntil('member2', queue, (evs) => evs.some((e) => e.op === 'remove_subgroups'));
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([
        { type: 'user_group', op: 'add_subgroups', group_id: id, direct_subgroup_ids: [GROUP.moderators, inner] },
        { type: 'user_group', op: 'remove_subgroups', group_id: id, direct_subgroup_ids: [GROUP.moderators] },
      ]);
    });

    it('lists subgroups, recursively or direct only', async () => {
      const inner = await newGroup('member', { subgroups: [GROUP.administrators] });
      const outer = await newGroup('member', { subgroups: [inner] });
      expect((await clients.guest.get(`/user_groups/${outer}/subgroups`)).body.subgroups).toEqual([GROUP.administrators, GROUP.owners, inner]);
      expect((await clients.guest.get(`/user_groups/${outer}/subgroups`, { direct_subgroup_only: true })).body.subgroups).toEqual([inner]);
      expect((await clients.guest.get(`/user_groups/${GROUP.moderators}/subgroups`)).body.subgroups).toEqual([GROUP.administrators, GROUP.owners]);
      expect((await clients.guest.get('/user_groups/999999/subgroups')).body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid user group' });
    });

    it('refuses cycles, directly and through other groups', async () => {
      const a = await newGroup('member');
      const b = await newGroup('member', { subgroups: [a] });
      const c = await newGroup('member', { subgroups: [b] });
      await refused(() => subgroups('member', a, { add: [a] }), `User group ${a} is already a subgroup of one of the passed subgroups.`);
      await refused(() => subgroups('member', a, { add: [c] }), `User group ${a} is already a subgroup of one of the passed subgroups.`);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['nothing to do', {}, 'Nothing to do. Specify at least one of "add" or "delete".'],
      ['an unknown group', { add: [999_999] }, 'Invalid user group ID: 999999'],
      ['a subgroup already there', { add: [GROUP.moderators] }, `User group ${GROUP.moderators} is already a subgroup of this group.`],
      ['removing a group that is not a subgroup', { delete: [GROUP.owners] }, `User group ${GROUP.owners} is not a subgroup of this group.`],
    ])('refuses %s', async (_, params, msg) => {
      const id = await newGroup('member', { subgroups: [GROUP.moderators] });
      await refused(() => subgroups('member', id, params), msg);
    });
  });
}
