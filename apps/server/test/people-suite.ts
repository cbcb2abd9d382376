/**
 * The HTTP suite for people — GET /users (and by id, by email), POST /users, PATCH
 * /users/{id} and /users/{email}, DELETE /users/me, deactivation and reactivation, password
 * login (POST /fetch_api_key) and bots (POST/GET /bots, PATCH/DELETE /bots/{id}, key
 * regeneration) — with their `realm_user`, `realm_bot` and system `user_group` events, an
 * authorization matrix over the roles, and a bad-input test for every error, each checked
 * to have changed nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, setEmailChangePermission, type RunningServer } from './harness';
import { DEV_EMAILS as EMAILS, DEV_USERS, eventsUntil as pollUntil, expectRefusedUnchanged, suiteServer, type Reply, type SeededUser as Who } from './suite-kit';

const GROUP = { everyone: 2, fullmembers: 4, moderators: 5, administrators: 6, owners: 7 } as const;

const ROLES: Record<Who, number> = { owner: 100, admin: 200, moderator: 300, member: 400, member2: 400, guest: 600, bot: 400 };

/** Every field of the spec's User profile table (is_deleted only when true). */
const PROFILE_FIELDS = [
  'user_id', 'delivery_email', 'email', 'full_name', 'date_joined', 'is_active', 'is_owner', 'is_admin', 'is_guest', 'is_bot',
  'bot_type', 'bot_owner_id', 'role', 'timezone', 'avatar_url', 'avatar_version', 'is_imported_stub',
];

