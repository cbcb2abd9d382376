/**
 * The HTTP suite for what clients send constantly and nobody stores: typing
 * notifications (POST /typing, POST /messages/{id}/typing) and presence
 * (POST /users/me/presence, GET /users/{id}/presence, GET /realm/presence), run against
 * every mode. Refused requests are checked to deliver nothing and change nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil as pollUntil, suiteServer } from './suite-kit';

export function ephemeralSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`typing and presence (${mode})`, () => {
    const suite = suiteServer(start, ['admin', 'member', 'member2', 'guest', 'bot']);
    const ids: Record<string, number> = suite.ids;
    let admin: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    let bot: Client;
    let general: number;
    let engineering: number;
    let leadership: number;

    beforeAll(async () => {
      ({ admin, member, member2, guest, bot } = suite.clients);
      general = await channelIdOf(member, 'general');
      engineering = await channelIdOf(member, 'engineering');
      leadership = await channelIdOf(admin, 'leadership');
    });

    /** A channel's id, from a message the client sends there. */
    async function channelIdOf(client: Client, name: string): Promise<number> {
      const sent = await client.post('/messages', { type: 'stream', to: name, topic: 'ids', content: 'hi' });
      return (await client.get(`/messages/${sent.body.id}`)).body.message.stream_id;
    }

    const register = async (client: Client, params: Record<string, unknown>) => (await client.post('/register', params)).body.queue_id as string;

    /** Events of a queue once `done` holds for them (delivery crosses the bus a moment after the reply). */
    const eventsUntil = (client: Client, queue_id: string, done: (events: any[]) => boolean) => pollUntil(client, queue_id, done, { pauseMs: 25 });

    const typingTo = (client: Client, to: unknown, op = 'start') => client.post('/typing', { type: 'direct', op, to });
    const who = (name: string) => ({ user_id: ids[name], email: `${name}@example.com` });

    describe('POST /typing', () => {
      it('tells every participant of a direct conversation, the sender too', async () => {
        const [theirs, mine] = await Promise.all([register(member2, { event_types: ['typing'] }), register(member, { event_types: ['typing'] })]);
        const res = await typingTo(member, [ids.member2]);
        expect(res.body).toEqual({ result: 'success', msg: '' });
        const expected = {
          type: 'typing',
          op: 'start',
          message_type: 'direct',
          sender: who('member'),
          recipients: [who('member'), who('member2')].sort((a, b) => a.user_id! - b.user_id!),
        };
        expect(await eventsUntil(member2, theirs, (e) => e.length > 0)).toEqual([{ ...expected, id: expect.any(Number) }]);
        expect(await eventsUntil(member, mine, (e) => e.length > 0)).toEqual([{ ...expected, id: expect.any(Number) }]);

        expect((await typingTo(member, JSON.stringify([ids.member2]), 'stop')).body.result).toBe('success');
        const events = await eventsUntil(member2, theirs, (e) => e.length > 1);
        expect(events[1]).toMatchObject({ type: 'typing', op: 'stop', message_type: 'direct' });
      });

      it('leaves out a participant who turned receives_typing_notifications off, until they turn it on again', async () => {
        const setting = async (value: boolean) => {
          const changed = await member2.request('PATCH', '/settings', { receives_typing_notifications: value }, { query: false });
          // A read of member2's at messaging waits (read-your-writes) until messaging has seen the change.
          await member2.get('/messages', { anchor: 'newest', num_before: 0, num_after: 0 });
          return changed;
        };
        expect((await setting(false)).body.result).toBe('success');
        try {
          const [theirs, mine] = await Promise.all([register(member2, { event_types: ['typing'] }), register(member, { event_types: ['typing'] })]);
          expect((await typingTo(member, [ids.member2])).body.result).toBe('success');
          // The sender hears it (so the notice went out), the participant who opted out does not.
          expect(await eventsUntil(member, mine, (e) => e.length > 0)).toHaveLength(1);
          expect(await eventsUntil(member2, theirs, (e) => e.length > 0)).toEqual([]);
          expect((await setting(true)).body.result).toBe('success');
          await typingTo(member, [ids.member2], 'stop');
          expect((await eventsUntil(member2, theirs, (e) => e.length > 0))[0]).toMatchObject({ type: 'typing', op: 'stop', sender: who('member') });
        } finally {
          await setting(true);
        }
      });

      it('tells a channel’s subscribers, only on queues that declared stream_typing_notifications', async () => {
        const capable = await register(member2, { event_types: ['typing'], client_capabilities: { stream_typing_notifications: true } });
        const legacy = await register(member2, { event_types: ['typing'] });
        const unfiltered = await register(member2, { client_capabilities: { stream_typing_notifications: true } });
        const res = await member.post('/typing', { type: 'stream', op: 'start', stream_id: general, topic: 'lunch' });
        expect(res.body.result).toBe('success');
        const expected = { type: 'typing', op: 'start', message_type: 'stream', sender: who('member'), stream_id: general, topic: 'lunch' };
        expect(await eventsUntil(member2, capable, (e) => e.length > 0)).toEqual([{ ...expected, id: expect.any(Number) }]);
        expect((await eventsUntil(member2, unfiltered, (e) => e.length > 0)).filter((e) => e.type === 'typing')).toEqual([{ ...expected, id: expect.any(Number) }]);
        // `channel` is the modern name of the type; a direct notice afterwards shows the legacy queue got nothing before it.
        expect((await member.post('/typing', { type: 'channel', op: 'stop', stream_id: general, topic: 'lunch' })).body.result).toBe('success');
        await typingTo(member, [ids.member2]);
        const seen = await eventsUntil(member2, legacy, (e) => e.length > 0);
        expect(seen.map((e) => e.message_type)).toEqual(['direct']);
        expect((await eventsUntil(member2, capable, (e) => e.length > 2)).map((e) => [e.message_type, e.op])).toEqual([
          ['stream', 'start'],
          ['stream', 'stop'],
          ['direct', 'start'],
        ]);
      });

      it('refuses whom the sender may not reach and malformed requests, delivering nothing', async () => {
        const watching = await register(member2, { event_types: ['typing'], client_capabilities: { stream_typing_notifications: true } });
        const refusals: [Client, Record<string, unknown>, RegExp][] = [
          [member, { op: 'start', to: JSON.stringify([ids.member2, 99999]) }, /Invalid user ID 99999/],
          [member, { op: 'start', to: '[]' }, /Empty 'to' list/],
          [member, { op: 'start' }, /Missing 'to' argument/],
          [member, { op: 'start', to: 'member2@example.com' }, /to/],
          [member, { op: 'start', to: '[1, "x"]' }, /to/],
          [member, { op: 'start', to: '{"a":1}' }, /to/],
          [member, { op: 'begin', to: JSON.stringify([ids.member2]) }, /op/],
          [member, { to: JSON.stringify([ids.member2]) }, /op/],
          [member, { type: 'huddle', op: 'start', to: JSON.stringify([ids.member2]) }, /type/],
          [member, { type: 'stream', op: 'start', topic: 'x' }, /Missing stream_id/],
          [member, { type: 'stream', op: 'start', stream_id: general }, /Missing topic/],
          [member, { type: 'stream', op: 'start', stream_id: 99999, topic: 'x' }, /Invalid channel ID/],
          [member, { type: 'stream', op: 'start', stream_id: 'general', topic: 'x' }, /stream_id/],
          [member, { type: 'stream', op: 'start', stream_id: leadership, topic: 'x' }, /Invalid channel ID/],
          [guest, { type: 'stream', op: 'start', stream_id: engineering, topic: 'x' }, /Not authorized/],
          [member, { type: 'stream', op: 'start', stream_id: general, topic: 'a\u0000b' }, /null bytes/],
        ];
        for (const [client, params, msg] of refusals) {
          const res = await client.post('/typing', params);
          expect({ params, status: res.status, result: res.body.result, code: res.body.code }).toEqual({ params, status: 400, result: 'error', code: 'BAD_REQUEST' });
          expect(res.body.msg).toMatch(msg);
        }
        await typingTo(member, [ids.member2], 'stop');
        const seen = await eventsUntil(member2, watching, (e) => e.length > 0);
        expect(seen.map((e) => [e.message_type, e.op])).toEqual([['direct', 'stop']]);
      });

      it('refuses an archived channel', async () => {
        await admin.post('/users/me/subscriptions', { subscriptions: [{ name: 'typing-archived' }], principals: [ids.admin, ids.member] });
        const channelId = await channelIdOf(admin, 'typing-archived');
        expect((await admin.request('DELETE', `/streams/${channelId}`)).body.result).toBe('success');
        // Read-your-writes holds per client: messaging learns of the administrator's archiving a moment later.
        const deadline = Date.now() + 5000;
        let res = await member.post('/typing', { type: 'stream', op: 'start', stream_id: channelId, topic: 'x' });
        while (res.body.result === 'success' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          res = await member.post('/typing', { type: 'stream', op: 'start', stream_id: channelId, topic: 'x' });
        }
        expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        expect(res.body.msg).toMatch(/Not authorized/);
      });
    });

    describe('POST /messages/{id}/typing', () => {
      it('tells a channel message’s subscribers and a direct message’s participants that its sender is editing', async () => {
        const watching = await register(member2, { event_types: ['typing_edit_message'] });
        const inChannel = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'edits', content: 'draft' })).body.id;
        const direct = (await member.post('/messages', { type: 'direct', to: JSON.stringify([ids.member2]), content: 'psst' })).body.id;
        expect((await member.post(`/messages/${inChannel}/typing`, { op: 'start' })).body).toEqual({ result: 'success', msg: '' });
        expect((await member.post(`/messages/${direct}/typing`, { op: 'stop' })).body.result).toBe('success');
        const events = await eventsUntil(member2, watching, (e) => e.length > 1);
        expect(events).toEqual([
          {
            type: 'typing_edit_message',
            op: 'start',
            sender_id: ids.member,
            message_id: inChannel,
            recipient: { type: 'channel', channel_id: general, topic: 'edits' },
            id: expect.any(Number),
          },
          {
            type: 'typing_edit_message',
            op: 'stop',
            sender_id: ids.member,
            message_id: direct,
            recipient: { type: 'direct', user_ids: [ids.member, ids.member2].sort((a, b) => a! - b!) },
            id: expect.any(Number),
          },
        ]);
      });

      it('refuses messages the caller did not send or cannot see, and unknown ops, delivering nothing', async () => {
        const watching = await register(member, { event_types: ['typing_edit_message'] });
        const mine = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'edits', content: 'mine' })).body.id;
        const secret = (await admin.post('/messages', { type: 'stream', to: 'leadership', topic: 'x', content: 'secret' })).body.id;
        const refusals: [Client, string, Record<string, unknown>, RegExp][] = [
          [member2, `/messages/${mine}/typing`, { op: 'start' }, /permission/],
          [member, `/messages/${secret}/typing`, { op: 'start' }, /Invalid message/],
          [member, '/messages/99999999/typing', { op: 'start' }, /Invalid message/],
          [member, `/messages/${mine}/typing`, { op: 'pause' }, /op/],
        ];
        for (const [client, path, params, msg] of refusals) {
          // Another user's message reaches messaging's read model a moment after it was acknowledged.
          const deadline = Date.now() + 5000;
          let res = await client.post(path, params);
          while (client !== member && /Invalid message/.test(res.body.msg) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 25));
            res = await client.post(path, params);
          }
          expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'BAD_REQUEST' });
          expect(res.body.msg).toMatch(msg);
        }
        await member.post(`/messages/${mine}/typing`, { op: 'stop' });
        const seen = await eventsUntil(member, watching, (e) => e.length > 0);
        expect(seen.map((e) => [e.message_id, e.op])).toEqual([[mine, 'stop']]);
      });
    });

    describe('presence', () => {
      it('records a report, answers with everyone’s presence and tells the others once', async () => {
        const [legacyQueue, simpleQueue, ownQueue] = await Promise.all([
          register(member2, { event_types: ['presence'] }),
          register(admin, { event_types: ['presence'], client_capabilities: { simplified_presence_events: true } }),
          register(member, { event_types: ['presence'] }),
        ]);
        const res = await member.post('/users/me/presence', { status: 'active', new_user_input: true });
        expect(res.body).toMatchObject({ result: 'success', msg: '', presence_last_update_id: expect.any(Number), server_timestamp: expect.any(Number) });
        const mine = res.body.presences['member@example.com'];
        expect(mine.aggregated).toEqual({ client: expect.any(String), status: 'active', timestamp: expect.any(Number) });
        const client = mine.aggregated.client as string;
        expect(mine[client]).toEqual({ client, status: 'active', timestamp: mine.aggregated.timestamp, pushable: false });

        const [legacy] = await eventsUntil(member2, legacyQueue, (e) => e.length > 0);
        expect(legacy).toEqual({
          type: 'presence',
          user_id: ids.member,
          email: 'member@example.com',
          server_timestamp: expect.any(Number),
          presence: { [client]: { client, status: 'active', timestamp: mine.aggregated.timestamp, pushable: false } },
          id: expect.any(Number),
        });
        const [simple] = await eventsUntil(admin, simpleQueue, (e) => e.length > 0);
        expect(simple).toEqual({
          type: 'presence',
          presences: { [String(ids.member)]: { active_timestamp: mine.aggregated.timestamp, idle_timestamp: mine.aggregated.timestamp } },
          id: expect.any(Number),
        });

        // A ping that changes nothing is not announced; nor is one's own presence to oneself.
        expect((await member.post('/users/me/presence', { status: 'active', ping_only: true })).body).toEqual({ result: 'success', msg: '' });
        await member2.post('/users/me/presence', { status: 'active', ping_only: 'true' });
        const own = await eventsUntil(member, ownQueue, (e) => e.length > 0);
        expect(own.map((e) => e.user_id)).toEqual([ids.member2]);
        expect((await member2.get('/events', { queue_id: legacyQueue, last_event_id: legacy.id, dont_block: true })).body.events).toEqual([]);
      });

      it('answers in the modern format for slim_presence, and only what changed after last_update_id', async () => {
        await member.post('/users/me/presence', { status: 'active' });
        const slim = await member.post('/users/me/presence', { status: 'idle', slim_presence: true });
        const entry = slim.body.presences[String(ids.member)];
        expect(entry).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
        expect(Object.keys(slim.body.presences).every((k) => /^\d+$/.test(k))).toBe(true);

        const since = slim.body.presence_last_update_id;
        const unchanged = await member.post('/users/me/presence', { status: 'idle', last_update_id: since });
        expect(unchanged.body.presence_last_update_id).toBeGreaterThanOrEqual(since);
        expect(unchanged.body.presences[String(ids.member2)]).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await member2.post('/users/me/presence', { status: 'active', ping_only: true });
        const changed = await member.post('/users/me/presence', { status: 'idle', last_update_id: since });
        expect(Object.keys(changed.body.presences)).toContain(String(ids.member2));
        expect(changed.body.presence_last_update_id).toBeGreaterThan(since);

        const realm = await guest.get('/realm/presence');
        expect(realm.body).toMatchObject({ result: 'success', server_timestamp: expect.any(Number) });
        expect(Object.keys(realm.body.presences)).toEqual(expect.arrayContaining(['member@example.com', 'member2@example.com']));
        expect(realm.body.presences['member2@example.com'].aggregated.status).toBe('active');
      });

      it('GET /users/{id or email}/presence answers with one user’s presence', async () => {
        await member2.post('/users/me/presence', { status: 'active', ping_only: true });
        const byId = await guest.get(`/users/${ids.member2}/presence`);
        expect(byId.body.result).toBe('success');
        expect(byId.body.presence.aggregated).toEqual({ status: 'active', timestamp: expect.any(Number) });
        for (const [key, value] of Object.entries(byId.body.presence as Record<string, object>)) {
          expect({ key, value }).toEqual({ key, value: { status: expect.any(String), timestamp: expect.any(Number) } });
        }
        const byEmail = await guest.get(`/users/${encodeURIComponent('MEMBER2@example.com')}/presence`);
        expect(byEmail.body.presence).toEqual(byId.body.presence);
      });

      it('refuses invalid statuses, bots and unknown users, changing nothing', async () => {
        const watching = await register(member2, { event_types: ['presence'] });
        const before = (await guest.get('/realm/presence')).body;
        const refusals: [Client, string, string, Record<string, unknown>, RegExp][] = [
          [guest, 'POST', '/users/me/presence', { status: 'away' }, /Invalid status: away/],
          [guest, 'POST', '/users/me/presence', {}, /status/],
          [guest, 'POST', '/users/me/presence', { status: 'active', last_update_id: 'x' }, /last_update_id/],
          [bot, 'POST', '/users/me/presence', { status: 'active' }, /bot/],
          [member, 'GET', '/users/99999/presence', {}, /No such user/],
          [member, 'GET', '/users/nobody@example.com/presence', {}, /No such user/],
          [member, 'GET', '/users/echo-bot@example.com/presence', {}, /not supported for bot users/],
          [member, 'GET', `/users/${ids.guest}/presence`, {}, /No presence data/],
        ];
        for (const [client, method, path, params, msg] of refusals) {
          const res = await client.request(method, path, params);
          expect({ path, params, status: res.status, code: res.body.code }).toEqual({ path, params, status: 400, code: 'BAD_REQUEST' });
          expect(res.body.msg).toMatch(msg);
        }
        const after = (await guest.get('/realm/presence')).body;
        expect(after.presences).toEqual(before.presences);
        expect(after.presence_last_update_id).toBe(before.presence_last_update_id);
        expect(after.presences['guest@example.com']).toBeUndefined();
        expect((await member2.get('/events', { queue_id: watching, last_event_id: -1, dont_block: true })).body.events).toEqual([]);
      });
    });
  });
}
