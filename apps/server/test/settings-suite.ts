/**
 * The HTTP suite for PATCH /settings (spec endpoint 3) and what hangs on it: every
 * setting with its `user_settings` event and register value, the deprecated aliases,
 * target_users for administrators, name, password and email changes (the confirmation
 * link read from the development mail file), email visibility of the organization and
 * of each user, profile_data of PATCH /users/{id}, and register's can_* flags and full
 * members following the organization's settings. Every refusal is checked to have changed
 * nothing.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { USER_SETTING_NAMES, USER_SETTINGS, WELCOME_BOT, type UserSettingName } from '@teamchat/contracts';
import { Client, setEmailChangePermission, type RunningServer } from './harness';
import { DEV_EMAILS as EMAILS, DEV_USERS, eventsUntil as pollUntil, expectRefusedUnchanged, mailOf, suiteServer, type Reply, type SeededUser as Who } from './suite-kit';

const GROUP = { fullmembers: 4, moderators: 5, administrators: 6, members: 3 } as const;

/** A value other than the default, for every setting (time zone and language named). */
function otherValue(name: UserSettingName): boolean | number | string {
  const spec = USER_SETTINGS[name];
  const type = spec.type as { kind: string; values?: readonly (number | string)[]; min?: number };
  switch (type.kind) {
    case 'boolean':
      return !spec.default;
    case 'choice':
    case 'word':
      return type.values!.find((v) => v !== spec.default)!;
    case 'range':
      return (spec.default as number) + 1;
    case 'language':
      return 'de';
    case 'timezone':
      return 'Asia/Tokyo';
    default:
      return 'ding';
  }
}

