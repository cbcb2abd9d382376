/** The HTTP API suite (api-suite.ts): event queues: registration, message events to the right queues, long-polling and heartbeats, narrowed queues, and refused or foreign queues. */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiKit } from './api-kit';
import { Client } from './harness';

export function apiQueuesTests({ clients }: ApiKit): void {
  describe('event queues', () => {
    let member: Client;
    let member2: Client;
    let guest: Client;
    beforeAll(() => {
      ({ member, member2, guest } = clients);
    });

    it('registers a queue with the limits and feature level', async () => {
      const { body } = await member.post('/register', { event_types: ['message'] });
      expect(body).toMatchObject({
        result: 'success',
        queue_id: expect.any(String),
        last_event_id: -1,
        max_message_length: 10000,
        max_topic_length: 60,
        max_stream_name_length: 60,
        max_stream_description_length: 1024,
        realm_empty_topic_display_name: 'general chat',
        event_queue_longpoll_timeout_seconds: expect.any(Number),
      });
      expect(body.zulip_feature_level).toBeGreaterThanOrEqual(496);
    });

    it('delivers a message event to every recipient, local_message_id only to the sending queue', async () => {
      const senderQueue = (await member.post('/register', { event_types: ['message'], apply_markdown: true })).body.queue_id;
      const otherQueue = (await member.post('/register', { event_types: ['message'] })).body.queue_id;
      const recipientQueue = (await member2.post('/register', { event_types: ['message'] })).body.queue_id;
      const outsiderQueue = (await guest.post('/register', { event_types: ['message'] })).body.queue_id;
      const sent = await member.post('/messages', { type: 'stream', to: 'engineering', topic: 'events', content: '**bold**', queue_id: senderQueue, local_id: 'echo-1' });
      const dm = await member.post('/messages', { type: 'direct', to: ['member2@example.com'], content: 'dm event' });

      const poll = async (client: Client, queue_id: string) =>
        (await client.get('/events', { queue_id, last_event_id: -1, dont_block: true })).body.events as any[];
      const mine = await poll(member, senderQueue);
      expect(mine.map((e) => e.message.id)).toEqual([sent.body.id, dm.body.id]);
      expect(mine[0]).toMatchObject({ type: 'message', local_message_id: 'echo-1', flags: expect.any(Array) });
      expect(mine[0].message.content).toBe('<p><strong>bold</strong></p>');
      expect(mine[1]).not.toHaveProperty('local_message_id');
      const other = await poll(member, otherQueue);
      expect(other[0]).not.toHaveProperty('local_message_id');
      expect(other[0].message.content).toBe('**bold**');
      // member2 is not in engineering: only the direct message reaches them.
      expect((await poll(member2, recipientQueue)).map((e) => e.message.id)).toEqual([dm.body.id]);
      expect(await poll(guest, outsiderQueue)).toEqual([]);
    });

    it('blocks until an event arrives, acknowledges by last_event_id, and heartbeats', async () => {
      const queue_id = (await member2.post('/register', { event_types: ['message'] })).body.queue_id;
      const waiting = member2.get('/events', { queue_id, last_event_id: -1 });
      await new Promise((r) => setTimeout(r, 200));
      const sent = await member.post('/messages', { type: 'direct', to: ['member2@example.com'], content: 'wake up' });
      const woke = (await waiting).body;
      expect(woke.events.map((e: any) => e.message?.id)).toEqual([sent.body.id]);
      const lastId = woke.events[0].id as number;
      const heartbeat = (await member2.get('/events', { queue_id, last_event_id: lastId })).body;
      expect(heartbeat.events).toHaveLength(1);
      expect(heartbeat.events[0]).toMatchObject({ type: 'heartbeat' });
      expect(heartbeat.events[0].id).toBeGreaterThan(lastId);
      const after = (await member2.get('/events', { queue_id, last_event_id: heartbeat.events[0].id, dont_block: true })).body;
      expect(after.events).toEqual([]);
    }, 15_000);

    it('queues only the message events matching the narrow the queue was registered with', async () => {
      const narrowed = (await member.post('/register', { event_types: ['message'], narrow: [['stream', 'engineering']] })).body.queue_id;
      const skipped = await member.post('/messages', { type: 'stream', to: 'general', topic: 'narrowed', content: 'not for the queue' });
      const kept = await member.post('/messages', { type: 'stream', to: 'engineering', topic: 'narrowed', content: 'for the queue' });
      const { events } = (await member.get('/events', { queue_id: narrowed, last_event_id: -1, dont_block: true })).body;
      expect(events.map((e: any) => e.message.id)).toEqual([kept.body.id]);
      expect(skipped.body.id).toBeLessThan(kept.body.id);
      const refused = await member.post('/register', { narrow: [{ operator: 'search', operand: 'x' }] });
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('narrow');
    });

    it('refuses malformed registration and polling parameters by name', async () => {
      const badTypes = await member.post('/register', { event_types: 'message' });
      expect(badTypes.status).toBe(400);
      expect(badTypes.body.msg).toContain("'event_types'");
      const badMarkdown = await member.post('/register', { apply_markdown: 'maybe' });
      expect(badMarkdown.body.msg).toContain("'apply_markdown'");
      const queue_id = (await member.post('/register', {})).body.queue_id;
      const badLast = await member.get('/events', { queue_id, last_event_id: 'latest', dont_block: true });
      expect(badLast.body).toMatchObject({ code: 'BAD_REQUEST' });
      expect(badLast.body.msg).toContain("'last_event_id'");
      const badBlock = await member.get('/events', { queue_id, dont_block: 'yes' });
      expect(badBlock.body.msg).toContain("'dont_block'");
      // The queue is untouched by the refused polls.
      expect((await member.get('/events', { queue_id, dont_block: true })).body).toMatchObject({ result: 'success', events: [] });
    });

    it('refuses unknown and foreign queues with BAD_EVENT_QUEUE_ID and deletes queues', async () => {
      const queue_id = (await member.post('/register', {})).body.queue_id;
      const foreign = await member2.get('/events', { queue_id, dont_block: true });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id });
      expect((await member.get('/events', { queue_id: 'nope', dont_block: true })).body.code).toBe('BAD_EVENT_QUEUE_ID');
      // Without a queue id a queue is registered (see queues-suite.ts).
      expect((await member.get('/events', { dont_block: true })).body).toMatchObject({ result: 'success', events: [], queue_id: expect.any(String) });
      expect((await member.request('DELETE', '/events', { queue_id })).body.result).toBe('success');
      expect((await member.get('/events', { queue_id, dont_block: true })).body.code).toBe('BAD_EVENT_QUEUE_ID');
    });
  });
}
