/**
 * The HTTP suite for scheduled messages and reminders (issue 17), run against every mode:
 * the endpoints and their events, delivery at the scheduled time through the normal send
 * path (exactly once: the distributed run has two messaging instances racing for each),
 * a failure recorded and reported, delivery after messaging was down at the due time,
 * every role, and every refusal leaving the state as it was.
 *
 * Times are whole seconds (Zulip's scheduled_delivery_timestamp), so a delivery test
 * schedules one to two seconds ahead and polls: the wait is the clock's, not a sleep.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { del, eventsUntil, expectRefused, patch, suiteServer, waitFor, type Reply } from './suite-kit';

export interface ScheduledServer extends RunningServer {
  /** Stops messaging (every instance), runs `meanwhile`, and starts it again on the same data. */
  whileMessagingIsDown(meanwhile: () => Promise<void>): Promise<void>;
}

const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A whole second at least `seconds` ahead. */
const inSeconds = (seconds: number) => Math.ceil(Date.now() / 1000) + seconds;

export function scheduledSuite(mode: string, start: () => Promise<ScheduledServer>) {
  describe(`scheduled messages and reminders (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'echo-bot'], 120_000);
    const { clients, ids }: { clients: Record<string, Client>; ids: Record<string, number> } = suite;
    const channels: Record<string, number> = {};
    let serial = 0;
    const unique = (prefix: string) => `${prefix}-${++serial}-${Date.now() % 100000}`;

    beforeAll(async () => {
      const registered = await clients.owner!.post('/register', { fetch_event_types: ['subscription'] });
      for (const s of registered.body.subscriptions) channels[s.name] = s.stream_id;
    });

    const refusedWith = (reply: Reply, msg: string | RegExp, status?: number, code?: string) => expectRefused(reply, { msg, status, code });
    const listed = async (client: Client) => (await client.get('/scheduled_messages')).body.scheduled_messages as any[];
    const reminders = async (client: Client) => (await client.get('/reminders')).body.reminders as any[];
    const register = async (client: Client, event_types: string[]) => (await client.post('/register', { event_types })).body;
    const eventsOf = (client: Client, queue_id: string, until: (events: any[]) => boolean, ms = 8000) => eventsUntil(client, queue_id, until, { ms });
    /** Messages in a channel's topic with this content, as the reader sees them. */
    async function inChannel(reader: Client, channel: string, topic: string, content: string): Promise<any[]> {
      const narrow = [
        { operator: 'channel', operand: channel },
        { operator: 'topic', operand: topic },
      ];
      const body = (await reader.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, apply_markdown: false })).body;
      return (body.messages as any[]).filter((m) => m.content === content);
    }
    /** The newest direct message from the notification bot to `client`. */
    async function lastNotice(client: Client): Promise<any | undefined> {
      const body = (await client.get('/messages', { anchor: 'newest', num_before: 30, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }], apply_markdown: false })).body;
      return (body.messages as any[]).filter((m) => m.sender_email === NOTIFICATION_BOT_EMAIL).at(-1);
    }

    describe('POST, GET, PATCH, DELETE /scheduled_messages', () => {
      it('schedules, lists, edits and deletes, with scheduled_messages events and register state for the owner only', async () => {
        const member = clients.member!;
        const mine = await register(member, ['scheduled_messages']);
        const theirs = await register(clients.member2!, ['scheduled_messages']);
        const at = inSeconds(3600);
        const channelMessage = await member.post('/scheduled_messages', { type: 'stream', to: channels.general, topic: 'plans', content: '**later**', scheduled_delivery_timestamp: at });
        expect(channelMessage.body.result).toBe('success');
        const a = channelMessage.body.scheduled_message_id as number;
        const b = (await member.post('/scheduled_messages', { type: 'direct', to: JSON.stringify([ids.member2]), content: 'psst', scheduled_delivery_timestamp: at - 60 })).body.scheduled_message_id as number;
        const expectedA = { scheduled_message_id: a, type: 'stream', to: channels.general, topic: 'plans', content: '**later**', rendered_content: '<p><strong>later</strong></p>', scheduled_delivery_timestamp: at, failed: false };
        const expectedB = { scheduled_message_id: b, type: 'private', to: [ids.member2], content: 'psst', rendered_content: '<p>psst</p>', scheduled_delivery_timestamp: at - 60, failed: false };
        // In delivery order.
        expect(await listed(member)).toEqual([expectedB, expectedA]);
        expect(await listed(clients.member2!)).toEqual([]);
        const state = (await member.post('/register', { fetch_event_types: ['scheduled_messages'] })).body;
        expect(state.scheduled_messages).toEqual([expectedB, expectedA]);

        expect((await patch(member, `/scheduled_messages/${a}`, { topic: 'new plans', scheduled_delivery_timestamp: at + 60 })).body.result).toBe('success');
        const expectedA2 = { ...expectedA, topic: 'new plans', scheduled_delivery_timestamp: at + 60 };
        expect((await listed(member)).find((m) => m.scheduled_message_id === a)).toEqual(expectedA2);
        // Changing the type needs the recipients (and a topic for a channel).
        expect((await patch(member, `/scheduled_messages/${b}`, { type: 'stream', to: channels.general, topic: 'was direct' })).body.result).toBe('success');
        const expectedB2 = { ...expectedB, type: 'stream', to: channels.general, topic: 'was direct' };
        expect((await listed(member)).find((m) => m.scheduled_message_id === b)).toEqual(expectedB2);
        expect((await del(member, `/scheduled_messages/${b}`)).body.result).toBe('success');
        expect(await listed(member)).toEqual([expectedA2]);

        const events = await eventsOf(member, mine.queue_id, (e) => e.length >= 5);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'scheduled_messages', op: 'add', scheduled_messages: [expectedA] },
          { type: 'scheduled_messages', op: 'add', scheduled_messages: [expectedB] },
          { type: 'scheduled_messages', op: 'update', scheduled_message: expectedA2 },
          { type: 'scheduled_messages', op: 'update', scheduled_message: expectedB2 },
          { type: 'scheduled_messages', op: 'remove', scheduled_message_id: b },
        ]);
        expect(await eventsOf(clients.member2!, theirs.queue_id, () => false, 300)).toEqual([]);
        expect((await del(member, `/scheduled_messages/${a}`)).body.result).toBe('success');
      });

      it('refuses bad input with a clear error and changes nothing', async () => {
        const member = clients.member!;
        const kept = (await member.post('/scheduled_messages', { type: 'stream', to: channels.general, topic: 'kept', content: 'kept', scheduled_delivery_timestamp: inSeconds(3600) })).body.scheduled_message_id;
        const before = await listed(member);
        // A member given as undefined is left out of the request.
        const create = (over: Record<string, unknown>) => {
          const params: Record<string, unknown> = { type: 'stream', to: channels.general, topic: 'x', content: 'x', scheduled_delivery_timestamp: inSeconds(3600), ...over };
          return member.post('/scheduled_messages', Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)));
        };
        const past = 'Scheduled delivery time must be in the future.';
        refusedWith(await create({ scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) - 1 }), past);
        refusedWith(await create({ scheduled_delivery_timestamp: 0 }), past);
        refusedWith(await create({ scheduled_delivery_timestamp: 'soon' }), /scheduled_delivery_timestamp/);
        refusedWith(await create({ scheduled_delivery_timestamp: undefined }), /scheduled_delivery_timestamp/);
        refusedWith(await create({ type: 'carrier-pigeon' }), /type/);
        refusedWith(await create({ content: '   ' }), 'Message must not be empty');
        refusedWith(await create({ content: 'x'.repeat(10_001) }), /Message too long/);
        refusedWith(await create({ to: 999_999 }), /Channel with ID '999999' does not exist|does not exist/, 400, 'STREAM_DOES_NOT_EXIST');
        refusedWith(await create({ to: channels.leadership }), "Not authorized to send to channel 'leadership'");
        refusedWith(await create({ topic: undefined }), "Missing 'topic' argument");
        refusedWith(await create({ type: 'direct', to: JSON.stringify([999_999]) }), 'Invalid user ID 999999');
        // The guest is not subscribed to engineering.
        refusedWith(await clients.guest!.post('/scheduled_messages', { type: 'stream', to: channels.engineering, topic: 'x', content: 'x', scheduled_delivery_timestamp: inSeconds(3600) }), "Not authorized to send to channel 'engineering'");

        refusedWith(await patch(member, `/scheduled_messages/${kept}`, {}), 'Nothing to change');
        refusedWith(await patch(member, `/scheduled_messages/${kept}`, { type: 'direct' }), 'Recipient required when updating type of scheduled message.');
        refusedWith(await patch(member, `/scheduled_messages/${kept}`, { type: 'stream', to: channels.general }), 'Topic required when updating scheduled message type to stream.');
        refusedWith(await patch(member, `/scheduled_messages/${kept}`, { scheduled_delivery_timestamp: 10 }), past);
        refusedWith(await patch(member, `/scheduled_messages/${kept}`, { to: channels.leadership }), "Not authorized to send to channel 'leadership'");
        refusedWith(await patch(member, `/scheduled_messages/${kept}`, { content: '' }), 'Message must not be empty');
        refusedWith(await patch(member, '/scheduled_messages/999999', { content: 'x' }), 'Scheduled message does not exist', 404);
        refusedWith(await del(member, '/scheduled_messages/999999'), 'Scheduled message does not exist', 404);
        // Someone else's is as if it did not exist; so is a reminder's id.
        refusedWith(await patch(clients.member2!, `/scheduled_messages/${kept}`, { content: 'mine now' }), 'Scheduled message does not exist', 404);
        refusedWith(await del(clients.owner!, `/scheduled_messages/${kept}`), 'Scheduled message does not exist', 404);
        refusedWith(await del(member, `/reminders/${kept}`), 'Reminder does not exist', 404);
        expect(await listed(member)).toEqual(before);
        await del(member, `/scheduled_messages/${kept}`);
      });

      it('every role schedules its own and sees only its own', async () => {
        const roles = ['owner', 'admin', 'moderator', 'member', 'guest', 'echo-bot'];
        const created: Record<string, number> = {};
        for (const role of roles) {
          const reply = await clients[role]!.post('/scheduled_messages', { type: 'direct', to: JSON.stringify([ids[role]]), content: `note to self ${role}`, scheduled_delivery_timestamp: inSeconds(7200) });
          expect(reply.body.result).toBe('success');
          created[role] = reply.body.scheduled_message_id;
        }
        for (const role of roles) {
          expect((await listed(clients[role]!)).map((m) => m.scheduled_message_id)).toEqual([created[role]]);
          // Nobody, not even the owner of the organization, may change another's.
          const other = roles[(roles.indexOf(role) + 1) % roles.length]!;
          refusedWith(await del(clients[role]!, `/scheduled_messages/${created[other]}`), 'Scheduled message does not exist', 404);
        }
        for (const role of roles) expect((await del(clients[role]!, `/scheduled_messages/${created[role]}`)).body.result).toBe('success');
      });
    });

    describe('delivery', () => {
      it('sends each due message exactly once through the normal send path, and removes it from the list', async () => {
        const member = clients.member!;
        const queue = await register(member, ['scheduled_messages']);
        const at = inSeconds(2);
        const contents = [unique('due'), unique('due'), unique('due')];
        const scheduledIds: number[] = [];
        for (const content of contents) {
          scheduledIds.push((await member.post('/scheduled_messages', { type: 'stream', to: 'general', topic: 'due', content, scheduled_delivery_timestamp: at })).body.scheduled_message_id);
        }
        const direct = unique('due-direct');
        await member.post('/scheduled_messages', { type: 'direct', to: JSON.stringify([ids.member2]), content: direct, scheduled_delivery_timestamp: at });
        await waitFor('delivery', async () => ((await listed(member)).length === 0 ? true : undefined));
        // Seen by another subscriber: each once, sent by the member at (or just after) the scheduled time.
        const reader = clients.member2!;
        for (const content of contents) {
          const found = await inChannel(reader, 'general', 'due', content);
          expect(found).toHaveLength(1);
          expect(found[0]).toMatchObject({ sender_id: ids.member, subject: 'due' });
          expect(found[0].timestamp).toBeGreaterThanOrEqual(at);
        }
        const dms = (await reader.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'dm', operand: [ids.member] }], apply_markdown: false })).body.messages as any[];
        expect(dms.filter((m) => m.content === direct)).toHaveLength(1);
        // Still once a while later (another instance, a retried claim, would show here).
        await sleep(1500);
        for (const content of contents) expect(await inChannel(reader, 'general', 'due', content)).toHaveLength(1);
        const events = await eventsOf(member, queue.queue_id, (e) => e.filter((x) => x.op === 'remove').length >= 4);
        const removed = events.filter((e) => e.op === 'remove').map((e) => e.scheduled_message_id);
        expect(removed).toHaveLength(4);
        expect(new Set(removed).size).toBe(4);
        for (const id of scheduledIds) expect(removed).toContain(id);
      });

      it('a refusal at delivery time (the channel archived since) is recorded as failed and reported by the notification bot', async () => {
        const member = clients.member!;
        const name = unique('doomed');
        expect((await member.post('/users/me/subscriptions', { subscriptions: [{ name }] })).body.result).toBe('success');
        const channelId = (await member.get('/get_stream_id', { stream: name })).body.stream_id as number;
        const queue = await register(member, ['scheduled_messages']);
        const id = (await member.post('/scheduled_messages', { type: 'stream', to: channelId, topic: 't', content: 'never', scheduled_delivery_timestamp: inSeconds(2) })).body.scheduled_message_id;
        expect((await del(clients.admin!, `/streams/${channelId}`)).body.result).toBe('success');
        const failed = await waitFor('the failure', async () => (await listed(member)).find((m) => m.scheduled_message_id === id && m.failed));
        expect(failed).toMatchObject({ failed: true, content: 'never' });
        const events = await eventsOf(member, queue.queue_id, (e) => e.some((x) => x.op === 'update'));
        expect(events.find((e) => e.op === 'update')).toMatchObject({ type: 'scheduled_messages', op: 'update', scheduled_message: { scheduled_message_id: id, failed: true } });
        const notice = await waitFor('the notice', async () => {
          const last = await lastNotice(member);
          return last && String(last.content).includes('was not sent') ? last : undefined;
        });
        expect(notice.content).toContain(`Not authorized to send to channel '${name}'`);
        expect(notice.sender_email).toBe(NOTIFICATION_BOT_EMAIL);
        // A failed one needs a new time to be tried again.
        refusedWith(await patch(member, `/scheduled_messages/${id}`, { content: 'again' }), 'Scheduled delivery time must be in the future.');
        expect((await patch(member, `/scheduled_messages/${id}`, { scheduled_delivery_timestamp: inSeconds(3600) })).body.result).toBe('success');
        expect((await listed(member)).find((m) => m.scheduled_message_id === id)).toMatchObject({ failed: false });
        await del(member, `/scheduled_messages/${id}`);
      });

      it('delivers what fell due while messaging was down, once, after it starts again', async () => {
        const member = clients.member!;
        const content = unique('while-down');
        await member.post('/scheduled_messages', { type: 'stream', to: 'general', topic: 'restart', content, scheduled_delivery_timestamp: inSeconds(2) });
        await suite.server.whileMessagingIsDown(async () => {
          await sleep(3000);
        });
        const found = await waitFor('the delivery after the restart', async () => {
          const messages = await inChannel(clients.member2!, 'general', 'restart', content);
          return messages.length > 0 ? messages : undefined;
        }, 30_000);
        expect(found).toHaveLength(1);
        await sleep(1000);
        expect(await inChannel(clients.member2!, 'general', 'restart', content)).toHaveLength(1);
        expect(await listed(member)).toEqual([]);
      }, 90_000);
    });

    describe('POST, GET, DELETE /reminders', () => {
      it('reminds the user later with a notification-bot message linking the message, with reminders events', async () => {
        const member = clients.member!;
        const content = unique('remember me');
        const messageId = (await clients.member2!.post('/messages', { type: 'stream', to: 'general', topic: 'remind', content })).body.id as number;
        const queue = await register(member, ['reminders']);
        const at = inSeconds(2);
        const created = await member.post('/reminders', { message_id: messageId, scheduled_delivery_timestamp: at, note: 'call back' });
        expect(created.body.result).toBe('success');
        const id = created.body.reminder_id as number;
        const [reminder] = await reminders(member);
        expect(reminder).toMatchObject({ reminder_id: id, type: 'private', to: [ids.member], scheduled_delivery_timestamp: at, failed: false, reminder_target_message_id: messageId });
        expect(reminder.content).toContain('Note:\n > call back');
        expect((await member.post('/register', { fetch_event_types: ['reminders'] })).body.reminders).toEqual([reminder]);
        expect(await reminders(clients.member2!)).toEqual([]);

        await waitFor('the reminder', async () => ((await reminders(member)).length === 0 ? true : undefined));
        const notice = await waitFor('the notice', async () => {
          const last = await lastNotice(member);
          return last && String(last.content).includes(content) ? last : undefined;
        });
        expect(notice.sender_email).toBe(NOTIFICATION_BOT_EMAIL);
        expect(notice.display_recipient.map((u: any) => u.id).sort()).toEqual([ids.member, notice.sender_id].sort());
        expect(notice.content).toContain(`/near/${messageId}`);
        expect(notice.content).toContain(`#**general>remind@${messageId}**`);
        const events = await eventsOf(member, queue.queue_id, (e) => e.some((x) => x.op === 'remove'));
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'reminders', op: 'add', reminders: [reminder] },
          { type: 'reminders', op: 'remove', reminder_id: id },
        ]);
      });

      it('deletes a reminder before it is due, and refuses bad input changing nothing', async () => {
        const member = clients.member!;
        const visible = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'remind', content: unique('x') })).body.id as number;
        const hidden = (await clients.owner!.post('/messages', { type: 'stream', to: 'leadership', topic: 'secret', content: unique('secret') })).body.id as number;
        const id = (await member.post('/reminders', { message_id: visible, scheduled_delivery_timestamp: inSeconds(3600) })).body.reminder_id as number;
        const before = await reminders(member);
        refusedWith(await member.post('/reminders', { message_id: hidden, scheduled_delivery_timestamp: inSeconds(3600) }), 'Invalid message(s)');
        refusedWith(await member.post('/reminders', { message_id: 999_999_999, scheduled_delivery_timestamp: inSeconds(3600) }), 'Invalid message(s)');
        refusedWith(await member.post('/reminders', { message_id: visible, scheduled_delivery_timestamp: 100 }), 'Scheduled delivery time must be in the future.');
        refusedWith(await member.post('/reminders', { message_id: visible, scheduled_delivery_timestamp: inSeconds(3600), note: 'n'.repeat(1001) }), 'Maximum reminder note length: 1000 characters');
        refusedWith(await member.post('/reminders', { message_id: 'abc', scheduled_delivery_timestamp: inSeconds(3600) }), /message_id/);
        refusedWith(await del(clients.member2!, `/reminders/${id}`), 'Reminder does not exist', 404);
        refusedWith(await del(member, '/reminders/999999'), 'Reminder does not exist', 404);
        refusedWith(await del(member, `/scheduled_messages/${id}`), 'Scheduled message does not exist', 404);
        expect(await reminders(member)).toEqual(before);
        expect((await del(member, `/reminders/${id}`)).body.result).toBe('success');
        expect(await reminders(member)).toEqual([]);
      });

      it('every role may set reminders on messages it can see', async () => {
        const messageId = (await clients.owner!.post('/messages', { type: 'stream', to: 'general', topic: 'all', content: unique('for all') })).body.id as number;
        for (const role of ['owner', 'admin', 'moderator', 'member', 'guest', 'echo-bot']) {
          const reply = await clients[role]!.post('/reminders', { message_id: messageId, scheduled_delivery_timestamp: inSeconds(3600) });
          expect(reply.body.result).toBe('success');
          expect((await reminders(clients[role]!)).map((r) => r.reminder_id)).toEqual([reply.body.reminder_id]);
          expect((await del(clients[role]!, `/reminders/${reply.body.reminder_id}`)).body.result).toBe('success');
        }
      });
    });
  });
}