export function settingsSuite(mode: string, start: (dataDir: string) => Promise<RunningServer>, dataDir: () => string) {
  describe(`settings (${mode})`, () => {
    // The distributed mode starts five processes and seeds: slow on a loaded machine.
    const suite = suiteServer(() => start(dataDir()), DEV_USERS, 180_000);
    const { clients, ids } = suite;
    let serial = 0;
    const unique = (prefix: string) => `${prefix}${++serial}x${Date.now() % 100000}`;

    // After the kit's own afterAll has stopped the server.
    afterAll(() => {
      rmSync(dataDir(), { recursive: true, force: true });
    });

    const patch = (who: Who | Client, params: Record<string, unknown>, path = '/settings') =>
      (typeof who === 'string' ? clients[who] : who).request('PATCH', path, params, { query: false });
    const patchRealm = (who: Who, params: Record<string, unknown>) => clients[who].request('PATCH', '/realm', params, { query: false });
    const settingsOf = async (who: Who | Client) =>
      (await (typeof who === 'string' ? clients[who] : who).post('/register', { fetch_event_types: JSON.stringify(['user_settings']) })).body.user_settings as Record<string, unknown>;
    const register = async (who: Who | Client, types: string[]) => (await (typeof who === 'string' ? clients[who] : who).post('/register', { fetch_event_types: JSON.stringify(types) })).body;

    async function queue(who: Who | Client, event_types: string[]): Promise<string> {
      const client = typeof who === 'string' ? clients[who] : who;
      const res = await client.post('/register', { event_types: JSON.stringify(event_types) });
      expect(res.body.result).toBe('success');
      return res.body.queue_id;
    }

    const eventsUntil = (who: Who | Client, queue_id: string, done: (events: any[]) => boolean) =>
      pollUntil(typeof who === 'string' ? clients[who] : who, queue_id, done);

    const refused = (request: () => Promise<Reply>, msg: string | RegExp, state: () => Promise<unknown>) => expectRefusedUnchanged(request, { msg }, state);

    /** A new member with a password, logged in with it (so tests that change an account touch nobody else). */
    async function newMember(password = 'correct horse battery'): Promise<{ client: Client; id: number; email: string }> {
      const email = `${unique('settings')}@example.com`;
      const created = await clients.admin.post('/users', { email, full_name: 'Settings Person', password });
      expect(created.body.result).toBe('success');
      const key = (await clients.admin.post('/fetch_api_key', { username: email, password })).body;
      expect(key.result).toBe('success');
      return { client: new Client(suite.server.api, email, key.api_key), id: created.body.user_id, email };
    }

    describe('personal settings', () => {
      it('takes every setting of the spec, announces each with user_settings and shows it in register', async () => {
        const person = await newMember();
        const q = await queue(person.client, ['user_settings']);
        const changes = Object.fromEntries(USER_SETTING_NAMES.filter((n) => n !== 'email_address_visibility').map((n) => [n, otherValue(n)]));
        const res = await patch(person.client, changes);
        expect(res.body).toEqual({ result: 'success', msg: '' });
        const events = await eventsUntil(person.client, q, (e) => e.length >= Object.keys(changes).length);
        expect(events.map((e) => [e.property, e.value])).toEqual(Object.entries(changes));
        for (const event of events) {
          expect(event).toMatchObject({ type: 'user_settings', op: 'update' });
          if (event.property === 'default_language') expect(event.language_name).toBe('German');
          else expect(event).not.toHaveProperty('language_name');
        }
        expect(await settingsOf(person.client)).toMatchObject(changes);
      });

      it('register carries every setting, at its default for a user who changed nothing', async () => {
        const settings = await settingsOf('guest');
        for (const name of USER_SETTING_NAMES) expect(settings).toHaveProperty(name);
        expect(settings.emojiset).toBe('google');
      });

      it('answers unknown parameters in ignored_parameters_unsupported', async () => {
        const res = await patch('member', { enter_sends: false, dense_mode: true, no_such_setting: 1 });
        expect(res.body).toMatchObject({ result: 'success', ignored_parameters_unsupported: ['dense_mode', 'no_such_setting'] });
      });

      it('serves the deprecated PATCH /settings/display and /settings/notifications', async () => {
        const person = await newMember();
        expect((await patch(person.client, { color_scheme: 2 }, '/settings/display')).body.result).toBe('success');
        expect((await patch(person.client, { enable_sounds: false }, '/settings/notifications')).body.result).toBe('success');
        expect(await settingsOf(person.client)).toMatchObject({ color_scheme: 2, enable_sounds: false });
      });

      it.each([
        [{ color_scheme: 7 }, 'Invalid color_scheme: 7'],
        [{ web_channel_default_view: 9 }, 'Invalid web_channel_default_view: 9'],
        [{ web_home_view: 'home' }, 'Invalid web_home_view: "home"'],
        [{ emojiset: 'apple' }, 'Invalid emojiset: "apple"'],
        [{ demote_inactive_streams: 0 }, 'Invalid demote_inactive_streams: 0'],
        [{ user_list_style: 4 }, 'Invalid user_list_style: 4'],
        [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews: "sometimes"'],
        [{ web_stream_unreads_count_display_policy: 4 }, 'Invalid web_stream_unreads_count_display_policy: 4'],
        [{ default_language: 'xx' }, 'Invalid default_language: "xx"'],
        [{ timezone: 'Nowhere/Land' }, 'Invalid timezone: "Nowhere/Land"'],
        [{ notification_sound: 'klaxon' }, 'Invalid notification_sound: "klaxon"'],
        [{ web_font_size_px: 300 }, 'Invalid web_font_size_px: 300'],
        [{ email_notifications_batching_period_seconds: -5 }, 'Invalid email_notifications_batching_period_seconds: -5'],
        [{ enter_sends: true, emojiset: 'apple' }, 'Invalid emojiset: "apple"'],
        [{ twenty_four_hour_time: 'maybe' }, /twenty_four_hour_time/],
        [{ color_scheme: 'dark' }, /color_scheme/],
      ])('refuses %j and changes nothing', (params, msg) => refused(() => patch('member2', params), msg, () => settingsOf('member2')));

      it('a time zone is part of the profile: realm_user update to everyone, and GET /users shows it', async () => {
        const person = await newMember();
        const q = await queue('guest', ['realm_user']);
        expect((await patch(person.client, { timezone: 'America/Lima' })).body.result).toBe('success');
        const events = await eventsUntil('guest', q, (e) => e.some((x) => x.person?.timezone));
        expect(events).toContainEqual({ id: expect.any(Number), type: 'realm_user', op: 'update', person: { user_id: person.id, email: person.email, timezone: 'America/Lima' } });
        expect((await clients.guest.get(`/users/${person.id}`)).body.user.timezone).toBe('America/Lima');
      });
    });

    describe('target_users', () => {
      it('administrators change the settings of named users and of groups’ members', async () => {
        const a = await newMember();
        const b = await newMember();
        const res = await patch('admin', { target_users: { user_ids: [a.id, b.id] }, web_font_size_px: 18 });
        expect(res.body.result).toBe('success');
        expect((await settingsOf(a.client)).web_font_size_px).toBe(18);
        expect((await settingsOf(b.client)).web_font_size_px).toBe(18);
        expect((await patch('owner', { target_users: { group_ids: [GROUP.moderators] }, web_line_height_percent: 130 })).body.result).toBe('success');
        for (const who of ['moderator', 'admin', 'owner'] as const) expect((await settingsOf(who)).web_line_height_percent).toBe(130);
        expect((await settingsOf('member')).web_line_height_percent).not.toBe(130);
      });

      it('skip_if_already_edited leaves users who changed the setting themselves', async () => {
        const a = await newMember();
        const b = await newMember();
        await patch(a.client, { emojiset: 'text' });
        const q = await queue(b.client, ['user_settings']);
        expect((await patch('admin', { target_users: { user_ids: [a.id, b.id], skip_if_already_edited: true }, emojiset: 'twitter' })).body.result).toBe('success');
        expect((await settingsOf(a.client)).emojiset).toBe('text');
        expect((await settingsOf(b.client)).emojiset).toBe('twitter');
        // The target's own queues hear of it.
        expect(await eventsUntil(b.client, q, (e) => e.length > 0)).toEqual([{ id: expect.any(Number), type: 'user_settings', op: 'update', property: 'emojiset', value: 'twitter' }]);
      });

      it.each(['moderator', 'member', 'guest', 'bot'] as const)('is refused to a %s, changing nothing', (who) =>
        refused(() => patch(who, { target_users: { user_ids: [ids.member2] }, color_scheme: 3 }), 'Insufficient permission', () => settingsOf('member2')));

      it('refuses unknown users and groups, and account changes for others', async () => {
        await refused(() => patch('admin', { target_users: { user_ids: [ids.member2, 99999] }, color_scheme: 3 }), 'Invalid user ID: 99999', () => settingsOf('member2'));
        await refused(() => patch('admin', { target_users: { group_ids: [99999] }, color_scheme: 3 }), 'Invalid user group', () => settingsOf('member2'));
        await refused(() => patch('admin', { target_users: { user_ids: [ids.member2] }, full_name: 'X' }), 'full_name cannot be changed for other users', () => settingsOf('member2'));
      });
    });

    describe('account changes', () => {
      const me = (client: Client) => client.get('/users/me').then((r) => r.body);

      it('changes the own name, announced with realm_user; the organization may forbid it except to administrators', async () => {
        const person = await newMember();
        const q = await queue('guest', ['realm_user']);
        expect((await patch(person.client, { full_name: 'Renamed Person' })).body.result).toBe('success');
        const events = await eventsUntil('guest', q, (e) => e.some((x) => x.person?.full_name));
        expect(events).toContainEqual({ id: expect.any(Number), type: 'realm_user', op: 'update', person: { user_id: person.id, full_name: 'Renamed Person' } });
        expect((await patchRealm('admin', { name_changes_disabled: true })).body.result).toBe('success');
        try {
          await refused(() => patch(person.client, { full_name: 'Forbidden' }), 'Name changes are disabled in this organization. Contact an administrator to change your name.', () => me(person.client));
          expect((await patch('admin', { full_name: 'Adam Admin' })).body.result).toBe('success');
        } finally {
          await patchRealm('admin', { name_changes_disabled: false });
        }
      });

      it.each([
        [{ full_name: '' }, 'Name too short!'],
        [{ full_name: 'x'.repeat(101) }, 'Name too long!'],
        [{ full_name: 'a@b' }, 'Invalid characters in name!'],
      ])('refuses %j', (params, msg) => refused(() => patch('member2', params), msg, () => me(clients.member2)));

      it('changes the password: new_password needs old_password, which must match', async () => {
        const person = await newMember('first password');
        const login = (password: string) => clients.guest.post('/fetch_api_key', { username: person.email, password });
        await refused(() => patch(person.client, { new_password: 'second password' }), "Missing 'old_password' argument", () => login('first password').then((r) => r.body.result));
        await refused(() => patch(person.client, { old_password: 'wrong', new_password: 'second password', color_scheme: 3 }), 'Wrong password!', () => settingsOf(person.client));
        expect((await login('first password')).body.result).toBe('success');
        expect((await patch(person.client, { old_password: 'first password', new_password: 'second password' })).body).toEqual({ result: 'success', msg: '' });
        expect((await login('second password')).body.result).toBe('success');
        expect((await login('first password')).status).toBe(401);
      });

      it('changes the email through a confirmation link sent to the new address', async () => {
        const person = await newMember();
        const newEmail = `${unique('moved')}@example.com`;
        expect((await patch(person.client, { email: newEmail })).body.result).toBe('success');
        // Nothing changes until the link is opened.
        expect((await me(person.client)).email).toBe(person.email);
        // The development outbox: one JSON file per message, named in sending order.
        const mail = (await mailOf(dataDir())).filter((m) => m.to === newEmail);
        expect(mail).toHaveLength(1);
        // The mail links to the HTML page; the API form takes the same key.
        const link = /\/accounts\/confirm_new_email\/([A-Za-z0-9_-]+)\//.exec(mail[0].text)![1]!;
        const q = await queue('admin', ['realm_user']);
        const confirmed = await new Client(suite.server.api).get(`/settings/email/confirm/${link}`);
        expect(confirmed.body).toEqual({ result: 'success', msg: '', email: newEmail });
        expect((await clients.admin.get(`/users/${person.id}`)).body.user.email).toBe(newEmail);
        const events = await eventsUntil('admin', q, (e) => e.length >= 2);
        expect(events.map((e) => e.person)).toEqual([
          { user_id: person.id, new_email: newEmail },
          { user_id: person.id, delivery_email: newEmail },
        ]);
        // The old address no longer authenticates; the new one does.
        expect((await person.client.get('/users/me')).status).toBe(401);
        expect((await new Client(suite.server.api, newEmail, person.client.apiKey).get('/users/me')).body.email).toBe(newEmail);
        // A link works once.
        expect((await new Client(suite.server.api).get(`/settings/email/confirm/${link}`)).body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid or expired confirmation link' });
      });

      it('refuses bad addresses and addresses in use, and unknown links', async () => {
        await refused(() => patch('member2', { email: 'not an address' }), "Invalid email 'not an address'", () => me(clients.member2));
        await refused(() => patch('member2', { email: EMAILS.member }), `Email '${EMAILS.member}' already in use`, () => me(clients.member2));
        // A system bot's address is taken in every organization.
        await refused(() => patch('member2', { email: WELCOME_BOT.email }), `Email '${WELCOME_BOT.email}' already in use`, () => me(clients.member2));
        const res = await new Client(suite.server.api).get('/settings/email/confirm/nonsense');
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid or expired confirmation link' });
      });
    });

    describe('email visibility', () => {
      const seen = async (viewer: Who, subject: Who) => (await clients[viewer].get(`/users/${ids[subject]}`)).body.user;

      it("follows the organization's setting: administrators only", async () => {
        const host = (await register('guest', ['realm'])).realm_bot_domain;
        expect((await patchRealm('admin', { email_address_visibility: 3 })).body.result).toBe('success');
        try {
          expect(await seen('member', 'member2')).toMatchObject({ email: `user${ids.member2}@${host}`, delivery_email: null });
          expect(await seen('admin', 'member2')).toMatchObject({ email: EMAILS.member2, delivery_email: EMAILS.member2 });
          expect((await seen('member2', 'member2')).email).toBe(EMAILS.member2);
          const users = (await register('member', ['realm_user'])).realm_users as any[];
          expect(users.find((u) => u.user_id === ids.member2).email).toBe(`user${ids.member2}@${host}`);
          // Endpoint 6 takes the dummy address.
          expect((await clients.admin.request('PATCH', `/users/user${ids.member2}@${host}`, { full_name: 'Mary Member' }, { query: false })).body.result).toBe('success');
        } finally {
          await patchRealm('admin', { email_address_visibility: 1 });
        }
      });

      it("follows each user's own setting", async () => {
        const person = await newMember();
        expect((await patch(person.client, { email_address_visibility: 4 })).body.result).toBe('success');
        const admin = (await clients.admin.get(`/users/${person.id}`)).body.user;
        expect(admin.delivery_email).toBeNull();
        expect((await clients.member.get(`/users/${person.id}`)).body.user.delivery_email).toBeNull();
        expect((await person.client.get(`/users/${person.id}`)).body.user.delivery_email).toBe(person.email);
      });
    });

    describe('PATCH /users/{id} profile_data', () => {
      it('checks values against their field type and stores them; a refusal changes nothing', async () => {
        const field = await clients.admin.post('/realm/profile_fields', { name: unique('Phone'), field_type: 1 });
        expect(field.body.result).toBe('success');
        const profile = async () => (await clients.admin.get(`/users/${ids.member2}`, { include_custom_profile_fields: true })).body.user;
        await refused(
          () => clients.admin.request('PATCH', `/users/${ids.member2}`, { full_name: 'Not Applied', profile_data: [{ id: field.body.id, value: 'x'.repeat(51) }] }, { query: false }),
          /too long/,
          profile,
        );
        await refused(() => clients.admin.request('PATCH', `/users/${ids.member2}`, { profile_data: [{ id: 99999, value: 'x' }] }, { query: false }), /99999/, profile);
        await refused(() => clients.member.request('PATCH', `/users/${ids.member2}`, { profile_data: [{ id: field.body.id, value: 'x' }] }, { query: false }), /Insufficient permission|administrator/, profile);
        const ok = await clients.admin.request('PATCH', `/users/${ids.member2}`, { profile_data: [{ id: field.body.id, value: '555-1234' }] }, { query: false });
        expect(ok.body.result).toBe('success');
        expect((await profile()).profile_data[String(field.body.id)]).toEqual({ value: '555-1234' });
      });

      it('new_email needs an owner with the permission to change addresses', async () => {
        const me2 = () => clients.member2.get('/users/me').then((r) => r.body);
        await refused(() => clients.admin.request('PATCH', `/users/${ids.member2}`, { new_email: 'x@example.com' }, { query: false }), 'Must be an organization owner', me2);
        await refused(() => clients.owner.request('PATCH', `/users/${ids.member2}`, { new_email: 'x@example.com' }, { query: false }), 'User not authorized to change user emails', me2);
      });

      it("new_email changes another user's address once the operator gives the owner the permission", async () => {
        const person = await newMember();
        const moved = `${unique('moved')}@example.com`;
        const change = (email: string) => clients.owner.request('PATCH', `/users/${person.id}`, { new_email: email }, { query: false });
        const seenByAdmin = () => clients.admin.get(`/users/${person.id}`).then((r) => r.body.user);
        await setEmailChangePermission(suite.server, EMAILS.owner, true);
        try {
          await refused(() => change('not an address'), "Invalid email 'not an address'", seenByAdmin);
          await refused(() => change(EMAILS.member), `Email '${EMAILS.member}' already in use`, seenByAdmin);
          await refused(() => change(WELCOME_BOT.email), `Email '${WELCOME_BOT.email}' already in use`, seenByAdmin);
          const q = await queue('admin', ['realm_user']);
          expect((await change(moved)).body.result).toBe('success');
          expect((await seenByAdmin()).email).toBe(moved);
          const events = await eventsUntil('admin', q, (e) => e.length >= 2);
          expect(events.map((e) => e.person)).toEqual([
            { user_id: person.id, new_email: moved },
            { user_id: person.id, delivery_email: moved },
          ]);
          // The user's key stays; the old address no longer authenticates, the new one does.
          expect((await person.client.get('/users/me')).status).toBe(401);
          expect((await new Client(suite.server.api, moved, person.client.apiKey).get('/users/me')).body.email).toBe(moved);
        } finally {
          await setEmailChangePermission(suite.server, EMAILS.owner, false);
        }
        await refused(() => change(`${unique('again')}@example.com`), 'User not authorized to change user emails', seenByAdmin);
      });
    });

    describe("register's can_* flags and full members follow the organization's settings", () => {
      it('computes the flags from the current settings', async () => {
        expect(await register('member', ['realm_user'])).toMatchObject({ can_create_public_streams: true, can_invite_others_to_realm: false, can_subscribe_other_users: true });
        expect((await patchRealm('owner', { can_create_public_channel_group: { new: GROUP.administrators }, can_invite_users_group: { new: GROUP.members } })).body.result).toBe('success');
        try {
          expect(await register('member', ['realm_user'])).toMatchObject({ can_create_public_streams: false, can_create_streams: true, can_invite_others_to_realm: true });
          expect(await register('admin', ['realm_user'])).toMatchObject({ can_create_public_streams: true });
        } finally {
          await patchRealm('owner', { can_create_public_channel_group: { new: GROUP.members }, can_invite_users_group: { new: GROUP.administrators } });
        }
      });

      it('a waiting period makes new members no full members, wherever a setting names that group', async () => {
        expect((await patchRealm('owner', { waiting_period_threshold: 100000, can_create_public_channel_group: { new: GROUP.fullmembers } })).body.result).toBe('success');
        try {
          expect(await register('member', ['realm_user'])).toMatchObject({ can_create_public_streams: false });
          expect(await register('moderator', ['realm_user'])).toMatchObject({ can_create_public_streams: true });
          const name = unique('waiting');
          const res = await clients.member.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
          expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
          expect((await clients.moderator.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) })).body.result).toBe('success');
        } finally {
          await patchRealm('owner', { waiting_period_threshold: 0, can_create_public_channel_group: { new: GROUP.members } });
        }
        expect(await register('member', ['realm_user'])).toMatchObject({ can_create_public_streams: true });
      });
    });

    describe('authorization: every role changes its own settings', () => {
      it.each(Object.keys(EMAILS) as Who[])('%s', async (who) => {
        const value = !(await settingsOf(who)).enter_sends;
        expect((await patch(who, { enter_sends: value })).body.result).toBe('success');
        expect((await settingsOf(who)).enter_sends).toBe(value);
      });
    });
  });
}
