/**
 * The HTTP suite for changes to messages — reactions, flags, edits and moves, deletion,
 * topic visibility, rendering and mentions — run against every mode. Each refused request
 * is checked to have changed nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export function messagingSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`message changes (${mode})`, () => {
    const { clients, ids } = suiteServer(start, ['member', 'member2', 'owner', 'admin', 'guest']);
    let member: Client;
    let member2: Client;
    let owner: Client;
    let admin: Client;
    let guest: Client;
    beforeAll(() => {
      ({ member, member2, owner, admin, guest } = clients);
    });

    const send = async (client: Client, params: Record<string, unknown>) => {
      const res = await client.post('/messages', params);
      expect(res.body).toMatchObject({ result: 'success' });
      return res.body.id as number;
    };
    const fetchOne = async (client: Client, id: number, extra: Record<string, unknown> = {}) =>
      (await client.get('/messages', { message_ids: [id], ...extra })).body.messages[0];
    const register = async (client: Client, event_types: string[], client_capabilities: Record<string, boolean> = {}) =>
      (await client.post('/register', { event_types, apply_markdown: true, client_capabilities })).body.queue_id as string;
    const events = async (client: Client, queue_id: string) =>
      (await client.get('/events', { queue_id, last_event_id: -1, dont_block: true })).body.events as any[];

    // The embedded server answers a write once it is durable, before the messaging thread's
    // read models show it, and makes every later request wait for it instead (whenDurable);
    // the distributed mode's services wait before answering. Either way, whoever asks next
    // sees what was acknowledged.
    describe('an acknowledged write is seen by the next request, whoever sends it', () => {
      it('a send, an edit and a reaction, each read at once by other users', async () => {
        for (let round = 0; round < 12; round++) {
          const id = await send(member, { type: 'stream', to: 'general', topic: 'acknowledged', content: `sent ${round}` });
          expect((await fetchOne(member2, id))?.content).toBe(`<p>sent ${round}</p>`);
          expect((await owner.get(`/messages/${id}`)).body.message?.content).toBe(`<p>sent ${round}</p>`);
          expect((await member.request('PATCH', `/messages/${id}`, { content: `edited ${round}` }, { query: false })).body.result).toBe('success');
          expect((await fetchOne(admin, id))?.content).toBe(`<p>edited ${round}</p>`);
          expect((await member2.post(`/messages/${id}/reactions`, { emoji_name: 'octopus' })).body.result).toBe('success');
          expect((await fetchOne(owner, id))?.reactions.map((r: { user_id: number }) => r.user_id)).toEqual([ids.member2]);
        }
      });
    });

    describe('reactions', () => {
      it('adds and removes reactions, oldest first, with reaction events to who can see the message', async () => {
        const id = await send(member, { type: 'stream', to: 'general', topic: 'reactions', content: 'react to me' });
        const watching = await register(member2, ['reaction']);
        const outsider = await register(owner, ['reaction']);
        const dmId = await send(member, { type: 'direct', to: [ids.member2], content: 'private' });

        expect((await member2.post(`/messages/${id}/reactions`, { emoji_name: 'octopus' })).body.result).toBe('success');
        expect((await owner.post(`/messages/${id}/reactions`, { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' })).body.result).toBe('success');
        expect((await member2.post(`/messages/${dmId}/reactions`, { emoji_name: 'tada' })).body.result).toBe('success');
        const message = await fetchOne(member, id);
        expect(message.reactions).toEqual([
          { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: ids.member2 },
          { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji', user_id: ids.owner },
        ]);

        const seen = await events(member2, watching);
        expect(seen.map((e) => [e.op, e.message_id, e.emoji_name])).toEqual([
          ['add', id, 'octopus'],
          ['add', id, 'heart'],
          ['add', dmId, 'tada'],
        ]);
        // The owner sees the channel message's reactions but not the direct message's.
        expect((await events(owner, outsider)).map((e) => e.message_id)).toEqual([id, id]);

        expect((await member2.request('DELETE', `/messages/${id}/reactions`, { emoji_name: 'octopus' })).body.result).toBe('success');
        expect((await fetchOne(member, id)).reactions.map((r: any) => r.emoji_name)).toEqual(['heart']);
      });

      it('refuses duplicate, missing and unknown reactions, and reactions to invisible messages', async () => {
        const id = await send(member, { type: 'stream', to: 'general', topic: 'reactions', content: 'once' });
        await member.post(`/messages/${id}/reactions`, { emoji_name: 'smile' });
        const cases: [Client, string, string, Record<string, unknown>, string][] = [
          [member, 'POST', `/messages/${id}/reactions`, { emoji_name: 'smile' }, 'already exists'],
          [member, 'DELETE', `/messages/${id}/reactions`, { emoji_name: 'tada' }, "doesn't exist"],
          [member, 'POST', `/messages/${id}/reactions`, { emoji_name: 'no_such_emoji_name' }, 'does not exist'],
          [member, 'POST', `/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: 'zzzz' }, 'emoji code'],
          [member, 'POST', `/messages/${id}/reactions`, { emoji_name: 'heart', emoji_code: '1f604' }, 'emoji name'],
          [member, 'POST', `/messages/${id}/reactions`, { emoji_name: 'x', reaction_type: 'realm_emoji', emoji_code: '1' }, 'custom emoji'],
          [member, 'POST', `/messages/99999999/reactions`, { emoji_name: 'smile' }, 'Invalid message'],
          [member, 'POST', `/messages/${id}/reactions`, {}, "'emoji_name'"],
        ];
        for (const [client, method, path, params, text] of cases) {
          const res = await client.request(method, path, params, { query: false });
          expect({ path, params, status: res.status, code: res.body.code }).toEqual({ path, params, status: 400, code: 'BAD_REQUEST' });
          expect(res.body.msg).toContain(text);
        }
        const dm = await send(member, { type: 'direct', to: [ids.member2], content: 'not for owner' });
        expect((await owner.post(`/messages/${dm}/reactions`, { emoji_name: 'smile' })).body.msg).toContain('Invalid message');
        expect((await fetchOne(member, id)).reactions).toHaveLength(1);
        const zulip = await member.post(`/messages/${id}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
        expect(zulip.body.result).toBe('success');
      });
    });

    describe('flags', () => {
      it('adds and removes read and starred, reports changed ids, and sends update_message_flags', async () => {
        const a = await send(member, { type: 'stream', to: 'general', topic: 'flags', content: 'one' });
        const b = await send(member, { type: 'stream', to: 'general', topic: 'flags', content: 'two' });
        const queue = await register(member2, ['update_message_flags']);
        expect((await fetchOne(member2, a)).flags).not.toContain('read');
        const read = await member2.post('/messages/flags', { messages: [a, b], op: 'add', flag: 'read' });
        expect(read.body).toMatchObject({ result: 'success', messages: [a, b] });
        const again = await member2.post('/messages/flags', { messages: [a], op: 'add', flag: 'read' });
        expect(again.body.messages).toEqual([]);
        await member2.post('/messages/flags', { messages: [b], op: 'add', flag: 'starred' });
        expect((await fetchOne(member2, b)).flags.sort()).toEqual(['read', 'starred']);
        await member2.post('/messages/flags', { messages: [a], op: 'remove', flag: 'read' });
        expect((await fetchOne(member2, a)).flags).toEqual([]);
        expect((await events(member2, queue)).map((e) => [e.op, e.flag, e.messages])).toEqual([
          ['add', 'read', [a, b]],
          ['add', 'starred', [b]],
          ['remove', 'read', [a]],
        ]);
      });

      it('refuses read-only and unknown flags and invisible messages, changing nothing', async () => {
        const a = await send(member, { type: 'stream', to: 'general', topic: 'flags', content: 'three' });
        const dm = await send(member, { type: 'direct', to: [ids.member2], content: 'secret' });
        const cases: [Record<string, unknown>, string][] = [
          [{ messages: [a], op: 'add', flag: 'mentioned' }, 'not editable'],
          [{ messages: [a], op: 'add', flag: 'shiny' }, 'Invalid flag'],
          [{ messages: [a], op: 'toggle', flag: 'read' }, "'op'"],
          [{ messages: [a, dm], op: 'add', flag: 'starred' }, 'Invalid message'],
          [{ messages: 'all', op: 'add', flag: 'read' }, "'messages'"],
        ];
        for (const [params, text] of cases) {
          const res = await owner.post('/messages/flags', params);
          expect(res.status).toBe(400);
          expect(res.body.msg).toContain(text);
        }
        expect((await fetchOne(owner, a)).flags).not.toContain('starred');
      });

      it('stars a message read from channel history, marking it historical', async () => {
        const id = await send(member, { type: 'stream', to: 'engineering', topic: 'history', content: 'old news' });
        // member2 is not subscribed to the public channel engineering.
        expect((await fetchOne(member2, id)).flags).toEqual(['read', 'historical']);
        await member2.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' });
        expect((await fetchOne(member2, id)).flags.sort()).toEqual(['historical', 'read', 'starred']);
      });

      it('updates flags over a narrow and marks a topic read', async () => {
        const topic = `unread-${Date.now()}`;
        const sent: number[] = [];
        for (let i = 0; i < 4; i++) sent.push(await send(member, { type: 'stream', to: 'general', topic, content: `u${i}` }));
        const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: topic }];
        const res = await member2.post('/messages/flags/narrow', { anchor: sent[0], num_before: 0, num_after: 1, narrow, op: 'add', flag: 'read' });
        expect(res.body).toMatchObject({ processed_count: 2, updated_count: 2, first_processed_id: sent[0], last_processed_id: sent[1], found_newest: false });
        const first = await member2.get('/messages', { anchor: 'first_unread', num_before: 0, num_after: 0, narrow });
        expect(first.body.anchor).toBe(sent[2]);
        const generalId = (await fetchOne(member2, sent[0]!)).stream_id;
        expect((await member2.post('/mark_topic_as_read', { stream_id: generalId, topic_name: topic })).body.result).toBe('success');
        const after = await member2.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow });
        expect(after.body.messages.every((m: any) => m.flags.includes('read'))).toBe(true);
        expect((await member2.post('/mark_topic_as_read', { stream_id: 999999, topic_name: topic })).status).toBe(400);
      });
    });

    describe('edits, moves and deletion', () => {
      it('edits content: history newest first, last_edit_timestamp, mention flags, update_message event', async () => {
        const id = await send(member, { type: 'stream', to: 'general', topic: 'edits', content: 'first draft' });
        const queue = await register(member2, ['update_message']);
        const edit = await member.request('PATCH', `/messages/${id}`, { content: 'second draft @**Mary Member**' }, { query: false });
        expect(edit.body.result).toBe('success');
        await member.request('PATCH', `/messages/${id}`, { content: 'third draft' }, { query: false });
        const message = await fetchOne(member2, id);
        expect(message.content).toBe('<p>third draft</p>');
        expect(message.last_edit_timestamp).toEqual(expect.any(Number));
        expect(message).not.toHaveProperty('last_moved_timestamp');
        expect(message.edit_history.map((e: any) => e.prev_content)).toEqual(['second draft @**Mary Member**', 'first draft']);
        expect(message.edit_history[0]).not.toHaveProperty('prev_topic');
        const seen = await events(member2, queue);
        expect(seen[0]).toMatchObject({ type: 'update_message', message_id: id, orig_content: 'first draft', flags: ['mentioned'] });
        expect(seen[0].rendered_content).toContain('user-mention');
        expect(seen[1].flags).toEqual([]);
      });

      it('refuses edits by others, to direct-message topics, and of nothing', async () => {
        const id = await send(member, { type: 'stream', to: 'general', topic: 'edits', content: 'mine' });
        const dm = await send(member, { type: 'direct', to: [ids.member2], content: 'dm' });
        const cases: [Client, number, Record<string, unknown>, string][] = [
          [member2, id, { content: 'hijacked' }, 'permission'],
          [owner, id, { content: 'admins cannot either' }, 'permission'],
          [member, dm, { topic: 'topics' }, 'cannot have topics'],
          [member, id, {}, 'Nothing to change'],
          [member, id, { content: 'mine' }, 'Nothing to change'],
          [member, id, { content: ' ' }, 'empty'],
          [member, id, { topic: 'x'.repeat(61) }, 'too long'],
          [member, id, { propagate_mode: 'change_some', topic: 'x' }, "'propagate_mode'"],
          [member, id, { stream_id: 999999 }, 'Invalid channel'],
          [member, 99999999, { content: 'ghost' }, 'Invalid message'],
        ];
        for (const [client, target, params, text] of cases) {
          const res = await client.request('PATCH', `/messages/${target}`, params, { query: false });
          expect({ params, status: res.status }).toEqual({ params, status: 400 });
          expect(res.body.msg).toContain(text);
        }
        const unchanged = await fetchOne(member, id, { apply_markdown: false });
        expect(unchanged.content).toBe('mine');
        expect(unchanged).not.toHaveProperty('edit_history');
      });

      it('moves a topic with change_later and change_all, and resolving is not a move', async () => {
        const topic = `move-${Date.now()}`;
        const sent: number[] = [];
        for (let i = 0; i < 3; i++) sent.push(await send(member, { type: 'stream', to: 'general', topic, content: `m${i}` }));
        const queue = await register(member2, ['update_message']);
        const later = await member.request('PATCH', `/messages/${sent[1]}`, { topic: `${topic}-b`, propagate_mode: 'change_later' }, { query: false });
        expect(later.body.result).toBe('success');
        const topics = async () => Promise.all(sent.map(async (id) => (await fetchOne(member, id)).subject));
        expect(await topics()).toEqual([topic, `${topic}-b`, `${topic}-b`]);
        const moved = await fetchOne(member, sent[2]!);
        expect(moved.last_moved_timestamp).toEqual(expect.any(Number));
        // Same channel, same conversation id: a topic move keeps the recipient.
        expect(moved.recipient_id).toBe((await fetchOne(member, sent[0]!)).recipient_id);
        expect(moved.edit_history[0]).toMatchObject({ prev_topic: topic, topic: `${topic}-b`, user_id: ids.member });
        expect((await events(member2, queue))[0]).toMatchObject({ message_ids: [sent[1], sent[2]], orig_subject: topic, subject: `${topic}-b`, propagate_mode: 'change_later' });

        await member.request('PATCH', `/messages/${sent[0]}`, { topic: `✔ ${topic}`, propagate_mode: 'change_all' }, { query: false });
        const resolved = await fetchOne(member, sent[0]!);
        expect(resolved.subject).toBe(`✔ ${topic}`);
        expect(resolved).not.toHaveProperty('last_moved_timestamp');
        const narrow = [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: `${topic}-b` }];
        expect((await member.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow })).body.messages.map((m: any) => m.id)).toEqual([sent[1], sent[2]]);
      });

      it('moves messages to another channel, refused for guests (who may still move topics)', async () => {
        const id = await send(admin, { type: 'stream', to: 'general', topic: 'relocate', content: 'wrong place' });
        const engineering = (await fetchOne(admin, await send(admin, { type: 'stream', to: 'engineering', topic: 't', content: 'x' }))).stream_id;
        const res = await admin.request('PATCH', `/messages/${id}`, { stream_id: engineering }, { query: false });
        expect(res.body.result).toBe('success');
        const moved = await fetchOne(admin, id);
        expect(moved).toMatchObject({ stream_id: engineering, display_recipient: 'engineering', subject: 'relocate' });
        expect(moved.edit_history[0]).toMatchObject({ stream: engineering });
        const guestMessage = await send(guest, { type: 'stream', to: 'general', topic: 'guest', content: 'hi' });
        const refused = await guest.request('PATCH', `/messages/${guestMessage}`, { stream_id: engineering }, { query: false });
        expect(refused.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        expect((await fetchOne(guest, guestMessage)).stream_id).not.toBe(engineering);
        // Zulip's organization default lets everyone, guests included, move topics.
        expect((await guest.request('PATCH', `/messages/${guestMessage}`, { topic: 'elsewhere' }, { query: false })).body.result).toBe('success');
        expect((await fetchOne(guest, guestMessage)).subject).toBe('elsewhere');
      });

      it('takes messages moved into a private channel away from those who cannot see it', async () => {
        const id = await send(admin, { type: 'stream', to: 'general', topic: 'sensitive', content: 'should be private' });
        const leadership = (await fetchOne(admin, await send(admin, { type: 'stream', to: 'leadership', topic: 't', content: 'x' }))).stream_id;
        expect((await fetchOne(member, id)).id).toBe(id);
        const memberQueue = await register(member, ['delete_message', 'update_message'], { bulk_message_deletion: true });
        const memberLegacyQueue = await register(member, ['delete_message', 'update_message']);
        const ownerQueue = await register(owner, ['delete_message', 'update_message']);
        expect((await admin.request('PATCH', `/messages/${id}`, { stream_id: leadership }, { query: false })).body.result).toBe('success');
        expect((await member.get('/messages', { message_ids: [id] })).body.messages).toEqual([]);
        const search = await member.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'search', operand: 'private' }] });
        expect(search.body.messages.map((m: any) => m.id)).not.toContain(id);
        expect((await events(member, memberQueue)).map((e) => [e.type, e.message_ids])).toEqual([['delete_message', [id]]]);
        // Without bulk_message_deletion: one event per message, with message_id.
        expect((await events(member, memberLegacyQueue)).map((e) => [e.type, e.message_ids, e.message_id])).toEqual([['delete_message', undefined, id]]);
        expect((await events(owner, ownerQueue)).map((e) => e.type)).toEqual(['update_message']);
        expect((await fetchOne(owner, id)).display_recipient).toBe('leadership');
      });

      it('deletes own messages and lets administrators delete any, with delete_message events', async () => {
        const own = await send(member, { type: 'stream', to: 'general', topic: 'delete', content: 'oops' });
        const other = await send(member2, { type: 'stream', to: 'general', topic: 'delete', content: 'not yours' });
        const queue = await register(member, ['delete_message'], { bulk_message_deletion: true });
        expect((await member.request('DELETE', `/messages/${other}`)).body.msg).toContain('permission');
        expect((await member.request('DELETE', `/messages/${own}`)).body.result).toBe('success');
        expect((await admin.request('DELETE', `/messages/${other}`)).body.result).toBe('success');
        expect((await member.get('/messages', { message_ids: [own, other] })).body.messages).toEqual([]);
        expect((await member.request('DELETE', `/messages/${own}`)).status).toBe(400);
        const seen = await events(member, queue);
        expect(seen.map((e) => [e.type, e.message_ids, e.message_type, e.topic])).toEqual([
          ['delete_message', [own], 'stream', 'delete'],
          ['delete_message', [other], 'stream', 'delete'],
        ]);
      });

      it('reads one message with GET /messages/{id}', async () => {
        const id = await send(member, { type: 'stream', to: 'general', topic: 'single', content: '*one*' });
        const res = await member2.get(`/messages/${id}`);
        expect(res.body).toMatchObject({ result: 'success', raw_content: '*one*', message: { id, content: '<p><em>one</em></p>' } });
        expect((await member2.get('/messages/99999999')).status).toBe(400);
      });
    });

    describe('topics, rendering and mentions', () => {
      it('follows a topic the sender starts, once, with a user_topic event', async () => {
        const topic = `fresh-${Date.now()}`;
        const queue = await register(member, ['user_topic']);
        const first = await member.post('/messages', { type: 'stream', to: 'general', topic, content: 'new topic' });
        expect(first.body.automatic_new_visibility_policy).toBe(3);
        const second = await member.post('/messages', { type: 'stream', to: 'general', topic, content: 'again' });
        expect(second.body).not.toHaveProperty('automatic_new_visibility_policy');
        const replier = await member2.post('/messages', { type: 'stream', to: 'general', topic, content: 'reply' });
        expect(replier.body).not.toHaveProperty('automatic_new_visibility_policy');
        const generalId = (await fetchOne(member, first.body.id)).stream_id;
        expect((await events(member, queue))).toEqual([
          expect.objectContaining({ type: 'user_topic', stream_id: generalId, topic_name: topic, visibility_policy: 3 }),
        ]);
      });

      it('sets topic visibility with POST /user_topics and refuses bad values', async () => {
        const generalId = (await fetchOne(member, await send(member, { type: 'stream', to: 'general', topic: 'vis', content: 'x' }))).stream_id;
        const queue = await register(member2, ['user_topic']);
        expect((await member2.post('/user_topics', { stream_id: generalId, topic: 'vis', visibility_policy: 1 })).body.result).toBe('success');
        expect((await member2.post('/user_topics', { stream_id: generalId, topic: 'vis', visibility_policy: 7 })).status).toBe(400);
        expect((await member2.post('/user_topics', { stream_id: 999999, topic: 'vis', visibility_policy: 1 })).status).toBe(400);
        const leadership = await owner.post('/messages', { type: 'stream', to: 'leadership', topic: 't', content: 'x' });
        const leadershipId = (await fetchOne(owner, leadership.body.id)).stream_id;
        expect((await member2.post('/user_topics', { stream_id: leadershipId, topic: 't', visibility_policy: 1 })).status).toBe(400);
        expect((await events(member2, queue)).map((e) => e.visibility_policy)).toEqual([1]);
      });

      it('renders mentions, channel links and emoji, flags mentioned users, and renders on request', async () => {
        const queue = await register(member2, ['message']);
        const id = await send(member, { type: 'stream', to: 'general', topic: 'mentions', content: 'hi @**Mary Member** see #**engineering** :octopus:' });
        const message = await fetchOne(member2, id);
        expect(message.content).toContain(`data-user-id="${ids.member2}"`);
        expect(message.content).toContain('class="stream"');
        expect(message.content).toContain('emoji-1f419');
        expect(message.flags).toContain('mentioned');
        expect((await fetchOne(owner, id)).flags).not.toContain('mentioned');
        expect((await events(member2, queue))[0].flags).toContain('mentioned');
        const wildcard = await send(member, { type: 'stream', to: 'general', topic: 'mentions', content: 'hey @**all**' });
        expect((await fetchOne(owner, wildcard)).flags).toContain('wildcard_mentioned');
        const rendered = await member.post('/messages/render', { content: '**bold** <script>x</script>' });
        expect(rendered.body.rendered).toBe('<p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p>');
        expect((await member.post('/messages/render', { content: '' })).status).toBe(400);
        const me = await send(member, { type: 'stream', to: 'general', topic: 'mentions', content: '/me waves' });
        expect((await fetchOne(member, me)).is_me_message).toBe(true);
      });
    });
  });
}
