/**
 * The HTTP suite for what surrounds subscribing: listing channels (GET /streams and its
 * relatives), a user's subscriptions and their own settings, leaving channels, default
 * channels, channel folders and a channel's topics; and the authorization matrix (each
 * role × each channel operation × a public, a private and an archived channel). Run
 * against every mode. Each refused request is checked to have changed nothing.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, onceCaughtUp, patch, subscribe, suiteServer, unsubscribe, type Reply } from './suite-kit';

type Role = 'owner' | 'admin' | 'moderator' | 'member' | 'guest';
const ROLES: Role[] = ['owner', 'admin', 'moderator', 'member', 'guest'];

export function subscriptionsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`subscriptions, channel lists, defaults and folders (${mode})`, () => {
    const { clients, ids } = suiteServer(start, [...ROLES, 'member2'] as const);
    let serial = 0;
    const unique = (prefix: string) => `${prefix}-${++serial}`;

    const properties = (client: Client, data: unknown[]) => client.post('/users/me/subscriptions/properties', { subscription_data: data });
    /** A channel the administrator creates (and alone is subscribed to); its id. */
    async function channel(prefix: string, params: Record<string, unknown> = {}): Promise<{ name: string; id: number }> {
      const name = unique(prefix);
      const res = await subscribe(clients.admin, [name], params);
      expect(res.body.result).toBe('success');
      const id = (await clients.admin.get('/get_stream_id', { stream: name })).body.stream_id as number;
      return { name, id };
    }
    const mySubscriptions = async (client: Client) =>
      (await client.get('/users/me/subscriptions')).body.subscriptions as Record<string, any>[];
    const register = async (client: Client, event_types: string[]) => (await client.post('/register', { event_types })).body.queue_id as string;
    const expectError = (res: Reply, msg: string) => {
      expect({ status: res.status, code: res.body.code, result: res.body.result }).toEqual({ status: 400, code: 'BAD_REQUEST', result: 'error' });
      expect(res.body.msg).toContain(msg);
    };

    describe('reading channels', () => {
      it('GET /streams lists what each kind of user may see, and what they ask for', async () => {
        const open = await channel('listed');
        const secret = await channel('hidden', { invite_only: true });
        const names = (res: Reply) => (res.body.streams as { name: string }[]).map((s) => s.name);

        const member = await clients.member.get('/streams');
        expect(names(member)).toEqual(expect.arrayContaining(['general', 'engineering', open.name]));
        expect(names(member)).not.toContain(secret.name);
        expect(names(member)).not.toContain('leadership');
        expect(member.body.streams[0]).not.toHaveProperty('is_default');

        // A guest sees only what they are subscribed to, asked for public channels or not.
        expect(names(await clients.guest.get('/streams'))).toEqual(['general']);
        expect(names(await clients.member.get('/streams', { include_public: false }))).toEqual(['general', 'engineering']);

        const defaults = await clients.member.get('/streams', { include_public: false, include_subscribed: false, include_default: true });
        expect(defaults.body.streams.map((s: any) => [s.name, s.is_default])).toEqual([['general', true]]);

        // Every channel: administrators only, under either name.
        const all = await clients.admin.get('/streams', { include_all_active: true });
        expect(names(all)).toEqual(expect.arrayContaining(['leadership', secret.name, open.name]));
        expect(names(await clients.admin.get('/streams', { include_all: true }))).toEqual(names(all));
        expectError(await clients.member.get('/streams', { include_all_active: true }), 'User not authorized for this query');

        // Archived channels only when asked.
        const old = await channel('old-listed');
        expect((await clients.admin.request('DELETE', `/streams/${old.id}`)).body.result).toBe('success');
        expect(names(await clients.member.get('/streams'))).not.toContain(old.name);
        const withArchived = await clients.member.get('/streams', { exclude_archived: false });
        expect(withArchived.body.streams.find((s: any) => s.name === old.name)).toMatchObject({ is_archived: true });
      });

      it('GET /streams/{id}, /get_stream_id and /streams/{id}/members answer for visible channels only', async () => {
        const open = await channel('readable');
        const secret = await channel('unreadable', { invite_only: true });
        const one = await clients.member.get(`/streams/${open.id}`);
        expect(one.body.stream).toMatchObject({
          stream_id: open.id,
          name: open.name,
          invite_only: false,
          creator_id: ids.admin,
          folder_id: null,
          subscriber_count: 1,
          first_message_id: null,
          can_administer_channel_group: { direct_members: [ids.admin], direct_subgroups: [] },
        });
        expect((await clients.member.get('/get_stream_id', { stream: open.name.toUpperCase() })).body).toMatchObject({ stream_id: open.id });
        expect((await clients.member.get(`/streams/${open.id}/members`)).body.subscribers).toEqual([ids.admin]);

        for (const res of [await clients.member.get(`/streams/${secret.id}`), await clients.member.get(`/streams/${secret.id}/members`), await clients.admin.get('/streams/999999')]) {
          expectError(res, 'Invalid channel ID');
        }
        expectError(await clients.member.get('/get_stream_id', { stream: secret.name }), `Invalid channel name '${secret.name}'`);
        expectError(await clients.member.get('/get_stream_id', { stream: 'no-such-channel' }), "Invalid channel name 'no-such-channel'");
        expectError(await clients.guest.get(`/streams/${open.id}`), 'Invalid channel ID');
        // Administrators see private channels' metadata.
        expect((await clients.owner.get(`/streams/${secret.id}/members`)).body.subscribers).toEqual([ids.admin]);
      });

      it('GET /users/me/subscriptions and /users/{id}/subscriptions/{stream_id}', async () => {
        const open = await channel('subs', { principals: [ids.admin, ids.member] });
        const mine = await mySubscriptions(clients.member);
        const record = mine.find((s) => s.stream_id === open.id)!;
        expect(record).toMatchObject({ name: open.name, is_muted: false, in_home_view: true, pin_to_top: false, desktop_notifications: null, subscriber_count: 2 });
        expect(record.color).toMatch(/^#[0-9a-f]{6}$/);
        expect(record).not.toHaveProperty('subscribers');
        const withSubscribers = (await clients.member.get('/users/me/subscriptions', { include_subscribers: true })).body.subscriptions;
        expect(withSubscribers.find((s: any) => s.stream_id === open.id).subscribers).toEqual([ids.admin, ids.member].sort((a, b) => a - b));

        expect((await clients.member2.get(`/users/${ids.member}/subscriptions/${open.id}`)).body).toMatchObject({ result: 'success', is_subscribed: true });
        expect((await clients.member2.get(`/users/${ids.member2}/subscriptions/${open.id}`)).body.is_subscribed).toBe(false);
        expectError(await clients.member2.get(`/users/999999/subscriptions/${open.id}`), 'No such user');
        expectError(await clients.member2.get(`/users/${ids.member}/subscriptions/999999`), 'Invalid channel ID');
      });
    });

    describe('POST /users/me/subscriptions: principals', () => {
      it('refuses a deactivated principal, by id or email, creating and subscribing nothing', async () => {
        expect((await clients.admin.request('DELETE', `/users/${ids.member2}`)).body.result).toBe('success');
        try {
          // Until the channels service has seen the deactivation, this changes nothing (member2 is in general already).
          await onceCaughtUp(() => subscribe(clients.member, ['general'], { principals: [ids.member2] }), (r) => r.body.result === 'success');
          // Ids or emails (Zulip takes a list of either, not both).
          for (const principals of [[ids.member, ids.member2], ['member@example.com', 'member2@example.com']]) {
            const name = unique('for-the-departed');
            const res = await subscribe(clients.member, [name, 'general'], { principals });
            expectError(res, 'User is deactivated');
            expectError(await clients.member.get('/get_stream_id', { stream: name }), `Invalid channel name '${name}'`);
          }
        } finally {
          expect((await clients.admin.post(`/users/${ids.member2}/reactivate`)).body.result).toBe('success');
        }
      });
    });

    describe('DELETE /users/me/subscriptions', () => {
      it('removes the caller, told as remove and peer_remove; not_removed where they were not subscribed', async () => {
        const open = await channel('leaving', { principals: [ids.admin, ids.member] });
        const other = await channel('never-joined');
        const mine = await register(clients.member, ['subscription']);
        const peers = await register(clients.member2, ['subscription']);
        const res = await unsubscribe(clients.member, [open.name, other.name]);
        expect(res.body).toEqual({ result: 'success', msg: '', removed: [open.name], not_removed: [other.name] });
        expect((await clients.member.get(`/users/${ids.member}/subscriptions/${open.id}`)).body.is_subscribed).toBe(false);

        const about = (evs: any[]) => evs.filter((e) => e.stream_ids?.includes(open.id) || e.subscriptions?.some((s: any) => s.stream_id === open.id));
        const own = about(await eventsUntil(clients.member, mine, (evs) => about(evs).length >= 1));
        expect(own.map((e) => [e.op, e.subscriptions])).toEqual([['remove', [{ stream_id: open.id, name: open.name }]]]);
        const seen = about(await eventsUntil(clients.member2, peers, (evs) => about(evs).length >= 1));
        expect(seen.map((e) => [e.op, e.user_ids])).toEqual([['peer_remove', [ids.member]]]);
      });

      it("removes others only with the channel's permission, and a private channel leaves the removed user's sight", async () => {
        const secret = await channel('private-leaving', { invite_only: true, principals: [ids.admin, ids.member, ids.member2] });
        const watching = await register(clients.member, ['stream', 'subscription']);

        expectError(await unsubscribe(clients.member2, [secret.name], { principals: [ids.member] }), 'Insufficient permission');
        expectError(await unsubscribe(clients.member, ['no-such-channel']), 'Channel(s) (no-such-channel) do not exist');
        expectError(await unsubscribe(clients.guest, [secret.name]), `Channel(s) (${secret.name}) do not exist`);
        expectError(await unsubscribe(clients.member, [secret.name], { principals: [999999] }), 'No such user');
        expect((await clients.admin.get(`/streams/${secret.id}/members`)).body.subscribers).toHaveLength(3);

        const res = await unsubscribe(clients.admin, [secret.name], { principals: ['member@example.com'] });
        expect(res.body).toMatchObject({ removed: [secret.name], not_removed: [] });
        const about = (evs: any[]) => evs.filter((e) => e.stream_ids?.includes(secret.id) || e.subscriptions?.some((s: any) => s.stream_id === secret.id));
        const seen = about(await eventsUntil(clients.member, watching, (evs) => about(evs).length >= 2));
        expect(seen.map((e) => [e.type, e.op])).toEqual([
          ['subscription', 'remove'],
          ['stream', 'delete'],
        ]);
        expectError(await clients.member.get(`/streams/${secret.id}`), 'Invalid channel ID');
      });
    });

    describe('POST /users/me/subscriptions/properties', () => {
      it("changes the subscriber's own settings, told to them alone, and keeps them across leaving and coming back", async () => {
        const open = await channel('props', { principals: [ids.admin, ids.member] });
        const mine = await register(clients.member, ['subscription']);
        const others = await register(clients.admin, ['subscription']);
        const res = await properties(clients.member, [
          { stream_id: open.id, property: 'color', value: '#A1B2C3' },
          { stream_id: open.id, property: 'in_home_view', value: false },
          { stream_id: open.id, property: 'pin_to_top', value: true },
          { stream_id: open.id, property: 'desktop_notifications', value: true },
          { stream_id: open.id, property: 'wildcard_mentions_notify', value: false },
        ]);
        expect(res.body.result).toBe('success');
        expect(res.body.subscription_data).toHaveLength(5);
        const record = (await mySubscriptions(clients.member)).find((s) => s.stream_id === open.id);
        expect(record).toMatchObject({ color: '#a1b2c3', is_muted: true, in_home_view: false, pin_to_top: true, desktop_notifications: true, wildcard_mentions_notify: false });

        const updates = (evs: any[]) => evs.filter((e) => e.op === 'update' && e.stream_id === open.id);
        const seen = updates(await eventsUntil(clients.member, mine, (evs) => updates(evs).length >= 6));
        expect(seen.map((e) => [e.property, e.value])).toEqual([
          ['color', '#a1b2c3'],
          ['in_home_view', false],
          ['is_muted', true],
          ['pin_to_top', true],
          ['desktop_notifications', true],
          ['wildcard_mentions_notify', false],
        ]);
        expect(updates((await clients.admin.get('/events', { queue_id: others, last_event_id: -1, dont_block: true })).body.events)).toEqual([]);

        // Back to the default (null: follow the user's own setting), then leave and return.
        expect((await properties(clients.member, [{ stream_id: open.id, property: 'desktop_notifications', value: null }])).body.result).toBe('success');
        expect((await unsubscribe(clients.member, [open.name])).body.removed).toEqual([open.name]);
        expect((await subscribe(clients.member, [open.name])).body.subscribed).toEqual({ [String(ids.member)]: [open.name] });
        const back = (await mySubscriptions(clients.member)).find((s) => s.stream_id === open.id);
        expect(back).toMatchObject({ color: '#a1b2c3', is_muted: true, pin_to_top: true, desktop_notifications: null });
      });

      it('refuses unknown properties, bad values and channels the user is not subscribed to, changing nothing', async () => {
        const open = await channel('props-bad', { principals: [ids.admin, ids.member] });
        const elsewhere = await channel('props-elsewhere');
        const secret = await channel('props-secret', { invite_only: true });
        const before = (await mySubscriptions(clients.member)).find((s) => s.stream_id === open.id);
        const cases: [unknown[], string][] = [
          [[{ stream_id: open.id, property: 'volume', value: true }], 'Unknown subscription property: volume'],
          [[{ stream_id: open.id, property: 'color', value: 'red' }], 'color is not a valid hex color code'],
          [[{ stream_id: open.id, property: 'is_muted', value: 'yes' }], 'is_muted is not a boolean'],
          [[{ stream_id: open.id, property: 'pin_to_top', value: null }], 'pin_to_top is not a boolean'],
          [[{ stream_id: elsewhere.id, property: 'pin_to_top', value: true }], `Not subscribed to channel ID ${elsewhere.id}`],
          [[{ stream_id: 999999, property: 'pin_to_top', value: true }], 'Invalid channel ID'],
          [[{ stream_id: secret.id, property: 'pin_to_top', value: true }], 'Invalid channel ID'],
          // The valid first change is not made either.
          [[{ stream_id: open.id, property: 'pin_to_top', value: true }, { stream_id: elsewhere.id, property: 'color', value: '#000000' }], 'Not subscribed'],
        ];
        for (const [data, msg] of cases) expectError(await properties(clients.member, data), msg);
        expect((await mySubscriptions(clients.member)).find((s) => s.stream_id === open.id)).toEqual(before);
      });
    });

    describe('default channels', () => {
      it('administrators add and remove default channels, told to everyone but guests', async () => {
        const open = await channel('defaulted');
        const secret = await channel('default-secret', { invite_only: true });
        const watching = await register(clients.member, ['default_streams']);
        const guestQueue = await register(clients.guest, ['default_streams']);
        expectError(await clients.member.post('/default_streams', { stream_id: open.id }), 'Must be an organization administrator');
        expectError(await clients.admin.post('/default_streams', { stream_id: secret.id }), 'Private channels cannot be made default.');
        expectError(await clients.admin.post('/default_streams', { stream_id: 999999 }), 'Invalid channel ID');
        expect((await clients.member.get('/streams', { include_default: true })).body.streams.find((s: any) => s.stream_id === open.id).is_default).toBe(false);

        expect((await clients.admin.post('/default_streams', { stream_id: open.id })).body.result).toBe('success');
        const listed = await clients.member.get('/streams', { include_public: false, include_subscribed: false, include_default: true });
        expect(listed.body.streams.map((s: any) => s.stream_id)).toContain(open.id);
        expect((await clients.admin.request('DELETE', '/default_streams', { stream_id: open.id })).body.result).toBe('success');

        const seen = await eventsUntil(clients.member, watching, (evs) => evs.length >= 2);
        expect(seen.map((e) => e.default_streams.includes(open.id))).toEqual([true, false]);
        expect((await clients.guest.get('/events', { queue_id: guestQueue, last_event_id: -1, dont_block: true })).body.events).toEqual([]);
      });
    });

    describe('channel folders', () => {
      it('administrators create, rename and archive folders; channels join and leave them', async () => {
        const watching = await register(clients.member, ['channel_folder', 'stream']);
        const created = await clients.admin.post('/channel_folders/create', { name: 'Projects', description: 'Ongoing *work*' });
        expect(created.body.result).toBe('success');
        const folderId = created.body.channel_folder_id as number;
        const listed = (await clients.member.get('/channel_folders')).body.channel_folders;
        expect(listed.find((f: any) => f.id === folderId)).toMatchObject({
          name: 'Projects',
          description: 'Ongoing *work*',
          rendered_description: '<p>Ongoing <em>work</em></p>',
          creator_id: ids.admin,
          is_archived: false,
        });

        const open = await channel('foldered');
        expect((await patch(clients.admin, `/streams/${open.id}`, { folder_id: folderId })).body.result).toBe('success');
        expect((await clients.member.get(`/streams/${open.id}`)).body.stream.folder_id).toBe(folderId);
        const inFolder = await channel('born-in-folder', { folder_id: folderId });
        expect((await clients.member.get(`/streams/${inFolder.id}`)).body.stream.folder_id).toBe(folderId);

        expectError(await patch(clients.admin, `/channel_folders/${folderId}`, { is_archived: true }), 'remove all the channels from this folder');
        expect((await patch(clients.admin, `/streams/${open.id}`, { folder_id: null })).body.result).toBe('success');
        expect((await clients.admin.request('DELETE', `/streams/${inFolder.id}`)).body.result).toBe('success');
        expect((await patch(clients.admin, `/channel_folders/${folderId}`, { name: 'Done projects', is_archived: true })).body.result).toBe('success');
        expect((await clients.member.get('/channel_folders')).body.channel_folders.map((f: any) => f.id)).not.toContain(folderId);
        const archived = (await clients.member.get('/channel_folders', { include_archived: true })).body.channel_folders;
        expect(archived.find((f: any) => f.id === folderId)).toMatchObject({ name: 'Done projects', is_archived: true });
        expectError(await patch(clients.admin, `/streams/${open.id}`, { folder_id: folderId }), 'Invalid channel folder ID');

        const events = await eventsUntil(clients.member, watching, (evs) => evs.filter((e) => e.type === 'channel_folder').length >= 2);
        expect(events.filter((e) => e.type === 'channel_folder').map((e) => [e.op, e.data ?? e.channel_folder.name])).toEqual([
          ['add', 'Projects'],
          ['update', { name: 'Done projects', is_archived: true }],
        ]);
        expect(events.filter((e) => e.property === 'folder_id' && e.stream_id === open.id).map((e) => e.value)).toEqual([folderId, null]);
      });

      it('refuses bad folders and changes, changing nothing', async () => {
        const existing = (await clients.admin.post('/channel_folders/create', { name: 'Taken' })).body.channel_folder_id as number;
        const before = (await clients.admin.get('/channel_folders', { include_archived: true })).body.channel_folders;
        const cases: [Client, string, string, Record<string, unknown>, string][] = [
          [clients.member, 'POST', '/channel_folders/create', { name: 'Mine' }, 'Must be an organization administrator'],
          [clients.admin, 'POST', '/channel_folders/create', { name: '  ' }, "Channel folder name can't be empty."],
          [clients.admin, 'POST', '/channel_folders/create', { name: 'x'.repeat(61) }, 'Channel folder name too long'],
          [clients.admin, 'POST', '/channel_folders/create', { name: 'TAKEN' }, 'Channel folder name already in use'],
          [clients.admin, 'POST', '/channel_folders/create', { name: 'Long', description: 'x'.repeat(1025) }, 'Channel folder description too long'],
          [clients.member, 'PATCH', `/channel_folders/${existing}`, { name: 'Renamed' }, 'Must be an organization administrator'],
          [clients.admin, 'PATCH', '/channel_folders/999999', { name: 'Renamed' }, 'Invalid channel folder ID'],
          [clients.admin, 'PATCH', `/channel_folders/${existing}`, {}, 'No new data supplied'],
        ];
        for (const [client, method, path, params, msg] of cases) expectError(await client.request(method, path, params, { query: false }), msg);
        const open = await channel('folderless');
        expectError(await patch(clients.admin, `/streams/${open.id}`, { folder_id: 999999 }), 'Invalid channel folder ID');
        expectError(await subscribe(clients.admin, [unique('never')], { folder_id: 999999 }), 'Invalid channel folder ID');
        expect((await clients.admin.get('/channel_folders', { include_archived: true })).body.channel_folders).toEqual(before);
        expect((await clients.admin.get(`/streams/${open.id}`)).body.stream.folder_id).toBeNull();
      });
    });

    describe('GET /users/me/{stream_id}/topics', () => {
      it("lists a channel's topics newest first, the empty topic under its display name unless asked", async () => {
        const open = await channel('topical', { principals: [ids.admin, ids.member] });
        const send = (topic: string) => clients.admin.post('/messages', { type: 'stream', to: open.id, topic, content: 'hi' });
        const first = (await send('alpha')).body.id;
        const second = (await send('')).body.id;
        const third = (await send('Alpha')).body.id;
        const topics = await onceCaughtUp(() => clients.member.get(`/users/me/${open.id}/topics`), (r) => (r.body.topics ?? []).length < 2);
        expect(topics.body.topics).toEqual([
          { name: 'Alpha', max_id: third },
          { name: 'general chat', max_id: second },
        ]);
        expect(first).toBeLessThan(second);
        const raw = await clients.member.get(`/users/me/${open.id}/topics`, { allow_empty_topic_name: true });
        expect(raw.body.topics.map((t: any) => t.name)).toEqual(['Alpha', '']);

        const secret = await channel('topical-secret', { invite_only: true });
        expectError(await clients.member.get(`/users/me/${secret.id}/topics`), 'Invalid channel ID');
        expectError(await clients.member.get('/users/me/999999/topics'), 'Invalid channel ID');
        expectError(await clients.guest.get(`/users/me/${open.id}/topics`), 'Invalid channel ID');
      });
    });

    describe('authorization matrix', () => {
      type Kind = 'public' | 'private' | 'archived';
      interface Operation {
        name: string;
        run: (client: Client, target: { name: string; id: number }) => Promise<Reply>;
        /** Who is allowed, for each kind of channel. */
        allowed: Record<Kind, Role[]>;
      }
      const admins: Role[] = ['owner', 'admin'];
      const nonGuests: Role[] = ['owner', 'admin', 'moderator', 'member'];
      const OPERATIONS: Operation[] = [
        { name: 'view the channel', run: (c, t) => c.get(`/streams/${t.id}`), allowed: { public: nonGuests, private: admins, archived: nonGuests } },
        { name: 'list its subscribers', run: (c, t) => c.get(`/streams/${t.id}/members`), allowed: { public: nonGuests, private: admins, archived: nonGuests } },
        // The administrator is already subscribed to the private channel: only they may reach it.
        { name: 'subscribe oneself', run: (c, t) => subscribe(c, [t.name]), allowed: { public: nonGuests, private: ['admin'], archived: nonGuests } },
        { name: 'subscribe someone else', run: (c, t) => subscribe(c, [t.name], { principals: [ids.member2] }), allowed: { public: nonGuests, private: ['admin'], archived: nonGuests } },
        { name: 'unsubscribe someone else', run: (c, t) => unsubscribe(c, [t.name], { principals: [ids.admin] }), allowed: { public: admins, private: admins, archived: admins } },
        { name: 'change the description', run: (c, t) => patch(c, `/streams/${t.id}`, { description: `by ${c.email}` }), allowed: { public: admins, private: admins, archived: admins } },
        {
          name: 'change a group-setting',
          run: (c, t) => patch(c, `/streams/${t.id}`, { can_remove_subscribers_group: { new: 5 } }),
          allowed: { public: admins, private: ['admin'], archived: admins },
        },
        { name: 'archive it', run: (c, t) => c.request('DELETE', `/streams/${t.id}`), allowed: { public: admins, private: admins, archived: [] } },
        { name: 'make it a default channel', run: (c, t) => c.post('/default_streams', { stream_id: t.id }), allowed: { public: admins, private: [], archived: [] } },
        { name: 'list its topics', run: (c, t) => c.get(`/users/me/${t.id}/topics`), allowed: { public: nonGuests, private: ['admin'], archived: nonGuests } },
      ];

      for (const operation of OPERATIONS) {
        it(`${operation.name}: allowed or refused for each role and kind of channel`, async () => {
          const outcomes: string[] = [];
          const expected: string[] = [];
          for (const kind of ['public', 'private', 'archived'] as Kind[]) {
            for (const role of ROLES) {
              // A fresh channel for each attempt: the administrator created it and is its only subscriber.
              const target = await channel(`matrix-${kind}`, { invite_only: kind === 'private' });
              if (kind === 'archived') expect((await clients.admin.request('DELETE', `/streams/${target.id}`)).body.result).toBe('success');
              const before = (await clients.admin.get(`/streams/${target.id}`)).body.stream;
              const res = await operation.run(clients[role], target);
              const allowed = operation.allowed[kind].includes(role);
              // authorization_errors_fatal makes a subscription refusal an error too.
              outcomes.push(`${kind} ${role}: ${res.body.result === 'success' ? 'allowed' : 'refused'}`);
              expected.push(`${kind} ${role}: ${allowed ? 'allowed' : 'refused'}`);
              if (!allowed) {
                expect({ kind, role, status: res.status, code: res.body.code }).toEqual({ kind, role, status: 400, code: 'BAD_REQUEST' });
                expect({ kind, role, after: (await clients.admin.get(`/streams/${target.id}`)).body.stream }).toEqual({ kind, role, after: before });
              }
            }
          }
          expect(outcomes).toEqual(expected);
        }, 60_000);
      }
    });
  });
}
