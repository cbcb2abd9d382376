/** The user groups HTTP suite (groups-suite.ts): system groups, creating groups and changing their names, descriptions and settings. */
import { describe, expect, it } from '@jest/globals';
import { GROUP, type GroupsKit } from './groups-kit';

export function groupDefinitionTests({ clients, ids, unique, create, patch, members, subgroups, deactivate, listGroups, groupById, newGroup, refused, eventsUntil }: GroupsKit): void {
  describe('system groups', () => {
    it('lists the eight role groups with role-derived members, in GET /user_groups and POST /register', async () => {
      const groups = await listGroups();
      const system = groups.filter((g) => g.is_system_group);
      expect(system.map((g) => [g.id, g.name])).toEqual([
        [1, 'role:internet'],
        [2, 'role:everyone'],
        [3, 'role:members'],
        [4, 'role:fullmembers'],
        [5, 'role:moderators'],
        [6, 'role:administrators'],
        [7, 'role:owners'],
        [8, 'role:nobody'],
      ]);
      const registered = (await clients.guest.post('/register', { fetch_event_types: ['realm_user_groups'] })).body;
      expect(registered.realm_user_groups.filter((g: any) => g.is_system_group)).toEqual(system);
      expect(system.find((g) => g.id === GROUP.owners).members).toEqual([ids.owner]);
      expect(system.find((g) => g.id === GROUP.administrators).direct_subgroup_ids).toEqual([GROUP.owners]);
    });

    it('answers recursive and direct membership of system groups', async () => {
      const all = (await clients.member.get(`/user_groups/${GROUP.moderators}/members`)).body.members;
      expect(all).toEqual([ids.owner, ids.admin, ids.moderator].sort((a, b) => a - b));
      const direct = (await clients.member.get(`/user_groups/${GROUP.moderators}/members`, { direct_member_only: true })).body.members;
      expect(direct).toEqual([ids.moderator]);
      const isMember = (user: number, direct_member_only: boolean) =>
        clients.guest.get(`/user_groups/${GROUP.members}/members/${user}`, { direct_member_only });
      expect((await isMember(ids.owner, false)).body.is_user_group_member).toBe(true);
      expect((await isMember(ids.owner, true)).body.is_user_group_member).toBe(false);
      expect((await isMember(ids.guest, false)).body.is_user_group_member).toBe(false);
    });

    it.each([
      ['rename', (id: number) => patch('owner', id, { name: 'boss' })],
      ['add members', (id: number) => members('owner', id, { add: [ids.member] })],
      ['add subgroups', (id: number) => subgroups('owner', id, { add: [GROUP.nobody] })],
      ['deactivate', (id: number) => deactivate('owner', id)],
    ])('refuses to %s a system group, even for an owner', async (_, request) => {
      await refused(() => request(GROUP.moderators), 'System groups cannot be modified.');
    });
  });

  describe('POST /user_groups/create', () => {
    it('creates a group with members, subgroups and settings; everyone hears of it and sees it', async () => {
      const queue = (await clients.guest.post('/register', { event_types: ['user_group'] })).body.queue_id;
      const name = unique('Design');
      const res = await create('member', {
        name,
        description: 'Pixels',
        members: [ids.member, ids.member2, ids.bot],
        subgroups: [GROUP.moderators],
        can_mention_group: GROUP.members,
        can_join_group: { direct_members: [ids.guest], direct_subgroups: [GROUP.administrators] },
      });
      expect(res.body).toEqual({ result: 'success', msg: '', group_id: expect.any(Number) });
      const id = res.body.group_id;
      expect(id).toBeGreaterThan(GROUP.nobody);
      const expected = {
        id,
        name,
        description: 'Pixels',
        members: [ids.member, ids.member2, ids.bot].sort((a, b) => a - b),
        direct_subgroup_ids: [GROUP.moderators],
        is_system_group: false,
        date_created: expect.any(Number),
        creator_id: ids.member,
        deactivated: false,
        // Zulip's defaults: the creator manages and adds, anyone leaves, nobody removes others.
        can_add_members_group: { direct_members: [ids.member], direct_subgroups: [] },
        can_join_group: { direct_members: [ids.guest], direct_subgroups: [GROUP.administrators] },
        can_leave_group: GROUP.everyone,
        can_manage_group: { direct_members: [ids.member], direct_subgroups: [] },
        can_mention_group: GROUP.members,
        can_remove_members_group: GROUP.nobody,
      };
      expect(await groupById(id)).toEqual(expected);
      const events = await eventsUntil('guest', queue, (evs) => evs.some((e) => e.op === 'add' && e.group.id === id));
      expect(events.find((e) => e.op === 'add' && e.group.id === id)).toEqual({ id: expect.any(Number), type: 'user_group', op: 'add', group: expected });
      const registered = (await clients.guest.post('/register', { fetch_event_types: ['user_group'] })).body;
      expect(registered.realm_user_groups.find((g: any) => g.id === id)).toEqual(expected);
      // Members through subgroups count, recursively.
      const all = (await clients.guest.get(`/user_groups/${id}/members`)).body.members;
      expect(all).toEqual([ids.owner, ids.admin, ids.moderator, ids.member, ids.member2, ids.bot].sort((a, b) => a - b));
      expect((await clients.guest.get(`/user_groups/${id}/members`, { direct_member_only: true })).body.members).toEqual(expected.members);
      expect((await clients.guest.get(`/user_groups/${id}/members/${ids.admin}`)).body.is_user_group_member).toBe(true);
      expect((await clients.guest.get(`/user_groups/${id}/members/${ids.admin}`, { direct_member_only: true })).body.is_user_group_member).toBe(false);
    });

    it('lets a bot create a group', async () => {
      const id = await newGroup('bot', { members: [ids.bot] });
      expect((await groupById(id)).creator_id).toBe(ids.bot);
    });

    it('takes a custom group as a subgroup and as a setting', async () => {
      const inner = await newGroup('member', { members: [ids.member2] });
      const outer = await newGroup('member', { subgroups: [inner], can_manage_group: inner });
      expect(await groupById(outer)).toMatchObject({ direct_subgroup_ids: [inner], can_manage_group: inner });
      // member2 manages the outer group through the inner one.
      const res = await patch('member2', outer, { description: 'managed by the inner group' });
      expect(res.body.result).toBe('success');
    });

    it.each<[string, () => Record<string, unknown>, string | RegExp]>([
      ['a nonexistent member', () => ({ members: [999_999] }), 'Invalid user ID: 999999'],
      ['an empty name', () => ({ name: '   ' }), "User group name can't be empty!"],
      ['a name of 101 characters', () => ({ name: 'x'.repeat(101) }), 'User group name cannot exceed 100 characters.'],
      ['a name starting with role:', () => ({ name: 'role:cooks' }), "User group name cannot start with 'role:'."],
      ['a name starting with @', () => ({ name: '@cooks' }), "User group name cannot start with '@'."],
      ['a description too long', () => ({ description: 'd'.repeat(1025) }), 'User group description cannot exceed 1024 characters.'],
      ['an unknown subgroup', () => ({ subgroups: [999_999] }), 'Invalid user group ID: 999999'],
      ['can_manage_group role:everyone', () => ({ can_manage_group: GROUP.everyone }), "'can_manage_group' setting cannot be set to 'role:everyone' group."],
      ['can_manage_group role:internet', () => ({ can_manage_group: GROUP.internet }), "'can_manage_group' setting cannot be set to 'role:internet' group."],
      ['can_mention_group role:owners', () => ({ can_mention_group: GROUP.owners }), "'can_mention_group' setting cannot be set to 'role:owners' group."],
      ['can_mention_group role:internet', () => ({ can_mention_group: GROUP.internet }), "'can_mention_group' setting cannot be set to 'role:internet' group."],
      ['an unknown group in a setting', () => ({ can_join_group: 999_999 }), "Invalid user group ID 999999 in 'can_join_group'"],
      ['an unknown subgroup in a setting', () => ({ can_leave_group: { direct_members: [], direct_subgroups: [5, 999_999] } }), "Invalid user group ID 999999 in 'can_leave_group'"],
      ['an unknown user in a setting', () => ({ can_join_group: { direct_members: [999_999], direct_subgroups: [] } }), "Invalid user ID 999999 in 'can_join_group'"],
    ])('refuses %s', async (_, params, msg) => {
      await refused(() => create('member', { name: unique('refused'), ...params() }), msg);
    });

    it('refuses a name an active group has, whatever its case', async () => {
      const name = unique('Taken');
      await newGroup('member', { name });
      await refused(() => create('member2', { name: name.toUpperCase() }), `User group '${name.toUpperCase()}' already exists.`);
    });

    it('refuses guests (can_create_groups is role:members)', async () => {
      await refused(() => create('guest', { name: unique('guests') }), 'Insufficient permission');
    });

    it('answers a request without the required parameters with BAD_REQUEST', async () => {
      const res = await clients.member.post('/user_groups/create', { name: unique('half') });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    });
  });

  describe('PATCH /user_groups/{id}', () => {
    it('changes name, description and settings, announced as an update', async () => {
      const id = await newGroup('member');
      const queue = (await clients.member2.post('/register', { event_types: ['user_group'] })).body.queue_id;
      const name = unique('renamed');
      const res = await patch('member', id, {
        name,
        description: 'new words',
        can_mention_group: { new: GROUP.moderators, old: GROUP.everyone },
        can_join_group: { new: { direct_members: [ids.member2], direct_subgroups: [] } },
      });
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expect(await groupById(id)).toMatchObject({
        name,
        description: 'new words',
        can_mention_group: GROUP.moderators,
        can_join_group: { direct_members: [ids.member2], direct_subgroups: [] },
      });
      const events = await eventsUntil('member2', queue, (evs) => evs.some((e) => e.op === 'update'));
      expect(events.find((e) => e.op === 'update')).toEqual({
        id: expect.any(Number),
        type: 'user_group',
        op: 'update',
        group_id: id,
        data: {
          name,
          description: 'new words',
          can_join_group: { direct_members: [ids.member2], direct_subgroups: [] },
          can_mention_group: GROUP.moderators,
        },
      });
    });

    it('accepts an `old` in any form of the current value', async () => {
      const id = await newGroup('member');
      const res = await patch('member', id, {
        can_leave_group: { new: GROUP.members, old: { direct_members: [], direct_subgroups: [GROUP.everyone] } },
      });
      expect(res.body.result).toBe('success');
    });

    it('refuses an update object whose old value is not the current one', async () => {
      const id = await newGroup('member');
      await refused(
        () => patch('member', id, { can_mention_group: { new: GROUP.members, old: GROUP.moderators } }),
        "'old' value for can_mention_group does not match expected value.",
      );
    });

    it.each<[string, (id: number) => Record<string, unknown>, string]>([
      ['nothing to change', () => ({}), 'No new data supplied'],
      ['a name too long', () => ({ name: 'n'.repeat(101) }), 'User group name cannot exceed 100 characters.'],
      ['can_manage_group role:everyone', () => ({ can_manage_group: { new: GROUP.everyone } }), "'can_manage_group' setting cannot be set to 'role:everyone' group."],
      ['can_mention_group role:owners', () => ({ can_mention_group: { new: GROUP.owners } }), "'can_mention_group' setting cannot be set to 'role:owners' group."],
    ])('refuses %s', async (_, params, msg) => {
      const id = await newGroup('member');
      await refused(() => patch('member', id, params(id)), msg);
    });

    it('refuses a duplicate name and an unknown group', async () => {
      const taken = unique('first');
      await newGroup('member', { name: taken });
      const id = await newGroup('member');
      await refused(() => patch('member', id, { name: taken }), `User group '${taken}' already exists.`);
      await refused(() => patch('member', 999_999, { name: unique('ghost') }), 'Invalid user group');
    });
  });
}
