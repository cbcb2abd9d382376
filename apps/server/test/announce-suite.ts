/**
 * New-channel announcements (POST /users/me/subscriptions with `announce`), run against
 * every mode: the notification bot posts in the organization's announcements channel
 * (general in the development organization), under the topic "new channels", for public
 * channels only, and only when asked.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT } from '@teamchat/contracts';
import type { Client, RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export function announceSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`new-channel announcements (${mode})`, () => {
    const { clients, ids } = suiteServer(start, ['member', 'member2']);
    let member: Client;
    let member2: Client;
    let memberId: number;

    beforeAll(() => {
      ({ member, member2 } = clients);
      memberId = ids.member;
    });

    const announcements = async (client: Client) =>
      (await client.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'new channels' }] })).body
        .messages as any[];
    const create = (name: string, params: Record<string, unknown>) =>
      member.post('/users/me/subscriptions', { subscriptions: [{ name, description: 'Where *rockets* are built' }], ...params });

    it("posts the notification bot's announcement of a new public channel in general, which its subscribers receive", async () => {
      const queue = (await member2.post('/register', { event_types: ['message'] })).body.queue_id as string;
      const before = await announcements(member2);
      expect((await create('launchpad', { announce: true })).body.result).toBe('success');
      // The creator reads their own write; the announcement's subscribers a moment later.
      const mine = await announcements(member);
      expect(mine).toHaveLength(before.length + 1);
      const message = mine.at(-1);
      expect(message).toMatchObject({
        sender_id: NOTIFICATION_BOT.user_id,
        sender_email: 'notification-bot@zulip.com',
        sender_full_name: 'Notification Bot',
        client: 'Internal',
        type: 'stream',
        display_recipient: 'general',
        subject: 'new channels',
      });
      expect(message.content).toContain('launchpad');
      expect(message.content).toContain('class="stream"');
      expect(message.content).toContain(`class="user-mention silent" data-user-id="${memberId}"`);
      expect(message.content).toContain('<blockquote>');
      // Nobody is notified by the silent mention.
      expect(message.flags).not.toContain('mentioned');

      const deadline = Date.now() + 5000;
      let events: any[] = [];
      while (Date.now() < deadline) {
        events = (await member2.get('/events', { queue_id: queue, last_event_id: -1, dont_block: true })).body.events;
        if (events.some((e) => e.type === 'message')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(events.filter((e) => e.type === 'message').map((e) => e.message.id)).toEqual([message.id]);
    });

    it('announces nothing for private channels, nor unless asked', async () => {
      const before = (await announcements(member)).length;
      expect((await create('hangar', { announce: true, invite_only: true })).body.result).toBe('success');
      expect((await create('workshop', { announce: false })).body.result).toBe('success');
      expect((await create('garage', {})).body.result).toBe('success');
      expect(await announcements(member)).toHaveLength(before);
      // An existing channel is not announced again.
      expect((await create('launchpad', { announce: true })).body.result).toBe('success');
      expect(await announcements(member)).toHaveLength(before);
    });
  });
}
