/**
 * The HTTP suite for the message endpoints of issue 17 item 7, run against every mode:
 * GET /messages/{id}/history, GET /messages/{id}/read_receipts and GET
 * /messages/matches_narrow, each only about messages the requester may see, and their
 * refusals.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { expectRefused, patch, suiteServer, type Reply } from './suite-kit';

export function messageHistorySuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`message history, read receipts and narrow matches (${mode})`, () => {
    const { clients: c, ids }: { clients: Record<string, Client>; ids: Record<string, number> } = suiteServer(start, ['owner', 'admin', 'member', 'member2', 'guest']);

    const refusedWith = (reply: Reply, msg?: RegExp) => expectRefused(reply, { msg });
    const send = async (client: Client, params: Record<string, unknown>) => {
      const reply = await client.post('/messages', params);
      expect(reply.body.result).toBe('success');
      return reply.body.id as number;
    };
    /** Another user's writes reach this reader's service in time (in distributed mode, after the projector's catch-up). */
    async function eventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
      const deadline = Date.now() + 5000;
      let last: T = await read();
      while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        last = await read();
      }
      expect(last).toEqual(expected);
    }

    describe('GET /messages/{id}/history', () => {
      it('lists every version oldest first, with prev_* fields and who changed it', async () => {
        const { member, admin } = c as Record<string, Client>;
        const id = await send(member!, { type: 'stream', to: 'general', topic: 'history one', content: 'first **draft**' });
        expect((await patch(member!, `/messages/${id}`, { content: 'second draft' })).body.result).toBe('success');
        expect((await patch(admin!, `/messages/${id}`, { topic: 'history two' })).body.result).toBe('success');
        const general = (await member!.get('/messages', { message_ids: JSON.stringify([id]) })).body.messages[0].stream_id;
        const expected = [
          { topic: 'history one', content: 'first **draft**', rendered_content: '<p>first <strong>draft</strong></p>', user_id: ids.member, stream: general },
          { topic: 'history one', content: 'second draft', rendered_content: '<p>second draft</p>', user_id: ids.member, prev_content: 'first **draft**', prev_rendered_content: '<p>first <strong>draft</strong></p>' },
          { topic: 'history two', content: 'second draft', rendered_content: '<p>second draft</p>', user_id: ids.admin, prev_topic: 'history one' },
        ];
        const read = async () => ((await member!.get(`/messages/${id}/history`)).body.message_history as any[]).map(({ timestamp, ...rest }) => {
          expect(typeof timestamp).toBe('number');
          return rest;
        });
        await eventually(read, expected);
        // Anyone who may read the channel's history may read the message's.
        await eventually(async () => (await c.guest!.get(`/messages/${id}/history`)).body.message_history?.length, 3);
      });

      it('refuses messages the requester may not see, unknown ids, and an organization that hides edit history', async () => {
        const { member, member2, guest, owner } = c as Record<string, Client>;
        const direct = await send(member!, { type: 'direct', to: JSON.stringify([ids.member2]), content: 'between us' });
        const engineering = await send(member!, { type: 'stream', to: 'engineering', topic: 'eng', content: 'guests cannot see this' });
        await eventually(async () => (await member2!.get(`/messages/${direct}/history`)).body.message_history?.length, 1);
        refusedWith(await guest!.get(`/messages/${direct}/history`), /Invalid message/);
        refusedWith(await guest!.get(`/messages/${engineering}/history`), /Invalid message/);
        refusedWith(await member!.get('/messages/999999999/history'), /Invalid message/);
        refusedWith(await member!.get('/messages/abc/history'));
        expect((await patch(owner!, '/realm', { allow_edit_history: false })).body.result).toBe('success');
        try {
          await eventually(async () => (await member!.get(`/messages/${direct}/history`)).body.msg, 'Message edit history is disabled in this organization');
        } finally {
          await patch(owner!, '/realm', { allow_edit_history: true });
        }
      });
    });

    describe('GET /messages/{id}/read_receipts', () => {
      it('names who read the message, leaving out its sender and anyone who turned send_read_receipts off', async () => {
        const { owner, member, member2, admin, guest } = c as Record<string, Client>;
        expect((await patch(owner!, '/realm', { enable_read_receipts: true })).body.result).toBe('success');
        try {
          const id = await send(member!, { type: 'stream', to: 'general', topic: 'receipts', content: 'who reads this?' });
          const read = (client: Client) => client.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' });
          for (const reader of [member2!, admin!, guest!]) expect((await read(reader)).body.result).toBe('success');
          const receipts = async () => (await member!.get(`/messages/${id}/read_receipts`)).body.user_ids;
          await eventually(receipts, [ids.admin, ids.member2, ids.guest].sort((a, b) => a! - b!));
          expect((await patch(member2!, '/settings', { send_read_receipts: false })).body.result).toBe('success');
          await eventually(receipts, [ids.admin, ids.guest].sort((a, b) => a! - b!));
          expect((await patch(member2!, '/settings', { send_read_receipts: true })).body.result).toBe('success');
          await eventually(receipts, [ids.admin, ids.member2, ids.guest].sort((a, b) => a! - b!));

          const engineering = await send(member!, { type: 'stream', to: 'engineering', topic: 'eng', content: 'not for guests' });
          refusedWith(await guest!.get(`/messages/${engineering}/read_receipts`), /Invalid message/);
          refusedWith(await guest!.get('/messages/999999999/read_receipts'), /Invalid message/);
        } finally {
          await patch(owner!, '/realm', { enable_read_receipts: false });
        }
        await eventually(async () => (await member!.get('/messages/1/read_receipts')).body.msg, 'Read receipts are disabled in this organization.');
      });
    });

    describe('GET /messages/matches_narrow', () => {
      it('answers which of the messages match, with search terms highlighted, leaving out what the requester may not see', async () => {
        const { member, guest } = c as Record<string, Client>;
        const a = await send(member!, { type: 'stream', to: 'general', topic: 'deploy plan', content: 'We **deploy** the release notes today' });
        const b = await send(member!, { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza' });
        const hidden = await send(member!, { type: 'stream', to: 'engineering', topic: 'deploy', content: 'deploy in engineering' });
        const narrow = JSON.stringify([{ operator: 'search', operand: 'deploy' }]);
        const matched = (await member!.get('/messages/matches_narrow', { msg_ids: JSON.stringify([a, b, hidden]), narrow })).body;
        expect(Object.keys(matched.messages).map(Number).sort((x, y) => x - y)).toEqual([a, hidden]);
        expect(matched.messages[a]).toEqual({
          match_content: '<p>We <strong><span class="highlight">deploy</span></strong> the release notes today</p>',
          match_subject: '<span class="highlight">deploy</span> plan',
        });
        await eventually(async () => Object.keys((await guest!.get('/messages/matches_narrow', { msg_ids: JSON.stringify([a, b, hidden]), narrow })).body.messages ?? {}).map(Number), [a]);
        const byTopic = (await member!.get('/messages/matches_narrow', { msg_ids: JSON.stringify([a, b]), narrow: JSON.stringify([{ operator: 'topic', operand: 'lunch' }]) })).body;
        expect(byTopic.messages).toEqual({ [b]: { match_content: '<p>pizza</p>', match_subject: 'lunch' } });
      });

      it('is what GET /messages gives with a search narrow: each match carries match_content and match_subject, other narrows none', async () => {
        const { member } = c as Record<string, Client>;
        const a = await send(member!, { type: 'stream', to: 'general', topic: 'kiwi harvest', content: 'The **kiwi** crates arrive' });
        const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'search', operand: 'kiwi' }]);
        const page = (await member!.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).body;
        const found = page.messages?.find((m: { id: number }) => m.id === a) ?? page;
        expect(found).toMatchObject({
          match_content: '<p>The <strong><span class="highlight">kiwi</span></strong> crates arrive</p>',
          match_subject: '<span class="highlight">kiwi</span> harvest',
          flags: expect.any(Array),
        });
        const plain = (await member!.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) })).body;
        expect(plain.messages.find((m: { id: number }) => m.id === a)).not.toHaveProperty('match_content');
        // Another search showing the same message highlights its own terms, and the first again its own.
        const crates = JSON.stringify([{ operator: 'channel', operand: 'general' }, { operator: 'search', operand: 'crates' }]);
        const other = (await member!.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: crates })).body;
        expect(other.messages.find((m: { id: number }) => m.id === a)).toMatchObject({
          match_content: '<p>The <strong>kiwi</strong> <span class="highlight">crates</span> arrive</p>',
          match_subject: 'kiwi harvest',
        });
        const again = (await member!.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).body;
        expect(again.messages.find((m: { id: number }) => m.id === a)).toMatchObject({ match_content: found.match_content, match_subject: found.match_subject });
      });

      it('refuses a missing or malformed narrow or id list', async () => {
        const { member } = c as Record<string, Client>;
        refusedWith(await member!.get('/messages/matches_narrow', { msg_ids: JSON.stringify([1]) }));
        refusedWith(await member!.get('/messages/matches_narrow', { narrow: '[]' }));
        refusedWith(await member!.get('/messages/matches_narrow', { msg_ids: 'nope', narrow: '[]' }));
        refusedWith(await member!.get('/messages/matches_narrow', { msg_ids: '[1]', narrow: JSON.stringify([{ operator: 'bogus', operand: 'x' }]) }));
        refusedWith(await member!.get('/messages/matches_narrow', { msg_ids: JSON.stringify(Array.from({ length: 5001 }, (_, i) => i + 1)), narrow: '[]' }));
      });
    });
  });
}
