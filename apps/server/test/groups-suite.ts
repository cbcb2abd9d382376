/**
 * The HTTP suite for user groups — POST /user_groups/create, GET /user_groups, PATCH
 * /user_groups/{id}, members and subgroups, the members queries, deactivation — with the
 * `user_group` events and register's `realm_user_groups`, an authorization matrix over the
 * roles, and a bad-input test for every error, each checked to have changed nothing.
 */
import { describe, expect, it } from '@jest/globals';
import type { RunningServer } from './harness';
import { DEV_USERS, eventsUntil as pollUntil, expectRefusedUnchanged, suiteServer, type Reply, type SeededUser as Who } from './suite-kit';

/** System group ids (libs/contracts/src/groups.ts). */
const GROUP = { internet: 1, everyone: 2, members: 3, fullmembers: 4, moderators: 5, administrators: 6, owners: 7, nobody: 8 } as const;


export function groupsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`user groups (${mode})`, () => {
    const { clients, ids } = suiteServer(start, DEV_USERS);
    let serial = 0;
    const unique = (prefix: string) => `${prefix} ${++serial}`;

    const create = (who: Who, params: Record<string, unknown>) =>
      clients[who].post('/user_groups/create', { description: 'a group', members: [], ...params });
    const patch = (who: Who, groupId: number, params: Record<string, unknown>) =>
      clients[who].request('PATCH', `/user_groups/${groupId}`, params, { query: false });
    const members = (who: Who, groupId: number, params: Record<string, unknown>) => clients[who].post(`/user_groups/${groupId}/members`, params);
    const subgroups = (who: Who, groupId: number, params: Record<string, unknown>) => clients[who].post(`/user_groups/${groupId}/subgroups`, params);
    const deactivate = (who: Who, groupId: number) => clients[who].post(`/user_groups/${groupId}/deactivate`);
    const listGroups = async (params: Record<string, unknown> = {}) => (await clients.member.get('/user_groups', params)).body.user_groups as any[];
    const groupById = async (groupId: number) => (await listGroups({ include_deactivated_groups: true })).find((g) => g.id === groupId);

    async function newGroup(who: Who, params: Record<string, unknown> = {}): Promise<number> {
      const res = await create(who, { name: unique('team'), ...params });
      expect(res.body).toMatchObject({ result: 'success' });
      return res.body.group_id as number;
    }

    /** Refused with BAD_REQUEST and this message, and every group is as it was. */
    const refused = (request: () => Promise<Reply>, msg: string | RegExp) =>
      expectRefusedUnchanged(request, { msg }, () => listGroups({ include_deactivated_groups: true }));

    const eventsUntil = (who: Who, queue_id: string, done: (events: any[]) => boolean) => pollUntil(clients[who], queue_id, done);

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

    describe('POST /user_groups/{id}/deactivate', () => {
      it('deactivates: removed for clients without the capability, updated for those with it; the name is free again', async () => {
        const name = unique('Short lived');
        const id = await newGroup('member', { name });
        const plain = (await clients.member2.post('/register', { event_types: ['user_group'] })).body.queue_id;
        const capable = (
          await clients.member2.post('/register', { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } })
        ).body.queue_id;
        expect((await deactivate('member', id)).body.result).toBe('success');
        expect((await listGroups()).some((g) => g.id === id)).toBe(false);
        expect((await groupById(id)).deactivated).toBe(true);
        const removed = await eventsUntil('member2', plain, (evs) => evs.length > 0);
        expect(removed.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'user_group', op: 'remove', group_id: id }]);
        const updated = await eventsUntil('member2', capable, (evs) => evs.length > 0);
        expect(updated.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'user_group', op: 'update', group_id: id, data: { deactivated: true } }]);
        const withCapability = await clients.member2.post('/register', {
          fetch_event_types: ['realm_user_groups'],
          client_capabilities: { include_deactivated_groups: true },
        });
        expect(withCapability.body.realm_user_groups.find((g: any) => g.id === id)).toMatchObject({ deactivated: true });
        // A deactivated group takes no changes.
        await refused(() => members('member', id, { add: [ids.member2] }), 'User group is deactivated.');
        await refused(() => deactivate('member', id), 'User group is deactivated.');
        await newGroup('member', { name });
      });

      it('refuses while the group is a subgroup or names a setting of another group', async () => {
        const used = await newGroup('member');
        const parent = await newGroup('member', { subgroups: [used] });
        await refused(() => deactivate('member', used), 'You cannot deactivate a user group that is subgroup of any user group.');
        expect((await subgroups('member', parent, { delete: [used] })).body.result).toBe('success');
        await newGroup('member', { can_mention_group: { direct_members: [], direct_subgroups: [used, GROUP.moderators] } });
        await refused(() => deactivate('member', used), 'You cannot deactivate a user group which is used for setting.');
      });

      it('refuses an unknown group', async () => {
        await refused(() => deactivate('member', 999_999), 'Invalid user group');
      });
    });

    describe('mentions', () => {
      const send = (who: Who, content: string) => clients[who].post('/messages', { type: 'stream', to: 'general', topic: unique('mentions'), content });
      /** The flags each listening user's `message` event carries for the message. */
      async function flagsOf(queues: Partial<Record<Who, string>>, messageId: number): Promise<Partial<Record<Who, string[]>>> {
        const flags: Partial<Record<Who, string[]>> = {};
        for (const [who, queue] of Object.entries(queues) as [Who, string][]) {
          const events = await eventsUntil(who, queue, (evs) => evs.some((e) => e.type === 'message' && e.message.id === messageId));
          flags[who] = events.find((e) => e.type === 'message' && e.message.id === messageId)?.flags;
        }
        return flags;
      }

      it('renders @*group* and flags its members, through subgroups; @_*group* renders silently and flags nobody', async () => {
        const inner = await newGroup('member', { name: unique('Sous chefs'), members: [ids.guest] });
        const name = unique('Chefs');
        const id = await newGroup('member', { name, members: [ids.member2], subgroups: [inner] });
        const queues = {
          member2: (await clients.member2.post('/register', { event_types: ['message'] })).body.queue_id,
          guest: (await clients.guest.post('/register', { event_types: ['message'] })).body.queue_id,
          owner: (await clients.owner.post('/register', { event_types: ['message'] })).body.queue_id,
        };
        const loud = await send('member', `hello @*${name.toLowerCase()}*`);
        expect(loud.body.result).toBe('success');
        const flags = await flagsOf(queues, loud.body.id);
        expect(flags.member2).toContain('mentioned');
        expect(flags.guest).toContain('mentioned');
        expect(flags.owner).not.toContain('mentioned');
        const rendered = await clients.member.post('/messages/render', { content: `@*${name}* and @_*${name}*` });
        expect(rendered.body.rendered).toBe(
          `<p><span class="user-group-mention" data-user-group-id="${id}">@${name}</span> and ` +
            `<span class="user-group-mention silent" data-user-group-id="${id}">${name}</span></p>`,
        );
        const quiet = await send('member', `hello @_*${name}*`);
        expect((await flagsOf({ member2: queues.member2 }, quiet.body.id)).member2).not.toContain('mentioned');
      });

      /**
       * Read-your-writes holds per client: messaging learns of a group another client
       * created a moment after accounts acknowledged it. Waits until the preview shows it.
       */
      async function knownToMessaging(who: Who, name: string): Promise<void> {
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline) {
          const rendered = (await clients[who].post('/messages/render', { content: `@_*${name}*` })).body.rendered as string;
          if (rendered.includes('user-group-mention')) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`messaging never learned of group ${name}`);
      }

      it('refuses a mention the sender may not make (can_mention_group), and sends nothing; a silent one passes', async () => {
        const name = unique('Moderated');
        await newGroup('moderator', { name, members: [ids.member2], can_mention_group: GROUP.moderators });
        await knownToMessaging('member', name);
        const topic = unique('refused mention');
        const res = await clients.member.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @*${name}*` });
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: `You are not allowed to mention user group '${name}'.` });
        const inTopic = await clients.member.get('/messages', {
          anchor: 'newest',
          num_before: 5,
          num_after: 0,
          narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: topic }],
        });
        expect(inTopic.body.messages).toEqual([]);
        expect((await clients.moderator.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @*${name}*` })).body.result).toBe('success');
        expect((await clients.member.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @_*${name}*` })).body.result).toBe('success');
      });

      it('leaves an unknown or deactivated group as text', async () => {
        const name = unique('Gone');
        const id = await newGroup('member', { name });
        expect((await deactivate('member', id)).body.result).toBe('success');
        const rendered = await clients.member.post('/messages/render', { content: `@*${name}*` });
        expect(rendered.body.rendered).toBe(`<p>@<em>${name}</em></p>`);
      });
    });

    describe('authorization matrix', () => {
      // A group the owner created, managed (can_manage_group) by member2, with
      // role:moderators as a subgroup. Each row: operation → who may (owners manage every
      // group: can_manage_all_groups is role:owners).
      // The bot is the member added and removed: no actor, so no row is a join or a leave.
      type Op = (who: Who, id: number) => Promise<Reply>;
      const OPS: [string, Op, Who[], Op?][] = [
        ['change the description', (who, id) => patch(who, id, { description: `by ${who}` }), ['owner', 'member2']],
        ['change a setting', (who, id) => patch(who, id, { can_join_group: { new: GROUP.members } }), ['owner', 'member2']],
        ['add a member', (who, id) => members(who, id, { add: [ids.bot] }), ['owner', 'member2']],
        [
          'remove a member',
          (who, id) => members(who, id, { delete: [ids.bot] }),
          ['owner', 'member2'],
          (_who, id) => members('owner', id, { add: [ids.bot] }),
        ],
        ['join', (who, id) => members(who, id, { add: [ids[who]] }), ['owner', 'member2']],
        ['add a subgroup', (who, id) => subgroups(who, id, { add: [GROUP.owners] }), ['owner', 'member2']],
        ['remove a subgroup', (who, id) => subgroups(who, id, { delete: [GROUP.moderators] }), ['owner', 'member2']],
        ['deactivate', (who, id) => deactivate(who, id), ['owner', 'member2']],
      ];
      const ACTORS: Who[] = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest'];

      for (const [name, op, allowed, setup] of OPS) {
        for (const who of ACTORS) {
          const may = allowed.includes(who);
          it(`${who} ${may ? 'may' : 'may not'} ${name}`, async () => {
            const id = await newGroup('owner', {
              subgroups: [GROUP.moderators],
              can_manage_group: { direct_members: [ids.member2], direct_subgroups: [] },
            });
            if (setup) expect((await setup(who, id)).body.result).toBe('success');
            if (may) expect((await op(who, id)).body).toMatchObject({ result: 'success' });
            else await refused(() => op(who, id), 'Insufficient permission');
          });
        }
      }

      it('everyone who is a member may leave (can_leave_group is role:everyone), guests included', async () => {
        for (const who of ACTORS) {
          const id = await newGroup('owner', { members: [ids[who]] });
          expect((await members(who, id, { delete: [ids[who]] })).body).toMatchObject({ result: 'success' });
        }
      });

      it('creating: every role but guests', async () => {
        for (const who of ACTORS) {
          const res = await create(who, { name: unique(`by ${who}`) });
          expect(res.body.result).toBe(who === 'guest' ? 'error' : 'success');
        }
      });
    });
  });
}
