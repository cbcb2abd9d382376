/**
 * The HTTP suite for custom user groups in channel permissions, run against every mode:
 * a channel group-setting may name a custom group, and who may post, administer,
 * subscribe, unsubscribe and see a private channel follows that group's membership as it
 * changes — with the `stream` events of those who gain or lose sight of a private channel —
 * and an authorization matrix whose actors hold permissions by group, not by role.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, expectRefused, onceCaughtUp, patch, subscribe, suiteServer, unsubscribe, type Reply } from './suite-kit';

type Who = 'owner' | 'admin' | 'member' | 'member2';

export function groupPermissionsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`custom groups in channel permissions (${mode})`, () => {
    const { clients, ids } = suiteServer(start, ['owner', 'admin', 'member', 'member2'] as Who[]);
    let serial = 0;
    const unique = (prefix: string) => `${prefix}-${++serial}`;

    const send = (client: Client, to: number) => client.post('/messages', { type: 'stream', to, topic: 'news', content: 'hello' });

    /** A custom group the administrator creates (and so manages), with these members. */
    async function group(members: number[]): Promise<number> {
      const res = await clients.admin.post('/user_groups/create', { name: unique('crew'), description: '', members });
      expect(res.body.result).toBe('success');
      return res.body.group_id as number;
    }
    const members = async (groupId: number, change: { add?: number[]; delete?: number[] }) =>
      expect((await clients.admin.post(`/user_groups/${groupId}/members`, change)).body.result).toBe('success');
    /** A channel the administrator creates (and alone is subscribed to). */
    async function channel(prefix: string, params: Record<string, unknown>): Promise<{ name: string; id: number }> {
      const name = unique(prefix);
      expect((await subscribe(clients.admin, [name], params)).body.result).toBe('success');
      return { name, id: (await clients.admin.get('/get_stream_id', { stream: name })).body.stream_id as number };
    }
    const ok = (reply: Reply) => reply.body.result === 'success';
    const refusedWith = (reply: Reply, msg: string) => expectRefused(reply, { msg });

    it('accepts a custom group in every channel group-setting, and refuses unknown and deactivated ones, creating nothing', async () => {
      const crew = await group([ids.member2]);
      const named = await channel('named', { can_send_message_group: crew, can_administer_channel_group: { direct_members: [ids.member], direct_subgroups: [crew] } });
      const stream = (await clients.admin.get(`/streams/${named.id}`)).body.stream;
      expect(stream.can_send_message_group).toBe(crew);
      expect(stream.can_administer_channel_group).toEqual({ direct_members: [ids.member], direct_subgroups: [crew] });
      expect(ok(await patch(clients.admin, `/streams/${named.id}`, { can_remove_subscribers_group: { new: crew } }))).toBe(true);

      const gone = await group([]);
      expect(ok(await clients.admin.post(`/user_groups/${gone}/deactivate`))).toBe(true);
      for (const value of [999_999, gone]) {
        const name = unique('never');
        refusedWith(await subscribe(clients.admin, [name], { can_send_message_group: value }), `Invalid user group ID: ${value}`);
        refusedWith(await patch(clients.admin, `/streams/${named.id}`, { can_send_message_group: { new: value } }), `Invalid user group ID: ${value}`);
        expect((await clients.admin.get('/get_stream_id', { stream: name })).body.result).toBe('error');
      }
      expect((await clients.admin.get(`/streams/${named.id}`)).body.stream).toEqual({ ...stream, can_remove_subscribers_group: crew });
      // A group a channel's setting names cannot be deactivated.
      expect((await clients.admin.post(`/user_groups/${crew}/deactivate`)).body.result).toBe('error');
    });

    it("lets exactly the members of the group in can_send_message_group post, as members join and leave", async () => {
      const posters = await group([]);
      const target = await channel('announcements', { can_send_message_group: posters, principals: [ids.admin, ids.member2] });
      refusedWith(await send(clients.member2, target.id), 'You do not have permission to post in this channel.');

      await members(posters, { add: [ids.member2] });
      const allowed = await onceCaughtUp(() => send(clients.member2, target.id), (r) => !ok(r));
      expect(allowed.body.result).toBe('success');

      await members(posters, { delete: [ids.member2] });
      const refused = await onceCaughtUp(() => send(clients.member2, target.id), ok);
      refusedWith(refused, 'You do not have permission to post in this channel.');
      // Typing follows the same rule.
      refusedWith(await clients.member2.post('/typing', { type: 'channel', op: 'start', stream_id: target.id, topic: 'news' }), 'You do not have permission to post in this channel.');
    });

    it('shows a private channel to the members of its can_add_subscribers_group as they join, and hides it as they leave', async () => {
      const insiders = await group([]);
      const hideout = await channel('hideout', { invite_only: true, can_add_subscribers_group: insiders });
      const queue = (await clients.member2.post('/register', { event_types: ['stream', 'subscription'] })).body.queue_id as string;
      const neverSubscribed = async () =>
        ((await clients.member2.post('/register', { event_types: ['subscription'] })).body.never_subscribed as { stream_id: number }[]).map((s) => s.stream_id);
      refusedWith(await clients.member2.get(`/streams/${hideout.id}`), 'Invalid channel ID');
      expect(await neverSubscribed()).not.toContain(hideout.id);

      await members(insiders, { add: [ids.member2] });
      const shown = await eventsUntil(clients.member2, queue, (events) => events.some((e) => e.type === 'stream' && e.op === 'create'));
      expect(shown.filter((e) => e.type === 'stream' || e.type === 'subscription')).toEqual([
        expect.objectContaining({
          type: 'stream',
          op: 'create',
          streams: [expect.objectContaining({ stream_id: hideout.id, name: hideout.name, invite_only: true, subscriber_count: 1 })],
        }),
      ]);
      expect((await onceCaughtUp(() => clients.member2.get(`/streams/${hideout.id}`), (r) => !ok(r))).body.stream.name).toBe(hideout.name);
      expect(await neverSubscribed()).toContain(hideout.id);
      // And may now subscribe others, as the setting says.
      expect(ok(await subscribe(clients.member2, [hideout.name], { principals: [ids.member] }))).toBe(true);

      await members(insiders, { delete: [ids.member2] });
      const hidden = await eventsUntil(clients.member2, queue, (events) => events.some((e) => e.type === 'stream' && e.op === 'delete'));
      expect(hidden.filter((e) => e.type === 'stream' && e.op === 'delete')).toEqual([
        expect.objectContaining({ streams: [{ stream_id: hideout.id, name: hideout.name }], stream_ids: [hideout.id] }),
      ]);
      refusedWith(await onceCaughtUp(() => clients.member2.get(`/streams/${hideout.id}`), ok), 'Invalid channel ID');
      expect(await neverSubscribed()).not.toContain(hideout.id);
      // Others who always saw it heard nothing of these changes but the subscription.
    });

    describe('authorization matrix: permissions held through a custom group', () => {
      type Kind = 'public' | 'private' | 'archived';
      /** member2 is in the group the channel names; member is not (same role). */
      type Actor = 'in group' | 'not in group';
      interface Operation {
        name: string;
        run: (client: Client, target: { name: string; id: number }) => Promise<Reply>;
        allowed: Record<Kind, Actor[]>;
      }
      const both: Actor[] = ['in group', 'not in group'];
      const grouped: Actor[] = ['in group'];
      const OPERATIONS: Operation[] = [
        { name: 'view the channel', run: (c, t) => c.get(`/streams/${t.id}`), allowed: { public: both, private: grouped, archived: both } },
        { name: 'list its subscribers', run: (c, t) => c.get(`/streams/${t.id}/members`), allowed: { public: both, private: grouped, archived: both } },
        {
          name: 'subscribe someone else',
          run: (c, t) => subscribe(c, [t.name], { principals: [ids.owner] }),
          allowed: { public: both, private: grouped, archived: both },
        },
        { name: 'unsubscribe someone else', run: (c, t) => unsubscribe(c, [t.name], { principals: [ids.admin] }), allowed: { public: grouped, private: grouped, archived: grouped } },
        { name: 'change the description', run: (c, t) => patch(c, `/streams/${t.id}`, { description: 'changed' }), allowed: { public: grouped, private: grouped, archived: grouped } },
        {
          name: 'change a group-setting',
          run: (c, t) => patch(c, `/streams/${t.id}`, { can_send_message_group: { new: 3 } }),
          allowed: { public: grouped, private: grouped, archived: grouped },
        },
        { name: 'archive it', run: (c, t) => c.request('DELETE', `/streams/${t.id}`), allowed: { public: grouped, private: grouped, archived: [] } },
      ];

      let crew: number;
      beforeAll(async () => {
        crew = await group([ids.member2]);
      });

      for (const operation of OPERATIONS) {
        it(`${operation.name}: allowed or refused by group membership, for each kind of channel`, async () => {
          const outcomes: string[] = [];
          const expected: string[] = [];
          for (const kind of ['public', 'private', 'archived'] as Kind[]) {
            for (const actor of both) {
              const target = await channel(`matrix-${kind}`, {
                invite_only: kind === 'private',
                can_administer_channel_group: crew,
                can_add_subscribers_group: crew,
                can_remove_subscribers_group: crew,
              });
              if (kind === 'archived') expect(ok(await clients.admin.request('DELETE', `/streams/${target.id}`))).toBe(true);
              const before = (await clients.admin.get(`/streams/${target.id}`)).body.stream;
              const membersBefore = (await clients.admin.get(`/streams/${target.id}/members`)).body.subscribers;
              const client = actor === 'in group' ? clients.member2 : clients.member;
              const res = await operation.run(client, target);
              const allowed = operation.allowed[kind].includes(actor);
              outcomes.push(`${kind}, ${actor}: ${ok(res) ? 'allowed' : 'refused'}`);
              expected.push(`${kind}, ${actor}: ${allowed ? 'allowed' : 'refused'}`);
              if (!allowed) {
                expect({ kind, actor, status: res.status, code: res.body.code }).toEqual({ kind, actor, status: 400, code: 'BAD_REQUEST' });
                expect({ kind, actor, after: (await clients.admin.get(`/streams/${target.id}`)).body.stream }).toEqual({ kind, actor, after: before });
                expect((await clients.admin.get(`/streams/${target.id}/members`)).body.subscribers).toEqual(membersBefore);
              }
            }
          }
          expect(outcomes).toEqual(expected);
        }, 60_000);
      }
    });
  });
}
