/**
 * The HTTP suite for muted users (issue 37 item 6): POST and DELETE
 * /users/me/muted_users/{muted_user_id}, the `muted_users` event and register section, and
 * a mute's effect as Zulip's — the muted user's messages reach the muter already read (so
 * they never count in unread_msgs), earlier unread ones are marked read when muting, and
 * GET /messages still returns them. Every refusal is checked to have stored nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT } from '@teamchat/contracts';
import { Client, type RunningServer } from './harness';
import { authorizationMatrix, del, eventsUntil, expectRefusedUnchanged, suiteServer, type Reply } from './suite-kit';

type Who = 'owner' | 'admin' | 'moderator' | 'member' | 'guest' | 'bot';
const ROLES: Who[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

export function mutedUsersSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`muted users (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'bot']);
    const { clients, ids } = suite;
    let member: Client;
    let member2: Client;

    beforeAll(() => {
      ({ member, member2 } = clients);
    });

    const mute = (client: Client, id: number) => client.post(`/users/me/muted_users/${id}`);
    const unmute = (client: Client, id: number) => del(client, `/users/me/muted_users/${id}`);
    const mutedOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['muted_users'] })).body.muted_users as { id: number; timestamp: number }[];
    const unreadOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
    const unreadIds = (unread: any): number[] => [
      ...unread.streams.flatMap((s: any) => s.unread_message_ids),
      ...unread.pms.flatMap((p: any) => p.unread_message_ids),
      ...unread.huddles.flatMap((h: any) => h.unread_message_ids),
    ];

    it('mutes and unmutes, with the whole list (ids and times) in muted_users events to the muter only', async () => {
      const mine = (await member.post('/register', { event_types: ['muted_users'] })).body;
      const theirs = (await member2.post('/register', { event_types: ['muted_users'] })).body;
      expect(mine.muted_users).toEqual([]);
      const before = Math.floor(Date.now() / 1000);
      expect((await mute(member, ids.admin)).body.result).toBe('success');
      expect((await mute(member, ids.guest)).body.result).toBe('success');
      expect((await unmute(member, ids.admin)).body.result).toBe('success');
      const events = await eventsUntil(member, mine.queue_id, (e) => e.length >= 3);
      expect(events.map((e) => e.muted_users.map((m: any) => m.id))).toEqual([[ids.admin], [ids.admin, ids.guest], [ids.guest]]);
      for (const e of events) {
        expect(e.type).toBe('muted_users');
        for (const m of e.muted_users) expect(m.timestamp).toBeGreaterThanOrEqual(before);
      }
      const listed = await mutedOf(member);
      expect(listed).toEqual(events.at(-1)!.muted_users);
      expect(await eventsUntil(member2, theirs.queue_id, () => false, { ms: 300 })).toEqual([]);
      expect(await mutedOf(member2)).toEqual([]);
      await unmute(member, ids.guest);
    });

    it("delivers a muted sender's new messages already read, out of unread_msgs, and still in GET /messages", async () => {
      expect((await mute(member, ids.member2)).body.result).toBe('success');
      const q = (await member.post('/register', { event_types: ['message'] })).body.queue_id;
      const inChannel = (await member2.post('/messages', { type: 'stream', to: 'general', topic: 'muted', content: `hello @**${'Member'}**` })).body.id;
      const direct = (await member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: 'psst' })).body.id;
      // Someone not muted still reaches the member unread.
      const other = (await clients.admin.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: 'not muted' })).body.id;
      const events = await eventsUntil(member, q, (e) => e.length >= 3);
      const flagsOf = (id: number) => events.find((e) => e.message.id === id)!.flags as string[];
      expect(flagsOf(inChannel)).toContain('read');
      expect(flagsOf(direct)).toContain('read');
      expect(flagsOf(other)).not.toContain('read');
      // Others' copies are not affected by the member's mute.
      const admins = (await clients.admin.get('/messages', { anchor: inChannel, num_before: 0, num_after: 0, narrow: JSON.stringify([]) })).body.messages[0];
      expect(admins.flags).not.toContain('read');

      const unread = unreadIds(await unreadOf(member));
      expect(unread).not.toContain(inChannel);
      expect(unread).not.toContain(direct);
      expect(unread).toContain(other);
      const fetched = (await member.get('/messages', { anchor: direct, num_before: 1, num_after: 0, narrow: JSON.stringify([]) })).body.messages;
      expect(fetched.map((m: any) => m.id)).toEqual(expect.arrayContaining([direct]));
      expect(fetched.find((m: any) => m.id === direct).flags).toContain('read');
      await unmute(member, ids.member2);
      await member.post('/messages/flags', { messages: JSON.stringify([other]), op: 'add', flag: 'read' });
    });

    it("marks the muted user's earlier unread messages read when muting, announcing the flags", async () => {
      const earlier = (await member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: 'before the mute' })).body.id;
      expect(unreadIds(await unreadOf(member))).toContain(earlier);
      const q = (await member.post('/register', { event_types: ['update_message_flags', 'muted_users'] })).body.queue_id;
      expect((await mute(member, ids.member2)).body.result).toBe('success');
      const events = await eventsUntil(member, q, (e) => e.length >= 2);
      expect(events.map((e) => e.type)).toEqual(['muted_users', 'update_message_flags']);
      expect(events[1]).toMatchObject({ op: 'add', flag: 'read', messages: [earlier] });
      expect(unreadIds(await unreadOf(member))).not.toContain(earlier);
      // Unmuting leaves them read; new messages arrive unread again.
      expect((await unmute(member, ids.member2)).body.result).toBe('success');
      expect(unreadIds(await unreadOf(member))).not.toContain(earlier);
      const later = (await member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: 'after the unmute' })).body.id;
      expect(unreadIds(await unreadOf(member))).toContain(later);
      await member.post('/messages/flags', { messages: JSON.stringify([later]), op: 'add', flag: 'read' });
    });

    it('mutes bots, deactivated users and system bots, as Zulip allows', async () => {
      const { user_id: botId } = (await member.post('/bots', { full_name: 'Muted Bot', short_name: `muted-${Date.now() % 100000}` })).body;
      expect((await mute(member2, botId)).body.result).toBe('success');
      expect((await del(member, `/bots/${botId}`)).body.result).toBe('success');
      expect((await unmute(member2, botId)).body.result).toBe('success');
      // Deactivated now: still one that may be muted.
      expect((await mute(member2, botId)).body.result).toBe('success');
      expect((await mute(member2, NOTIFICATION_BOT.user_id)).body.result).toBe('success');
      expect((await mutedOf(member2)).map((m) => m.id)).toEqual([botId, NOTIFICATION_BOT.user_id]);
      await unmute(member2, botId);
      await unmute(member2, NOTIFICATION_BOT.user_id);
    });

    it('refuses bad requests with a clear error and stores nothing', async () => {
      await mute(member, ids.admin);
      const state = () => mutedOf(member);
      await expectRefusedUnchanged(() => mute(member, ids.member), { msg: 'Cannot mute self' }, state);
      await expectRefusedUnchanged(() => mute(member, 999_999), { msg: 'No such user' }, state);
      await expectRefusedUnchanged(() => mute(member, ids.admin), { msg: 'User already muted' }, state);
      await expectRefusedUnchanged(() => unmute(member, ids.guest), { msg: 'User is not muted' }, state);
      await expectRefusedUnchanged(() => unmute(member, 999_999), { msg: 'No such user' }, state);
      await expectRefusedUnchanged(() => unmute(member, ids.member), { msg: 'User is not muted' }, state);
      // Not a user id at all: refused by the contract.
      await expectRefusedUnchanged(() => member.post('/users/me/muted_users/someone'), {}, state);
      await expectRefusedUnchanged(() => member.post('/users/me/muted_users/1.5'), {}, state);
      await unmute(member, ids.admin);
    });

    describe('authorization: every kind of user may mute and unmute', () => {
      const target = () => ids.member2;
      const matrix: [string, (who: Who) => Promise<Reply>, Who[]][] = [
        ['mute a user', (who) => mute(clients[who], target()), ROLES],
        ['unmute a user', (who) => unmute(clients[who], target()), ROLES],
      ];
      authorizationMatrix(matrix, ROLES);
    });
  });
}
