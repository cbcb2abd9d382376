/** The HTTP API suite (api-suite.ts): sending channel and direct messages, refusals that store nothing, and reading them back: narrows, anchors and paging, concurrent sends. */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiKit } from './api-kit';
import type { Client } from './harness';
import { onceCaughtUp } from './suite-kit';

export function apiMessagesTests({ clients, expectNothingSent, channelNarrow }: ApiKit): void {
  describe('sending and reading messages', () => {
    let member: Client;
    let member2: Client;
    let owner: Client;
    let guest: Client;
    beforeAll(() => {
      ({ member, member2, owner, guest } = clients);
    });

    it('sends a channel message by name and by id, and reads it back with a channel+topic narrow', async () => {
      const byName = await member.post('/messages', { type: 'stream', to: 'general', topic: 'greetings', content: 'hello **world**' });
      expect(byName.body).toMatchObject({ result: 'success', id: expect.any(Number) });
      const generalId = (await member.get('/messages', { message_ids: [byName.body.id] })).body.messages[0].stream_id;
      const byId = await member.post('/messages', { type: 'channel', to: String(generalId), subject: 'greetings', content: 'second' });
      expect(byId.body.id).toBeGreaterThan(byName.body.id);

      const { body } = await member2.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: channelNarrow('general', 'greetings') });
      expect(body.messages.map((m: any) => m.id)).toEqual([byName.body.id, byId.body.id]);
      const [first] = body.messages;
      expect(first).toMatchObject({
        type: 'stream',
        display_recipient: 'general',
        subject: 'greetings',
        stream_id: generalId,
        content: '<p>hello <strong>world</strong></p>',
        content_type: 'text/html',
        sender_email: 'member@example.com',
        sender_full_name: 'Mark Member',
        is_me_message: false,
        reactions: [],
        avatar_url: null,
      });
      for (const field of ['recipient_id', 'timestamp', 'sender_id', 'client', 'flags']) expect(first).toHaveProperty(field);
      expect(first).not.toHaveProperty('edit_history');
      expect(first).not.toHaveProperty('last_edit_timestamp');
      const raw = await member2.get('/messages', { anchor: byName.body.id, num_before: 0, num_after: 0, apply_markdown: false, client_gravatar: false });
      expect(raw.body.messages[0]).toMatchObject({ content: 'hello **world**', content_type: 'text/x-markdown' });
      expect(raw.body.messages[0].avatar_url).toMatch(/^https:\/\//);
    });

    it('escapes raw HTML in message content', async () => {
      const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'html', content: '<script>alert(1)</script>' });
      const { body } = await member.get('/messages', { message_ids: [sent.body.id] });
      expect(body.messages[0].content).not.toContain('<script>');
      expect(body.messages[0].content).toContain('&lt;script&gt;');
    });

    it('sends direct messages by ids and by emails, shared recipient_id, readable with a dm narrow', async () => {
      const me = (await member.get('/users/me')).body.user_id as number;
      const other = (await member2.get('/users/me')).body.user_id as number;
      const byIds = await member.post('/messages', { type: 'direct', to: [other], content: 'hi Mary' });
      const byEmails = await member2.post('/messages', { type: 'private', to: ['member@example.com', 'member2@example.com'], content: 'hi Mark' });
      expect(byIds.body.result).toBe('success');
      expect(byEmails.body.result).toBe('success');
      // member2's message is another user's write (onceCaughtUp).
      const { body } = await onceCaughtUp(
        () => member.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [other] }] }),
        (reply) => !reply.body.messages?.some((m: any) => m.id === byEmails.body.id),
      );
      expect(body.messages.map((m: any) => m.id)).toEqual([byIds.body.id, byEmails.body.id]);
      const [a, b] = body.messages;
      expect(a.type).toBe('private');
      expect(a.recipient_id).toBe(b.recipient_id);
      expect(a.display_recipient.map((u: any) => u.id)).toEqual([me, other].sort((x, y) => x - y));
      expect(a.display_recipient[0]).toEqual({ id: expect.any(Number), email: expect.any(String), full_name: expect.any(String), is_mirror_dummy: false });
      // Someone outside the conversation sees none of it.
      const outsider = await owner.get('/messages', { message_ids: [byIds.body.id, byEmails.body.id] });
      expect(outsider.body.messages).toEqual([]);
    });

    it('refuses unknown channels and recipients, overlong content and topics, and stores nothing', async () => {
      await expectNothingSent(async () => {
        const noChannel = await member.post('/messages', { type: 'stream', to: 'no-such-channel', topic: 't', content: 'x' });
        expect(noChannel.status).toBe(400);
        expect(noChannel.body).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', stream: 'no-such-channel' });
        const noChannelId = await member.post('/messages', { type: 'stream', to: '99999', topic: 't', content: 'x' });
        expect(noChannelId.body.code).toBe('STREAM_DOES_NOT_EXIST');
        const noUser = await member.post('/messages', { type: 'direct', to: [99999], content: 'x' });
        expect(noUser.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        const noEmail = await member.post('/messages', { type: 'direct', to: ['ghost@example.com'], content: 'x' });
        expect(noEmail.body.code).toBe('BAD_REQUEST');
        const noTopic = await member.post('/messages', { type: 'stream', to: 'general', content: 'x' });
        expect(noTopic.body.msg).toContain('topic');
        const longTopic = await member.post('/messages', { type: 'stream', to: 'general', topic: 't'.repeat(61), content: 'x' });
        expect(longTopic.body.code).toBe('BAD_REQUEST');
        const longContent = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x'.repeat(10001) });
        expect(longContent.body.code).toBe('BAD_REQUEST');
        const empty = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: '   ' });
        expect(empty.body.code).toBe('BAD_REQUEST');
        const privateChannel = await member.post('/messages', { type: 'stream', to: 'leadership', topic: 't', content: 'x' });
        expect(privateChannel.body.result).toBe('error');
        const guestPost = await guest.post('/messages', { type: 'stream', to: 'engineering', topic: 't', content: 'x' });
        expect(guestPost.body.result).toBe('error');
        const halfEcho = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x', queue_id: 'q' });
        expect(halfEcho.body.msg).toContain('local_id');
        const otherHalf = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x', local_id: '1' });
        expect(otherHalf.body.msg).toContain('queue_id');
      });
      const atLimit = await member.post('/messages', { type: 'stream', to: 'general', topic: 't'.repeat(60), content: 'x'.repeat(10000) });
      expect(atLimit.body.result).toBe('success');
    });

    it('reads the empty-topic display name as the empty topic', async () => {
      const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'general chat', content: 'in the empty topic' });
      const shown = await member.get('/messages', { message_ids: [sent.body.id] });
      expect(shown.body.messages[0].subject).toBe('general chat');
      const raw = await member.get('/messages', { message_ids: [sent.body.id], allow_empty_topic_name: true });
      expect(raw.body.messages[0].subject).toBe('');
    });

    it('pages with anchors and reports found_anchor/found_oldest/found_newest exactly', async () => {
      const topic = `paging-${Date.now()}`;
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await member.post('/messages', { type: 'stream', to: 'engineering', topic, content: `m${i}` })).body.id);
      }
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      const narrow = channelNarrow('engineering', topic);
      const page = (params: Record<string, unknown>) => owner.get('/messages', { narrow, ...params }).then((r) => r.body);

      const newest = await page({ anchor: 'newest', num_before: 2, num_after: 0 });
      expect(newest.messages.map((m: any) => m.id)).toEqual(ids.slice(3));
      expect(newest).toMatchObject({ found_newest: true, found_oldest: false, found_anchor: false, history_limited: false });

      const oldest = await page({ anchor: 'oldest', num_before: 0, num_after: 2 });
      expect(oldest.messages.map((m: any) => m.id)).toEqual(ids.slice(0, 2));
      expect(oldest).toMatchObject({ found_oldest: true, found_newest: false });

      const middle = await page({ anchor: ids[2], num_before: 1, num_after: 1 });
      expect(middle.messages.map((m: any) => m.id)).toEqual(ids.slice(1, 4));
      expect(middle).toMatchObject({ anchor: ids[2], found_anchor: true, found_oldest: false, found_newest: false });

      const excluded = await page({ anchor: ids[2], num_before: 1, num_after: 1, include_anchor: false });
      expect(excluded.messages.map((m: any) => m.id)).toEqual([ids[1], ids[3]]);
      expect(excluded.found_anchor).toBe(false);

      const all = await page({ anchor: ids[0], num_before: 10, num_after: 10 });
      expect(all.messages.map((m: any) => m.id)).toEqual(ids);
      expect(all).toMatchObject({ found_anchor: true, found_oldest: true, found_newest: true });
    });

    it('rejects bad GET /messages requests clearly', async () => {
      const narrow = channelNarrow('general');
      const cases: [Record<string, unknown>, string][] = [
        [{ anchor: 'sideways', num_before: 1, num_after: 0 }, 'anchor'],
        [{ num_before: 1, num_after: 0 }, 'anchor'],
        [{ anchor: 'newest', num_after: 0 }, 'num_before'],
        [{ anchor: 'newest', num_before: -1, num_after: 0 }, 'num_before'],
        [{ anchor: 'newest', num_before: 4000, num_after: 1001 }, '5000'],
        [{ message_ids: [1], anchor: 'newest' }, 'anchor'],
        [{ message_ids: [1], num_before: 1 }, 'num_before'],
        [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'no-such-channel' }] }, 'channel'],
        [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'frobnicate', operand: 'x' }] }, 'operator'],
        [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel' }] }, 'narrow'],
        [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: { operator: 'channel', operand: 'general' } }, 'narrow'],
      ];
      for (const [params, mention] of cases) {
        const res = await member.get('/messages', params);
        expect({ params, status: res.status, code: res.body.code }).toEqual({ params, status: 400, code: 'BAD_REQUEST' });
        expect(res.body.msg).toContain(mention);
      }
      // Private channels stay invisible to non-subscribers.
      const hidden = await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: channelNarrow('leadership') });
      expect(hidden.status).toBe(400);
      expect((await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow })).status).toBe(200);
    });

    it('gives strictly increasing ids to concurrent sends, each readable right after its response', async () => {
      const sends = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? member : member2).post('/messages', { type: 'stream', to: 'general', topic: 'race', content: `r${i}` }),
        ),
      );
      const ids = sends.map((s) => s.body.id as number);
      expect(new Set(ids).size).toBe(20);
      for (const s of sends) {
        const read = await owner.get('/messages', { message_ids: [s.body.id] });
        expect(read.body.messages).toHaveLength(1);
      }
      const { body } = await owner.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: channelNarrow('general', 'race') });
      const listed = body.messages.map((m: any) => m.id);
      expect(listed).toEqual([...ids].sort((a, b) => a - b));
    });
  });
}
