/**
 * Message reports and channel folder order, run against every mode: the moderation-request
 * channel setting (PATCH /realm, register, realm events), POST /messages/{id}/report for
 * every role with its refusals (each leaving the channel without a new message), and PATCH
 * /channel_folders with its refusals.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT } from '@teamchat/contracts';
import type { Client, RunningServer } from './harness';
import { authorizationMatrix, eventsUntil, expectRefused, expectRefusedUnchanged, patch, subscribe, suiteServer } from './suite-kit';

const ROLES = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
type Role = (typeof ROLES)[number];

export function moderationSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`message reports and channel folder order (${mode})`, () => {
    const { clients: c, ids } = suiteServer(start, [...ROLES, 'member2']);
    let moderationId: number;
    let publicId: number;

    const reportsIn = async (client: Client) =>
      (await client.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, narrow: [{ operator: 'channel', operand: moderationId }] })).body.messages as any[];
    const dmTo = async (from: Client, to: number, content: string) => (await from.post('/messages', { type: 'direct', to: JSON.stringify([to]), content })).body.id as number;
    const report = (client: Client, message_id: number, params: Record<string, unknown>) => client.post(`/messages/${message_id}/report`, params);
    const setChannel = (client: Client, id: number) => patch(client, '/realm', { moderation_request_channel_id: id });

    beforeAll(async () => {
      expect((await subscribe(c.admin, ['moderators'], { invite_only: true })).body.result).toBe('success');
      expect((await subscribe(c.admin, ['open-plaza'])).body.result).toBe('success');
      const streams = (await c.admin.get('/streams')).body.streams as { name: string; stream_id: number }[];
      moderationId = streams.find((s) => s.name === 'moderators')!.stream_id;
      publicId = streams.find((s) => s.name === 'open-plaza')!.stream_id;
    });

    it('starts with reporting off (-1 in register) and refuses a report then', async () => {
      const state = (await c.member.post('/register', { fetch_event_types: ['realm'] })).body;
      expect(state.realm_moderation_request_channel_id).toBe(-1);
      const id = await dmTo(c.member2, ids.member, 'rude words');
      expectRefused(await report(c.member, id, { report_type: 'spam' }), { msg: 'Message reporting is not enabled in this organization.' });
    });

    it('takes a private channel from an administrator, refuses a public or unknown one, and tells every user', async () => {
      const queue = (await c.guest.post('/register', { event_types: ['realm'] })).body.queue_id as string;
      const setting = async () => (await c.admin.post('/register', { fetch_event_types: ['realm'] })).body.realm_moderation_request_channel_id;
      await expectRefusedUnchanged(() => setChannel(c.admin, publicId), { msg: 'Moderation request channel must be private.' }, setting);
      await expectRefusedUnchanged(() => setChannel(c.admin, 999_999), { msg: 'Invalid channel ID' }, setting);
      await expectRefusedUnchanged(() => setChannel(c.admin, -5), { msg: /Invalid moderation_request_channel_id/ }, setting);
      await expectRefusedUnchanged(() => setChannel(c.admin, 'x' as unknown as number), {}, setting);
      expect((await setChannel(c.admin, moderationId)).body.result).toBe('success');
      expect(await setting()).toBe(moderationId);
      const events = await eventsUntil(c.guest, queue, (e) => e.length >= 1);
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'realm', op: 'update', property: 'moderation_request_channel_id', value: moderationId }]);
    });

    it("posts the notification bot's report in '<sender> moderation', quoting the message with its link, to the channel's subscribers", async () => {
      const queue = (await c.admin.post('/register', { event_types: ['message'] })).body.queue_id as string;
      const id = (await c.member2.post('/messages', { type: 'stream', to: publicId, topic: 'deals', content: 'buy **cheap** pills' })).body.id as number;
      expect((await report(c.member, id, { report_type: 'other', description: 'Selling things here.' })).body.result).toBe('success');
      const last = (await reportsIn(c.admin)).at(-1);
      const senderName = (await c.member2.get('/users/me')).body.full_name as string;
      expect(last).toMatchObject({ sender_id: NOTIFICATION_BOT.user_id, display_recipient: 'moderators', subject: `${senderName} moderation` });
      expect(last.content).toContain(`data-user-id="${ids.member}"`);
      expect(last.content).toContain(`data-user-id="${ids.member2}"`);
      expect(last.content).toContain('<strong>Other reason</strong>. Selling things here.');
      expect(last.content).toContain('spoiler');
      expect(last.content).toContain(`/near/${id}`);
      expect(last.content).toContain('<strong>cheap</strong> pills');
      expect(last.flags).not.toContain('mentioned');
      const reports = (events: any[]) => events.filter((e) => e.type === 'message' && e.message.display_recipient === 'moderators');
      const events = await eventsUntil(c.admin, queue, (e) => reports(e).length > 0);
      expect(reports(events).map((e) => e.message.id)).toEqual([last.id]);
      // The reporter is no subscriber: the report is not theirs to read.
      expectRefused(await c.member.get(`/messages/${last.id}`), { msg: 'Invalid message(s)' });
    });

    it('refuses bad reports, storing nothing', async () => {
      const mine = await dmTo(c.member, ids.member2, 'my own words');
      const theirs = await dmTo(c.member2, ids.member, 'their words');
      const hidden = await dmTo(c.member2, ids.admin, 'between them');
      const count = async () => (await reportsIn(c.admin)).length;
      const cases: [number, Record<string, unknown>, string | RegExp][] = [
        [theirs, { report_type: 'boring' }, 'Invalid report_type'],
        [theirs, { report_type: 'spam', description: 'x'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
        [theirs, { report_type: 'other' }, 'An explanation is required.'],
        [theirs, { report_type: 'other', description: '   ' }, 'An explanation is required.'],
        [mine, { report_type: 'spam' }, 'You cannot report your own message.'],
        [hidden, { report_type: 'spam' }, 'Invalid message(s)'],
        [99_999_999, { report_type: 'spam' }, 'Invalid message(s)'],
        [theirs, {}, /report_type/],
      ];
      for (const [id, params, msg] of cases) await expectRefusedUnchanged(() => report(c.member, id, params), { msg }, count);
    });

    it('refuses a report once the channel is unset again', async () => {
      const id = await dmTo(c.member2, ids.member, 'again');
      expect((await setChannel(c.owner, -1)).body.result).toBe('success');
      expectRefused(await report(c.member, id, { report_type: 'norms' }), { msg: 'Message reporting is not enabled in this organization.' });
      expect((await setChannel(c.owner, moderationId)).body.result).toBe('success');
    });

    describe('who may', () => {
      const folderIds = async () => ((await c.owner.get('/channel_folders', { include_archived: true })).body.channel_folders as { id: number; order: number }[]).map((f) => f.id);
      authorizationMatrix<Role>(
        [
          // Anyone who can see a message may report it.
          ['report a message', async (who) => report(c[who], await dmTo(c.member2, ids[who], `for ${who}`), { report_type: 'harassment' }), ROLES],
          ['set the moderation-request channel', (who) => setChannel(c[who], moderationId), ['owner', 'admin']],
          ['reorder channel folders', async (who) => patch(c[who], '/channel_folders', { order: JSON.stringify((await folderIds()).reverse()) }), ['owner', 'admin']],
        ],
        ROLES,
      );
    });

    it('reorders every folder for an administrator: the order in register and a reorder event to every user', async () => {
      for (const name of ['alpha', 'beta', 'gamma']) await c.admin.post('/channel_folders/create', { name: `${name}-${mode}`, description: '' });
      const all = ((await c.admin.get('/channel_folders', { include_archived: true })).body.channel_folders as { id: number }[]).map((f) => f.id);
      const queue = (await c.guest.post('/register', { event_types: ['channel_folder'] })).body.queue_id as string;
      const wanted = [...all].reverse();
      expect((await patch(c.admin, '/channel_folders', { order: JSON.stringify(wanted) })).body.result).toBe('success');
      const state = (await c.guest.post('/register', { fetch_event_types: ['channel_folder'] })).body.channel_folders as { id: number; order: number }[];
      expect(state.map((f) => f.id)).toEqual(wanted);
      expect(state.map((f) => f.order)).toEqual(wanted.map((_, i) => i));
      const events = await eventsUntil(c.guest, queue, (e) => e.length >= 1);
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'channel_folder', op: 'reorder', order: wanted }]);

      const order = async () => (await c.admin.get('/channel_folders', { include_archived: true })).body.channel_folders;
      for (const bad of [wanted.slice(1), [...wanted, wanted[0]], [...wanted, 99_999], [...wanted.slice(1), 99_999]]) {
        await expectRefusedUnchanged(() => patch(c.admin, '/channel_folders', { order: JSON.stringify(bad) }), { msg: 'Invalid order mapping.' }, order);
      }
      await expectRefusedUnchanged(() => patch(c.admin, '/channel_folders', {}), {}, order);
      await expectRefusedUnchanged(() => patch(c.admin, '/channel_folders', { order: '[1, "x"]' }), {}, order);
    });
  });
}