export function peopleSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`people (${mode})`, () => {
    const suite = suiteServer(start, DEV_USERS);
    const { clients, ids } = suite;
    let serial = 0;
    const unique = (prefix: string) => `${prefix}${++serial}x${Date.now() % 100000}`;

    const anonymous = () => new Client(suite.server.api);
    const users = async () => (await clients.admin.get('/users', { client_gravatar: false })).body.members as any[];
    const bots = async (who: Who = 'admin') => (await clients[who].post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) })).body.realm_bots as any[];
    const patchUser = (who: Who, target: number | string, params: Record<string, unknown>) =>
      clients[who].request('PATCH', `/users/${encodeURIComponent(String(target))}`, params, { query: false });
    const patchBot = (who: Who | Client, botId: number, params: Record<string, unknown>) =>
      (typeof who === 'string' ? clients[who] : who).request('PATCH', `/bots/${botId}`, params, { query: false });

    /** A new member (through POST /users) to change without disturbing the seeded users. */
    async function newUser(params: Record<string, unknown> = {}): Promise<{ user_id: number; email: string; client: Client }> {
      const email = `${unique('person')}@example.com`;
      const res = await clients.admin.post('/users', { email, full_name: 'New Person', password: 'correct horse battery', ...params });
      expect(res.body).toMatchObject({ result: 'success' });
      const login = await anonymous().post('/fetch_api_key', { username: email, password: 'correct horse battery' });
      return { user_id: res.body.user_id, email, client: new Client(suite.server.api, email, login.body.api_key) };
    }

    async function newBot(owner: Who = 'member', params: Record<string, unknown> = {}) {
      const res = await clients[owner].post('/bots', { full_name: 'Helper Bot', short_name: unique('helper'), ...params });
      expect(res.body).toMatchObject({ result: 'success' });
      const email = (await clients.admin.get(`/users/${res.body.user_id}`)).body.user.email as string;
      return { user_id: res.body.user_id as number, api_key: res.body.api_key as string, email, client: new Client(suite.server.api, email, res.body.api_key) };
    }

    /** Refused with this code and message, and users and bots are as they were. */
    const refused = (request: () => Promise<Reply>, msg: string | RegExp, code?: string, status?: number) =>
      expectRefusedUnchanged(request, { msg, code, status }, async () => [await users(), await bots()]);

    async function queue(who: Who | Client, event_types: string[], extra: Record<string, unknown> = {}): Promise<string> {
      const client = typeof who === 'string' ? clients[who] : who;
      const res = await client.post('/register', { event_types: JSON.stringify(event_types), ...extra });
      expect(res.body.result).toBe('success');
      return res.body.queue_id;
    }

    const eventsUntil = (who: Who | Client, queue_id: string, done: (events: any[]) => boolean) =>
      pollUntil(typeof who === 'string' ? clients[who] : who, queue_id, done);

    describe('reading users', () => {
      it('lists every user with every field of the User profile, deactivated users and bots included', async () => {
        const res = await clients.member.get('/users');
        expect(res.status).toBe(200);
        const members = res.body.members as any[];
        for (const who of Object.keys(EMAILS) as Who[]) {
          const user = members.find((u) => u.user_id === ids[who]);
          expect(user).toMatchObject({ email: EMAILS[who], delivery_email: EMAILS[who], role: ROLES[who], is_active: true });
          for (const field of PROFILE_FIELDS) expect(user).toHaveProperty(field);
        }
        const bot = members.find((u) => u.user_id === ids.bot);
        expect(bot).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: ids.admin });
        expect(members.find((u) => u.user_id === ids.owner)).toMatchObject({ is_owner: true, is_admin: true, is_guest: false });
        expect(members.find((u) => u.user_id === ids.guest)).toMatchObject({ is_owner: false, is_admin: false, is_guest: true });
        // client_gravatar defaults to true here, as in Zulip: the client computes the URL.
        expect(members.every((u) => u.avatar_url === null)).toBe(true);
        expect(members.every((u) => !('profile_data' in u))).toBe(true);
      });

      it('gives avatar URLs without client_gravatar, and empty profile data when asked', async () => {
        const members = (await clients.member.get('/users', { client_gravatar: false, include_custom_profile_fields: true })).body.members as any[];
        expect(members.every((u) => typeof u.avatar_url === 'string' && u.avatar_url.startsWith('https://'))).toBe(true);
        expect(members.every((u) => JSON.stringify(u.profile_data) === '{}')).toBe(true);
      });

      it('reads one user by id, by email (any case) and by the dummy address', async () => {
        const byId = await clients.guest.get(`/users/${ids.member2}`, { client_gravatar: false });
        expect(byId.body).toMatchObject({ result: 'success', user: { user_id: ids.member2, full_name: 'Mary Member', email: EMAILS.member2 } });
        expect((await clients.guest.get(`/users/${encodeURIComponent('MEMBER2@example.com')}`, { client_gravatar: false })).body.user).toEqual(byId.body.user);
        const host = (await clients.guest.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).body.realm_bot_domain;
        expect((await clients.guest.get(`/users/user${ids.member2}@${host}`, { client_gravatar: false })).body.user).toEqual(byId.body.user);
      });

      it('refuses unknown users', async () => {
        for (const path of ['/users/999999', '/users/nobody@example.com', '/users/not-an-email']) {
          const res = await clients.member.get(path);
          expect({ status: res.status, code: res.body.code, msg: res.body.msg }).toEqual({ status: 400, code: 'BAD_REQUEST', msg: 'No such user' });
        }
      });

      it('lists users and bots in POST /register for each viewer', async () => {
        const registered = (await clients.member.post('/register', { fetch_event_types: JSON.stringify(['realm_user', 'realm_bot']) })).body;
        expect(registered.realm_users.map((u: any) => u.user_id)).toEqual(expect.arrayContaining(Object.values(ids)));
        for (const user of registered.realm_users) for (const field of PROFILE_FIELDS) expect(user).toHaveProperty(field);
        // The system bots, of no organization, are the cross-realm bots.
        expect(registered.cross_realm_bots.map((b: any) => b.email)).toEqual(['notification-bot@zulip.com', 'welcome-bot@zulip.com']);
        // A member sees only their own bots, an administrator every bot.
        expect(registered.realm_bots.every((b: any) => b.owner_id === ids.member)).toBe(true);
        expect((await bots('admin')).map((b) => b.user_id)).toContain(ids.bot);
      });
    });

    describe('creating users and logging in with a password', () => {
      it('lets an administrator create a user, who logs in with the password and is announced to everyone', async () => {
        const q = await queue('member2', ['realm_user', 'user_group']);
        const email = `${unique('carol')}@example.com`;
        const res = await clients.admin.post('/users', { email, full_name: 'Carol Created', password: 's3cret pass' });
        expect(res.body).toMatchObject({ result: 'success', user_id: expect.any(Number) });
        const userId = res.body.user_id;
        const login = await anonymous().post('/fetch_api_key', { username: email.toUpperCase(), password: 's3cret pass' });
        expect(login.body).toMatchObject({ result: 'success', email, user_id: userId, api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
        const carol = new Client(suite.server.api, email, login.body.api_key);
        expect((await carol.get('/users/me')).body).toMatchObject({ user_id: userId, full_name: 'Carol Created', role: 400 });
        const events = await eventsUntil('member2', q, (e) => e.length >= 2);
        expect(events).toEqual([
          expect.objectContaining({ type: 'realm_user', op: 'add', person: expect.objectContaining({ user_id: userId, email, role: 400, is_active: true }) }),
          expect.objectContaining({ type: 'user_group', op: 'add_members', group_id: GROUP.fullmembers, user_ids: [userId] }),
        ]);
      });

      it('creates a user without a password, who cannot log in with one', async () => {
        const email = `${unique('nopass')}@example.com`;
        expect((await clients.owner.post('/users', { email, full_name: 'No Pass' })).body.result).toBe('success');
        const res = await anonymous().post('/fetch_api_key', { username: email, password: '' });
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'AUTHENTICATION_FAILED' });
      });

      it('answers a wrong password and an unknown email alike, with no secret in the answer', async () => {
        const { email } = await newUser();
        const wrong = await anonymous().post('/fetch_api_key', { username: email, password: 'not the password' });
        const unknown = await anonymous().post('/fetch_api_key', { username: 'ghost@example.com', password: 'not the password' });
        const devUser = await anonymous().post('/fetch_api_key', { username: EMAILS.member, password: 'anything' });
        for (const res of [wrong, unknown, devUser]) {
          expect({ status: res.status, body: res.body }).toEqual({
            status: 401,
            body: { result: 'error', code: 'AUTHENTICATION_FAILED', msg: 'Your username or password is incorrect' },
          });
        }
        expect(JSON.stringify(wrong.body)).not.toContain('not the password');
      });

      it('tells a deactivated user so only with the right password', async () => {
        const { user_id, email } = await newUser();
        expect((await clients.admin.request('DELETE', `/users/${user_id}`)).body.result).toBe('success');
        const right = await anonymous().post('/fetch_api_key', { username: email, password: 'correct horse battery' });
        expect({ status: right.status, code: right.body.code }).toEqual({ status: 401, code: 'USER_DEACTIVATED' });
        const wrong = await anonymous().post('/fetch_api_key', { username: email, password: 'wrong' });
        expect({ status: wrong.status, code: wrong.body.code }).toEqual({ status: 401, code: 'AUTHENTICATION_FAILED' });
      });

      it('says in GET /server_settings that password login is on', async () => {
        const res = await anonymous().get('/server_settings');
        expect(res.body.authentication_methods.password).toBe(true);
        expect(res.body.email_auth_enabled).toBe(true);
      });

      it.each(['moderator', 'member', 'guest', 'bot'] as Who[])('refuses a %s creating a user', async (who) => {
        await refused(() => clients[who].post('/users', { email: `${unique('x')}@example.com`, full_name: 'Nope' }), 'Must be an organization administrator');
      });

      it.each([
        [{ email: EMAILS.member2.toUpperCase(), full_name: 'Dup' }, `Email '${EMAILS.member2.toUpperCase()}' already in use`],
        [{ email: 'not-an-email', full_name: 'Bad' }, "Invalid email 'not-an-email'"],
        [{ email: 'a@example.com', full_name: '   ' }, 'Name too short!'],
        [{ email: 'a@example.com', full_name: 'x'.repeat(101) }, 'Name too long!'],
        [{ email: 'a@example.com', full_name: 'Star *' }, 'Invalid characters in name!'],
        [{ email: 'a@example.com', full_name: 'Long', password: 'p'.repeat(1025) }, 'Password is too long'],
      ])('refuses %j', async (params, msg) => {
        await refused(() => clients.admin.post('/users', params), msg);
      });

      it('refuses a request without the required parameters', async () => {
        await refused(() => clients.admin.post('/users', { email: 'b@example.com' }), /full_name/);
        await refused(() => anonymous().post('/fetch_api_key', { username: EMAILS.member }), /password/);
      });
    });

    describe('changing users', () => {
      it('changes a role: the person, the system groups and the permissions follow', async () => {
        const { user_id, client } = await newUser();
        const q = await queue('member2', ['realm_user', 'user_group']);
        expect((await client.post('/users', { email: `${unique('y')}@example.com`, full_name: 'Not Yet' })).body.msg).toBe('Must be an organization administrator');
        expect((await patchUser('admin', user_id, { role: 200 })).body.result).toBe('success');
        const events = await eventsUntil('member2', q, (e) => e.length >= 3);
        expect(events).toEqual([
          expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id, role: 200 } }),
          expect.objectContaining({ type: 'user_group', op: 'remove_members', group_id: GROUP.fullmembers, user_ids: [user_id] }),
          expect.objectContaining({ type: 'user_group', op: 'add_members', group_id: GROUP.administrators, user_ids: [user_id] }),
        ]);
        expect((await clients.member.get(`/users/${user_id}`)).body.user).toMatchObject({ role: 200, is_admin: true });
        const groups = (await clients.member.get('/user_groups')).body.user_groups as any[];
        expect(groups.find((g) => g.id === GROUP.administrators).members).toContain(user_id);
        expect(groups.find((g) => g.id === GROUP.fullmembers).members).not.toContain(user_id);
        // The new role is in force at once (the gateway forgets the cached actor): past the
        // administrator check, POST /users now needs only the operator's can_create_users.
        expect((await client.post('/users', { email: `${unique('z')}@example.com`, full_name: 'Now Allowed' })).body.msg).toBe('User not authorized to create users');
      });

      it('changes a full name, by id and by email, announced as an update', async () => {
        const { user_id, email } = await newUser();
        const q = await queue('guest', ['realm_user']);
        expect((await patchUser('admin', user_id, { full_name: '  Renamed Once ' })).body.result).toBe('success');
        expect((await patchUser('owner', email.toUpperCase(), { full_name: 'Renamed Twice' })).body.result).toBe('success');
        const events = await eventsUntil('guest', q, (e) => e.length >= 2);
        expect(events.map((e) => e.person)).toEqual([
          { user_id, full_name: 'Renamed Once' },
          { user_id, full_name: 'Renamed Twice' },
        ]);
        expect((await clients.guest.get(`/users/${user_id}`)).body.user.full_name).toBe('Renamed Twice');
      });

      it('answers a change to nothing new with success and no event', async () => {
        const { user_id } = await newUser();
        const q = await queue('guest', ['realm_user']);
        expect((await patchUser('admin', user_id, { role: 400, full_name: 'New Person', profile_data: [] })).body.result).toBe('success');
        expect(await eventsUntil('guest', q, () => false)).toEqual([]);
      });

      it('lets only owners give and take the owner role; the only owner keeps it', async () => {
        const { user_id } = await newUser();
        await refused(() => patchUser('admin', user_id, { role: 100 }), 'Must be an organization owner');
        expect((await patchUser('owner', user_id, { role: 100 })).body.result).toBe('success');
        await refused(() => patchUser('admin', user_id, { role: 400 }), 'Must be an organization owner');
        expect((await patchUser('owner', user_id, { role: 400 })).body.result).toBe('success');
        await refused(() => patchUser('owner', ids.owner, { role: 200 }), 'The owner permission cannot be removed from the only organization owner.');
      });

      it('refuses to make a guest an administrator', async () => {
        const { user_id } = await newUser();
        expect((await patchUser('admin', user_id, { role: 600 })).body.result).toBe('success');
        await refused(() => patchUser('owner', user_id, { role: 200 }), 'Guests cannot be organization administrators');
        await refused(() => patchUser('owner', user_id, { role: 100 }), 'Guests cannot be organization administrators');
      });

      it.each([
        [{ role: 250 }, 'Invalid role 250'],
        [{ role: 'admin' }, /role/],
        [{ full_name: '' }, 'Name too short!'],
        [{ full_name: 'a'.repeat(101) }, 'Name too long!'],
        [{ full_name: 'at @ sign' }, 'Invalid characters in name!'],
        [{ profile_data: [{ id: 7, value: 'x' }] }, 'Field id 7 not found.'],
        [{ profile_data: [{ id: 1 }] }, /profile_data/],
        [{ profile_data: 'nope' }, /profile_data/],
        [{ new_email: 'other@example.com' }, 'User not authorized to change user emails'],
      ])('refuses %j', async (params, msg) => {
        await refused(() => patchUser('owner', ids.member2, params), msg);
      });

      it('refuses unknown users', async () => {
        await refused(() => patchUser('admin', 999999, { full_name: 'Ghost' }), 'No such user');
        await refused(() => patchUser('admin', 'ghost@example.com', { full_name: 'Ghost' }), 'No such user');
      });
    });

    describe('deactivating and reactivating', () => {
      it('deactivates and reactivates a user; everyone hears of it, and the user rejoins the groups', async () => {
        const { user_id, client } = await newUser();
        const group = (await clients.member.post('/user_groups/create', { name: unique('club'), description: '', members: JSON.stringify([user_id]) })).body.group_id;
        const q = await queue('member2', ['realm_user', 'user_group']);
        expect((await clients.admin.request('DELETE', `/users/${user_id}`)).body.result).toBe('success');
        expect((await client.get('/users/me')).body.code).toBe('USER_DEACTIVATED');
        expect((await clients.member.get(`/users/${user_id}`)).body.user.is_active).toBe(false);
        expect((await clients.admin.post(`/users/${user_id}/reactivate`)).body.result).toBe('success');
        const events = await eventsUntil('member2', q, (e) => e.length >= 4);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'realm_user', op: 'update', person: { user_id, is_active: false } },
          { type: 'realm_user', op: 'update', person: { user_id, is_active: true } },
          { type: 'user_group', op: 'add_members', group_id: GROUP.fullmembers, user_ids: [user_id] },
          { type: 'user_group', op: 'add_members', group_id: group, user_ids: [user_id] },
        ]);
        expect((await client.get('/users/me')).body.user_id).toBe(user_id);
      });

      it('lets a user deactivate their own account, their bots with it, but not the only owner', async () => {
        const { user_id, client } = await newUser();
        const created = (await client.post('/bots', { full_name: 'Orphan Bot', short_name: unique('orphan') })).body;
        expect(created.result).toBe('success');
        expect((await client.request('DELETE', '/users/me')).body.result).toBe('success');
        expect((await clients.admin.get(`/users/${user_id}`)).body.user.is_active).toBe(false);
        expect((await clients.admin.get(`/users/${created.user_id}`)).body.user.is_active).toBe(false);
        expect((await client.get('/users/me')).status).toBe(401);
        await refused(() => clients.owner.request('DELETE', '/users/me'), 'Cannot deactivate the only organization owner');
      });
    });

    describe('bots', () => {
      it('creates a bot owned by its creator; its key works, and its owner and the administrators hear of it', async () => {
        const ownerQueue = await queue('member', ['realm_bot']);
        const adminQueue = await queue('admin', ['realm_bot']);
        const otherQueue = await queue('member2', ['realm_bot', 'realm_user']);
        const short = unique('weather');
        const res = await clients.member.post('/bots', { full_name: 'Weather Bot', short_name: short, default_sending_stream: 'general' });
        expect(res.body).toMatchObject({
          result: 'success',
          user_id: expect.any(Number),
          api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
          avatar_url: expect.any(String),
          default_sending_stream: 'general',
          default_events_register_stream: null,
          default_all_public_streams: false,
        });
        const botId = res.body.user_id;
        const host = (await clients.member.post('/register', { fetch_event_types: JSON.stringify(['realm']) })).body.realm_bot_domain;
        const bot = new Client(suite.server.api, `${short}-bot@${host}`, res.body.api_key);
        expect((await bot.get('/users/me')).body).toMatchObject({ user_id: botId, is_bot: true, bot_type: 1, bot_owner_id: ids.member });
        expect((await bot.post('/messages', { type: 'stream', to: 'general', topic: 'bots', content: 'beep' })).body.result).toBe('success');
        const added = expect.objectContaining({ type: 'realm_bot', op: 'add', bot: expect.objectContaining({ user_id: botId, api_key: res.body.api_key, owner_id: ids.member, default_sending_stream: 'general' }) });
        expect(await eventsUntil('member', ownerQueue, (e) => e.length >= 1)).toEqual([added]);
        expect(await eventsUntil('admin', adminQueue, (e) => e.length >= 1)).toEqual([added]);
        // Others hear of a new user, never of the bot's key.
        const others = await eventsUntil('member2', otherQueue, (e) => e.length >= 1);
        expect(others.map((e) => e.type)).toEqual(['realm_user']);
        expect(JSON.stringify(others)).not.toContain(res.body.api_key);
        expect((await clients.member.get('/bots')).body.bots.map((b: any) => b.user_id)).toContain(botId);
        expect((await clients.member2.get('/bots')).body.bots.map((b: any) => b.user_id)).not.toContain(botId);
      });

      it('creates incoming, outgoing and embedded bots with their services', async () => {
        expect((await clients.member.post('/bots', { full_name: 'Hook', short_name: unique('hook'), bot_type: 2 })).body.result).toBe('success');
        const outgoing = await newBot('member', { bot_type: 3, payload_url: 'https://example.com/hook', interface_type: 2 });
        const embedded = await newBot('member', { bot_type: 4, service_name: 'converter', config_data: JSON.stringify({ key: 'value' }) });
        const mine = (await clients.member.get('/bots')).body.bots as any[];
        expect(mine.find((b) => b.user_id === outgoing.user_id).services).toEqual([{ base_url: 'https://example.com/hook', interface: 2 }]);
        expect(mine.find((b) => b.user_id === embedded.user_id).services).toEqual([{ service_name: 'converter', config_data: { key: 'value' } }]);
      });

      it('changes a bot: name, defaults and owner; the old owner sees it go, the new one gets it', async () => {
        const bot = await newBot('member');
        const oldOwner = await queue('member', ['realm_bot']);
        const newOwner = await queue('member2', ['realm_bot']);
        const res = await patchBot('member', bot.user_id, { full_name: 'Renamed Bot', default_events_register_stream: 'engineering', default_all_public_streams: true });
        expect(res.body).toMatchObject({ result: 'success', full_name: 'Renamed Bot', default_events_register_stream: 'engineering', default_all_public_streams: true });
        expect((await patchBot('member', bot.user_id, { bot_owner_id: ids.member2 })).body).toMatchObject({ result: 'success', bot_owner: EMAILS.member2 });
        const seenByOld = await eventsUntil('member', oldOwner, (e) => e.some((x) => x.op === 'delete'));
        expect(seenByOld.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, full_name: 'Renamed Bot' } },
          { type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, default_events_register_stream: 'engineering', default_all_public_streams: true } },
          { type: 'realm_bot', op: 'delete', bot: { user_id: bot.user_id } },
        ]);
        const seenByNew = await eventsUntil('member2', newOwner, (e) => e.length >= 2);
        expect(seenByNew.map((e) => e.op)).toEqual(['add', 'update']);
        expect(seenByNew[0].bot).toMatchObject({ user_id: bot.user_id, full_name: 'Renamed Bot', owner_id: ids.member2, api_key: bot.api_key });
        // The old owner may no longer change it; the new one may.
        await refused(() => patchBot('member', bot.user_id, { full_name: 'Mine Again' }), 'Insufficient permission');
        expect((await patchBot('member2', bot.user_id, { full_name: 'Theirs Now' })).body.result).toBe('success');
      });

      it('regenerates a key: the old one stops working at once, the new one works', async () => {
        const bot = await newBot('member');
        expect((await bot.client.get('/users/me')).status).toBe(200);
        const res = await clients.member.post(`/bots/${bot.user_id}/api_key/regenerate`);
        expect(res.body).toMatchObject({ result: 'success', api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
        expect(res.body.api_key).not.toBe(bot.api_key);
        expect((await bot.client.get('/users/me')).body.code).toBe('INVALID_API_KEY');
        expect((await new Client(suite.server.api, bot.email, res.body.api_key).get('/users/me')).body.user_id).toBe(bot.user_id);
        expect((await bots('member')).find((b) => b.user_id === bot.user_id).api_key).toBe(res.body.api_key);
      });

      it('deactivates a bot: its key stops working, its owner hears of it', async () => {
        const bot = await newBot('member');
        const q = await queue('member', ['realm_bot']);
        expect((await clients.member.request('DELETE', `/bots/${bot.user_id}`)).body.result).toBe('success');
        expect((await bot.client.get('/users/me')).body.code).toBe('USER_DEACTIVATED');
        const events = await eventsUntil('member', q, (e) => e.length >= 1);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, is_active: false } }]);
        expect((await clients.member.get('/bots')).body.bots.map((b: any) => b.user_id)).not.toContain(bot.user_id);
      });

      it.each([
        [{ bot_type: 9 }, 'Invalid bot type 9'],
        [{ short_name: 'has space' }, 'Bad name or username'],
        [{ full_name: '' }, 'Name too short!'],
        [{ bot_type: 3 }, 'Missing payload_url'],
        [{ bot_type: 3, payload_url: 'ftp://example.com' }, 'payload_url is not a URL'],
        [{ bot_type: 3, payload_url: 'https://example.com', interface_type: 7 }, 'Invalid interface type 7'],
        [{ bot_type: 4, service_name: 'skynet' }, 'Invalid embedded bot name.'],
        [{ default_sending_stream: 'no such channel' }, "Invalid channel name 'no such channel'"],
        // A private channel the creator is not subscribed to is as good as unknown.
        [{ default_sending_stream: 'leadership' }, "Invalid channel name 'leadership'"],
        [{ config_data: '[1]' }, /config_data/],
      ])('refuses %j', async (params, msg) => {
        await refused(() => clients.member.post('/bots', { full_name: 'Bad Bot', short_name: unique('bad'), ...params }), msg);
      });

      it('refuses a short name already in use', async () => {
        const short = unique('twin');
        expect((await clients.member.post('/bots', { full_name: 'Twin', short_name: short })).body.result).toBe('success');
        await refused(() => clients.member2.post('/bots', { full_name: 'Twin', short_name: short }), 'Username already in use');
      });

      it.each([
        [() => ({ bot_owner_id: 999999 }), 'Failed to change owner, no such user'],
        [() => ({ bot_owner_id: ids.bot }), "Failed to change owner, bots can't own other bots"],
        [() => ({ default_sending_stream: 'nowhere' }), "Invalid channel name 'nowhere'"],
        [() => ({ full_name: 'back\\slash' }), 'Invalid characters in name!'],
      ])('refuses a change %#', async (params, msg) => {
        const bot = await newBot('member');
        await refused(() => patchBot('member', bot.user_id, params()), msg);
      });

      it('refuses a deactivated new owner and unknown bots', async () => {
        const bot = await newBot('member');
        const gone = await newUser();
        await clients.admin.request('DELETE', `/users/${gone.user_id}`);
        await refused(() => patchBot('member', bot.user_id, { bot_owner_id: gone.user_id }), 'Failed to change owner, user is deactivated');
        await refused(() => patchBot('admin', ids.member, { full_name: 'Not A Bot' }), 'No such bot');
        await refused(() => clients.admin.request('DELETE', '/bots/999999'), 'No such bot');
        await refused(() => clients.admin.post('/bots/999999/api_key/regenerate'), 'No such bot');
      });
    });

    describe('authorization matrix', () => {
      const everyone: Who[] = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'bot'];
      /** Who may do each operation on someone else (or on a bot of the member's). */
      const matrix: [string, Who[], (who: Who) => Promise<Reply>][] = [
        ['GET /users', everyone, (who) => clients[who].get('/users')],
        ['GET /users/{id}', everyone, (who) => clients[who].get(`/users/${ids.member2}`)],
        ['POST /users', ['owner', 'admin'], (who) => clients[who].post('/users', { email: `${unique('m')}@example.com`, full_name: 'Matrix' })],
        ['PATCH /users/{id} full_name', ['owner', 'admin'], async (who) => patchUser(who, (await newUser()).user_id, { full_name: 'Matrix Name' })],
        ['PATCH /users/{id} role', ['owner', 'admin'], async (who) => patchUser(who, (await newUser()).user_id, { role: 300 })],
        ['PATCH /users/{email}', ['owner', 'admin'], async (who) => patchUser(who, (await newUser()).email, { full_name: 'By Email' })],
        [
          'PATCH /users/{id} new_email (the owner holding the server permission)',
          ['owner'],
          async (who) => {
            const { user_id } = await newUser();
            await setEmailChangePermission(suite.server, EMAILS.owner, true);
            try {
              return await patchUser(who, user_id, { new_email: `${unique('moved')}@example.com` });
            } finally {
              await setEmailChangePermission(suite.server, EMAILS.owner, false);
            }
          },
        ],
        ['DELETE /users/{id}', ['owner', 'admin'], async (who) => clients[who].request('DELETE', `/users/${(await newUser()).user_id}`)],
        ['POST /bots', ['owner', 'admin', 'moderator', 'member', 'member2'], (who) => clients[who].post('/bots', { full_name: 'M Bot', short_name: unique('m') })],
        ['GET /bots', everyone, (who) => clients[who].get('/bots')],
        ['PATCH /bots/{id} of member', ['owner', 'admin', 'member'], async (who) => patchBot(who, (await newBot('member')).user_id, { full_name: 'Patched' })],
        ['DELETE /bots/{id} of member', ['owner', 'admin', 'member'], async (who) => clients[who].request('DELETE', `/bots/${(await newBot('member')).user_id}`)],
        ['regenerate a key of member', ['owner', 'admin', 'member'], async (who) => clients[who].post(`/bots/${(await newBot('member')).user_id}/api_key/regenerate`)],
      ];
      it.each(matrix)('%s', async (_name, allowed, operation) => {
        for (const who of everyone) {
          const res = await operation(who);
          const outcome = res.body.result === 'success' ? 'allowed' : `${res.body.code}`;
          expect({ who, outcome }).toEqual({ who, outcome: allowed.includes(who) ? 'allowed' : 'BAD_REQUEST' });
        }
      }, 60_000);
    });
  });
}
