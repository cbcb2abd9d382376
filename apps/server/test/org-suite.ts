/**
 * The HTTP suite for organization settings (PATCH /realm), user status (endpoint 9) and
 * custom profile fields: each endpoint, its events and register sections, channels,
 * messaging and user groups reading the settings, an authorization matrix over the roles
 * and a bad-input test for every error, each checked to have changed nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { PNG, uploadFiles } from './uploads-suite';
import type { RunningServer } from './harness';
import { authorizationMatrix, DEV_USERS, eventsUntil as pollUntil, expectRefusedUnchanged, suiteServer, type Reply, type SeededUser as Who } from './suite-kit';

const GROUP = { everyone: 2, members: 3, moderators: 5, administrators: 6, owners: 7, nobody: 8 } as const;

const ROLES: Who[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

export function orgSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`organization settings, user status and profile fields (${mode})`, () => {
    const { clients, ids } = suiteServer(start, DEV_USERS);
    let serial = 0;
    const unique = (prefix: string) => `${prefix} ${++serial}`;

    const patchRealm = (who: Who, params: Record<string, unknown>) => clients[who].request('PATCH', '/realm', params, { query: false });
    /**
     * The state is read by the bot after a write of its own (its status, which no test
     * reads): a write is stored after every change made before it, and the bot's next
     * requests wait until each service has applied it (read-your-writes), so the reads see
     * every other user's earlier changes, in both modes.
     */
    const observer = async () => {
      const res = await clients.bot.post('/users/me/status', { status_text: `observing ${++serial}` });
      expect(res.body.result).toBe('success');
      return clients.bot;
    };
    const realmState = async () =>
      Object.fromEntries(Object.entries((await (await observer()).post('/register', { fetch_event_types: ['realm'] })).body).filter(([key]) => key.startsWith('realm_')));
    const statusOf = async (who: Who) => (await (await observer()).get(`/users/${ids[who]}/status`)).body.status;
    const fields = async () => (await (await observer()).get('/realm/profile_fields')).body.custom_fields as any[];
    const observedRegister = async (types: string[]) => (await (await observer()).post('/register', { fetch_event_types: types })).body;
    const profileDataOf = async (who: Who) => ((await observedRegister(['realm_user'])).realm_users as any[]).find((u) => u.user_id === ids[who]).profile_data;

    /** Refused with BAD_REQUEST and this message, and `state()` reads as before. */
    const refused = (request: () => Promise<Reply>, msg: string | RegExp, state: () => Promise<unknown>) => expectRefusedUnchanged(request, { msg }, state);

    async function ok(request: Promise<Reply>): Promise<Reply> {
      const res = await request;
      expect(res.body).toMatchObject({ result: 'success' });
      return res;
    }

    async function queueOf(who: Who, types: string[]): Promise<string> {
      return (await clients[who].post('/register', { event_types: JSON.stringify(types) })).body.queue_id;
    }

    const eventsUntil = (who: Who, queue_id: string, done: (events: any[]) => boolean) => pollUntil(clients[who], queue_id, done);

    describe('PATCH /realm', () => {
      it("starts with the development organization's defaults", async () => {
        const state = await realmState();
        expect(state).toMatchObject({
          realm_name: expect.any(String),
          realm_invite_required: true,
          realm_waiting_period_threshold: 0,
          realm_message_content_edit_limit_seconds: 600,
          realm_move_messages_within_stream_limit_seconds: 604800,
          realm_message_content_delete_limit_seconds: null,
          realm_can_create_public_channel_group: GROUP.members,
          realm_can_create_groups: GROUP.members,
          realm_can_manage_all_groups: GROUP.owners,
          realm_can_mention_many_users_group: GROUP.administrators,
          realm_can_invite_users_group: GROUP.administrators,
        });
      });

      it('changes settings, announces each as Zulip does, and register shows them', async () => {
        const queue = await queueOf('guest', ['realm']);
        const description = unique('We make things');
        await ok(patchRealm('admin', { description, message_content_edit_limit_seconds: 'unlimited', can_create_groups: { new: GROUP.moderators } }));
        const events = await eventsUntil('guest', queue, (e) => e.length >= 3);
        expect(events.map(({ id: _id, ...event }) => event)).toEqual(
          expect.arrayContaining([
            { type: 'realm', op: 'update', property: 'description', value: description },
            { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } },
            { type: 'realm', op: 'update_dict', property: 'default', data: { can_create_groups: GROUP.moderators } },
          ]),
        );
        expect(await realmState()).toMatchObject({
          realm_description: description,
          realm_message_content_edit_limit_seconds: null,
          realm_can_create_groups: GROUP.moderators,
        });
        await ok(patchRealm('admin', { message_content_edit_limit_seconds: 600, can_create_groups: { new: GROUP.members } }));
      });

      it('renames the organization for register and GET /server_settings', async () => {
        const before = (await realmState()).realm_name;
        await ok(patchRealm('admin', { name: ' Renamed Org ' }));
        expect((await realmState()).realm_name).toBe('Renamed Org');
        await observer();
        expect((await clients.bot.get('/server_settings')).body.realm_name).toBe('Renamed Org');
        await ok(patchRealm('admin', { name: before }));
      });

      it('lets owners change the settings only owners may change', async () => {
        await ok(patchRealm('owner', { waiting_period_threshold: 3, invite_required: false }));
        expect(await realmState()).toMatchObject({ realm_waiting_period_threshold: 3, realm_invite_required: false });
        await ok(patchRealm('owner', { waiting_period_threshold: 0, invite_required: true }));
      });

      it.each([
        ['an administrator, an owner-only setting', 'admin', { invite_required: false }, 'Must be an organization owner'],
        ['a moderator', 'moderator', { description: 'x' }, 'Must be an organization administrator'],
        ['a member', 'member', { description: 'x' }, 'Must be an organization administrator'],
        ['a guest', 'guest', { description: 'x' }, 'Must be an organization administrator'],
        ['a member bot', 'bot', { description: 'x' }, 'Must be an organization administrator'],
        ['an empty name', 'owner', { name: ' ' }, "Organization name can't be empty."],
        ['a long name', 'owner', { name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
        ['a long description', 'owner', { description: 'd'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
        ['a negative waiting period', 'owner', { waiting_period_threshold: -2 }, 'Invalid waiting_period_threshold: -2'],
        ['a zero time limit', 'owner', { move_messages_between_streams_limit_seconds: 0 }, 'Invalid move_messages_between_streams_limit_seconds: 0'],
        ['a limit in other words', 'owner', { message_content_delete_limit_seconds: 'never' }, 'Invalid message_content_delete_limit_seconds: "never"'],
        ['an unknown group', 'owner', { can_create_groups: { new: 999 } }, 'Invalid user group ID: 999'],
        ['role:everyone for creating groups', 'owner', { can_create_groups: { new: GROUP.everyone } }, "'can_create_groups' setting cannot be set to 'role:everyone' group."],
        ['an unknown member', 'owner', { can_create_groups: { new: { direct_members: [99999], direct_subgroups: [] } } }, "Invalid user ID 99999 in 'can_create_groups'"],
        ['a stale old value', 'owner', { can_create_groups: { new: GROUP.moderators, old: GROUP.owners } }, "'old' value for can_create_groups does not match expected value."],
      ] as [string, Who, Record<string, unknown>, string][])('refuses %s, changing nothing', async (_, who, params, msg) => {
        await refused(() => patchRealm(who, { description: 'collateral', ...params }), msg, realmState);
      });

      it('refuses a value of the wrong type by name', async () => {
        const before = await realmState();
        const res = await patchRealm('owner', { invite_required: 'maybe' });
        expect(res.status).toBe(400);
        expect(res.body.msg).toMatch(/invite_required/);
        expect(await realmState()).toEqual(before);
      });

      it('reports parameters it does not know', async () => {
        const res = await ok(patchRealm('admin', { no_such_setting: true }));
        expect(res.body.ignored_parameters_unsupported).toEqual(['no_such_setting']);
      });
    });

    describe('channels, messaging and user groups read the settings', () => {
      /**
       * Another user's change reaches each service's projection eventually; a write of the
       * user's own is stored after it, and the user's next requests wait until the service
       * has applied that write (read-your-writes), so the change is in effect for them.
       */
      const catchUp = (who: Who) => ok(clients[who].post('/users/me/status', { status_text: '' }));
      const patchSettled = async (params: Record<string, unknown>, ...users: Who[]) => {
        await ok(patchRealm('admin', params));
        for (const who of users) await catchUp(who);
      };

      it('channel creation follows can_create_public_channel_group', async () => {
        await patchSettled({ can_create_public_channel_group: { new: GROUP.administrators } }, 'member', 'admin');
        const res = await clients.member.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('policy') }]) });
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        await ok(clients.admin.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('policy') }]) }));
        await patchSettled({ can_create_public_channel_group: { new: GROUP.members } }, 'member');
        await ok(clients.member.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('policy') }]) }));
      });

      it('message editing follows allow_message_editing', async () => {
        const sent = await ok(clients.member.post('/messages', { type: 'stream', to: 'general', topic: 'org', content: 'first draft' }));
        await patchSettled({ allow_message_editing: false }, 'member');
        const refusedEdit = await clients.member.request('PATCH', `/messages/${sent.body.id}`, { content: 'second draft' });
        expect(refusedEdit.body).toMatchObject({ result: 'error', msg: 'Your organization has turned off message editing.' });
        await patchSettled({ allow_message_editing: true }, 'member');
        await ok(clients.member.request('PATCH', `/messages/${sent.body.id}`, { content: 'second draft' }));
      });

      it('deleting one\'s own messages follows can_delete_own_message_group', async () => {
        await patchSettled({ can_delete_own_message_group: { new: GROUP.administrators } }, 'member');
        const sent = await ok(clients.member.post('/messages', { type: 'stream', to: 'general', topic: 'org', content: 'keep me' }));
        expect((await clients.member.request('DELETE', `/messages/${sent.body.id}`)).body.result).toBe('error');
        await patchSettled({ can_delete_own_message_group: { new: GROUP.everyone } }, 'member');
        await ok(clients.member.request('DELETE', `/messages/${sent.body.id}`));
      });

      it('creating user groups follows can_create_groups, and a group a setting names cannot be deactivated', async () => {
        await patchSettled({ can_create_groups: { new: GROUP.moderators } }, 'member', 'moderator');
        const create = (who: Who) => clients[who].post('/user_groups/create', { name: unique('crew'), description: 'x', members: JSON.stringify([]) });
        expect((await create('member')).body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        const group = (await ok(create('moderator'))).body.group_id as number;
        await patchSettled({ can_create_groups: { new: group } }, 'owner');
        expect((await clients.owner.post(`/user_groups/${group}/deactivate`)).body.result).toBe('error');
        await patchSettled({ can_create_groups: { new: GROUP.members } }, 'member');
        await ok(create('member'));
      });
    });

    describe('user status', () => {
      it('sets, reads and clears one\'s own status, with events to everyone and register state', async () => {
        const queue = await queueOf('guest', ['user_status']);
        await ok(clients.member.post('/users/me/status', { status_text: ' In a meeting ', emoji_name: 'car' }));
        expect(await statusOf('member')).toEqual({ status_text: 'In a meeting', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
        expect((await observedRegister(['user_status'])).user_status[String(ids.member)]).toEqual(await statusOf('member'));
        const mine = (e: any) => e.type === 'user_status' && e.user_id === ids.member;
        const event = (await eventsUntil('guest', queue, (e) => e.some(mine))).find(mine);
        expect(event).toMatchObject({
          type: 'user_status',
          user_id: ids.member,
          status_text: 'In a meeting',
          emoji_name: 'car',
          emoji_code: '1f697',
          reaction_type: 'unicode_emoji',
        });
        await ok(clients.member.post('/users/me/status', { status_text: '', emoji_name: '' }));
        expect(await statusOf('member')).toEqual({});
        expect((await observedRegister(['user_status'])).user_status[String(ids.member)]).toBeUndefined();
      });

      it("lets an administrator set another user's status", async () => {
        await ok(clients.admin.post(`/users/${ids.member2}/status`, { status_text: 'On leave' }));
        expect(await statusOf('member2')).toEqual({ status_text: 'On leave' });
        await ok(clients.owner.post(`/users/${ids.member2}/status`, { status_text: '' }));
      });

      it.each([
        ['no new values', 'member', '/users/me/status', {}, 'Client did not pass any new values.'],
        ['a text over 60 code points', 'member', '/users/me/status', { status_text: '😀'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
        ['emoji_code without emoji_name', 'member', '/users/me/status', { emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
        ['an unknown emoji', 'member', '/users/me/status', { emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist"],
        ['a mismatched emoji', 'member', '/users/me/status', { emoji_name: 'car', emoji_code: '1f600' }, 'Invalid emoji name.'],
        ['a custom emoji', 'member', '/users/me/status', { emoji_name: 'party', emoji_code: '1', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
        ["a moderator setting another's", 'moderator', 'other', { status_text: 'x' }, 'Insufficient permission'],
        ["a member setting another's", 'member', 'other', { status_text: 'x' }, 'Insufficient permission'],
        ["a guest setting another's", 'guest', 'other', { status_text: 'x' }, 'Insufficient permission'],
        ["a bot setting another's", 'bot', 'other', { status_text: 'x' }, 'Insufficient permission'],
        ['an unknown target', 'admin', '/users/99999/status', { status_text: 'x' }, 'No such user'],
      ] as [string, Who, string, Record<string, unknown>, string][])('refuses %s, changing nothing', async (_, who, path, params, msg) => {
        const target = path === 'other' ? `/users/${ids.member2}/status` : path;
        await refused(() => clients[who].post(target, params), msg, async () => [await statusOf('member'), await statusOf('member2')]);
      });

      it('answers an unknown user for GET', async () => {
        const res = await clients.member.get('/users/99999/status');
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
      });

      it.each(ROLES)('lets the %s set their own status', async (who) => {
        await ok(clients[who].post('/users/me/status', { status_text: 'here' }));
        await ok(clients[who].post('/users/me/status', { status_text: '' }));
      });
    });

    describe('custom profile fields', () => {
      const createField = (who: Who, params: Record<string, unknown>) => clients[who].post('/realm/profile_fields', params);
      const setData = (who: Who, data: unknown) => clients[who].request('PATCH', '/users/me/profile_data', { data }, { query: false });

      it('creates, lists, updates, reorders and deletes fields, announcing each change to everyone', async () => {
        const queue = await queueOf('guest', ['custom_profile_fields']);
        const name = unique('Team');
        const { id } = (await ok(createField('admin', { name, field_type: 3, field_data: { a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } } }))).body;
        const other = (await ok(createField('owner', { name: unique('Phone'), field_type: 1, hint: 'Work phone' }))).body.id;
        const listed = (await fields()).filter((f) => f.id === id || f.id === other);
        expect(listed).toEqual([
          expect.objectContaining({ id, name, type: 3, field_data: JSON.stringify({ a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } }), editable_by_user: true }),
          expect.objectContaining({ id: other, type: 1, hint: 'Work phone', field_data: '' }),
        ]);
        const events = await eventsUntil('guest', queue, (e) => e.length >= 2);
        expect(events.at(-1)).toMatchObject({ type: 'custom_profile_fields', fields: await fields() });
        const registered = await observedRegister(['custom_profile_fields']);
        expect(registered.custom_profile_fields).toEqual(await fields());
        expect(registered.custom_profile_field_types.SELECT).toEqual({ id: 3, name: 'List of options' });

        await ok(clients.admin.request('PATCH', `/realm/profile_fields/${id}`, { name: `${name}!`, required: true }, { query: false }));
        expect((await fields()).find((f) => f.id === id)).toMatchObject({ name: `${name}!`, required: true });
        const order = (await fields()).map((f) => f.id).reverse();
        await ok(clients.admin.request('PATCH', '/realm/profile_fields', { order }, { query: false }));
        expect((await fields()).map((f) => f.id)).toEqual(order);
        await ok(clients.admin.request('DELETE', `/realm/profile_fields/${other}`));
        expect((await fields()).map((f) => f.id)).not.toContain(other);
      });

      it('sets and removes values, validated per type, with realm_user events and register profile_data', async () => {
        const text = (await ok(createField('admin', { name: unique('Nickname'), field_type: 1 }))).body.id;
        const people = (await ok(createField('admin', { name: unique('Mentor'), field_type: 6 }))).body.id;
        const date = (await ok(createField('admin', { name: unique('Birthday'), field_type: 4 }))).body.id;
        const queue = await queueOf('guest', ['realm_user']);
        await ok(
          setData('member', [
            { id: text, value: 'Marky' },
            { id: people, value: [ids.owner] },
            { id: date, value: '1990-01-31' },
          ]),
        );
        expect(await profileDataOf('member')).toMatchObject({
          [text]: { value: 'Marky' },
          [people]: { value: JSON.stringify([ids.owner]) },
          [date]: { value: '1990-01-31' },
        });
        const events = await eventsUntil('guest', queue, (e) => e.length >= 3);
        expect(events.map(({ id: _id, ...event }) => event)).toEqual(
          expect.arrayContaining([{ type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: text, value: 'Marky' } } }]),
        );
        await ok(clients.member.request('DELETE', '/users/me/profile_data', { data: [text] }));
        await ok(setData('member', [{ id: people, value: null }]));
        expect(await profileDataOf('member')).toEqual({ [date]: { value: '1990-01-31' } });
        // Deleting a field drops every user's value of it.
        await ok(clients.admin.request('DELETE', `/realm/profile_fields/${date}`));
        expect(await profileDataOf('member')).toEqual({});
      });

      it.each([
        ['a moderator creating a field', () => createField('moderator', { name: 'x', field_type: 1 }), 'Must be an organization administrator'],
        ['a member creating a field', () => createField('member', { name: 'x', field_type: 1 }), 'Must be an organization administrator'],
        ['a guest creating a field', () => createField('guest', { name: 'x', field_type: 1 }), 'Must be an organization administrator'],
        ['a member bot creating a field', () => createField('bot', { name: 'x', field_type: 1 }), 'Must be an organization administrator'],
        ['an unknown field type', () => createField('admin', { name: 'x', field_type: 42 }), 'Invalid field type.'],
        ['a blank label', () => createField('admin', { name: '', field_type: 1 }), 'Label cannot be blank.'],
        ['a choice field without choices', () => createField('admin', { name: 'x', field_type: 3, field_data: {} }), 'Field must have at least one choice.'],
        ['an update of an unknown field', () => clients.admin.request('PATCH', '/realm/profile_fields/99999', { name: 'x' }, { query: false }), 'Field id 99999 not found.'],
        ['deleting an unknown field', () => clients.admin.request('DELETE', '/realm/profile_fields/99999'), 'Field id 99999 not found.'],
        ['a member deleting a field', () => clients.member.request('DELETE', '/realm/profile_fields/1'), /^(Must be an organization administrator|Field id 1 not found\.)$/],
        ['a partial order', () => clients.admin.request('PATCH', '/realm/profile_fields', { order: [] }, { query: false }), /^Invalid order mapping\.$/],
        ['a value for an unknown field', () => setData('member', [{ id: 99999, value: 'x' }]), 'Field id 99999 not found.'],
        ['removing an unknown field', () => clients.member.request('DELETE', '/users/me/profile_data', { data: [99999] }), 'Field id 99999 not found.'],
      ] as [string, () => Promise<Reply>, string | RegExp][])('refuses %s, changing nothing', async (_, request, msg) => {
        await ok(createField('admin', { name: unique('Spare'), field_type: 1 }));
        await refused(request, msg, async () => [await fields(), await profileDataOf('member')]);
      });

      it('refuses values that do not fit their field, changing nothing', async () => {
        const short = (await ok(createField('admin', { name: unique('Short'), field_type: 1 }))).body.id;
        const people = (await ok(createField('admin', { name: unique('People'), field_type: 6 }))).body.id;
        const link = (await ok(createField('admin', { name: unique('Site'), field_type: 5 }))).body.id;
        const locked = (await ok(createField('admin', { name: unique('Badge'), field_type: 1, editable_by_user: false }))).body.id;
        const state = () => profileDataOf('member');
        await refused(() => setData('member', [{ id: short, value: 'x'.repeat(51) }]), /is too long \(limit: 50 characters\)$/, state);
        await refused(() => setData('member', [{ id: people, value: [99999] }]), 'Invalid user ID: 99999', state);
        await refused(() => setData('member', [{ id: people, value: 'me' }]), /is not a list$/, state);
        await refused(() => setData('member', [{ id: link, value: 'not a url' }]), /is not a URL$/, state);
        await refused(() => setData('member', [{ id: short, value: 'fine' }, { id: locked, value: 'mine' }]), 'You are not allowed to change this field. Contact an administrator to update it.', state);
        await ok(setData('admin', [{ id: locked, value: 'badge' }]));
      });
    });

    describe('authorization matrix', () => {
      const matrix: [string, (who: Who) => Promise<Reply>, Who[]][] = [
        ['change an administrators setting', (who) => patchRealm(who, { description: `by ${who}` }), ['owner', 'admin']],
        ['change an owners setting', (who) => patchRealm(who, { waiting_period_threshold: 0 }), ['owner']],
        ["set another user's status", (who) => clients[who].post(`/users/${ids.member2}/status`, { status_text: '' }), ['owner', 'admin']],
        ['create a profile field', (who) => createFieldAs(who), ['owner', 'admin']],
        ['read the profile fields', (who) => clients[who].get('/realm/profile_fields'), ROLES],
        ["read a user's status", (who) => clients[who].get(`/users/${ids.owner}/status`), ROLES],
        ['set their own profile data', (who) => clients[who].request('PATCH', '/users/me/profile_data', { data: [] }, { query: false }), ROLES],
        // can_add_custom_emoji_group is role:members by default: guests may not.
        ['add a custom emoji', (who) => uploadFiles(clients[who], [{ name: 'e.png', bytes: PNG }], `/realm/emoji/${unique(`by_${who}`).replace(/\W/g, '_')}`), ['owner', 'admin', 'moderator', 'member', 'bot']],
        ['list custom emoji', (who) => clients[who].get('/realm/emoji'), ROLES],
        ['upload a file', (who) => uploadFiles(clients[who], [{ name: 'f.txt', bytes: Buffer.from(who) }]), ROLES],
        ['list their attachments', (who) => clients[who].get('/attachments'), ROLES],
        // Only the uploader deletes a file: the member's, tried by everyone.
        ["delete the member's attachment", async (who) => clients[who].request('DELETE', `/attachments/${await memberAttachment()}`), ['member']],
        ['register and remove a logged-in device', (who) => deviceRoundTrip(who), ROLES],
      ];
      async function memberAttachment(): Promise<number> {
        const { url } = (await uploadFiles(clients.member, [{ name: 'm.txt', bytes: Buffer.from(unique('m')) }])).body;
        return ((await clients.member.get('/attachments')).body.attachments as { id: number; path_id: string }[]).find((a) => url.endsWith(a.path_id))!.id;
      }
      async function deviceRoundTrip(who: Who): Promise<Reply> {
        const added = await clients[who].post('/register_client_device', {});
        if (added.body.result !== 'success') return added;
        // Registering it for push is refused for everyone (no push bouncer): push-suite.ts.
        return clients[who].post('/remove_client_device', { device_id: added.body.device_id });
      }
      function createFieldAs(who: Who) {
        return clients[who].post('/realm/profile_fields', { name: unique(`By ${who}`), field_type: 1 });
      }
      authorizationMatrix(matrix, ROLES);
    });
  });
}
