/**
 * POST /register's initial state, run against every mode: the sections Zulip clients
 * read, fetch_event_types, what guests see, bad input, and the consistency of state and
 * queue (a change is in one of them exactly once).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT } from '@teamchat/contracts';

const NOTIFICATION_BOT_ID = NOTIFICATION_BOT.user_id;
import type { Client, RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export function registerSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`register state (${mode})`, () => {
    const { clients, ids } = suiteServer(start, ['admin', 'member', 'member2', 'guest']);
    let admin: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    beforeAll(() => {
      ({ admin, member, member2, guest } = clients);
    });

    it('returns every section for a default register', async () => {
      const sent = await member2.post('/messages', { type: 'direct', to: [ids.member], content: 'state?' });
      expect(sent.status).toBe(200);
      const { status, body } = await member.post('/register', {});
      expect(status).toBe(200);
      expect(body).toMatchObject({ result: 'success', last_event_id: -1, zulip_merge_base: expect.any(String), realm_name: expect.any(String) });
      expect(body.realm_users.map((u: { user_id: number }) => u.user_id)).toEqual(expect.arrayContaining([ids.member, ids.guest]));
      expect(body.realm_non_active_users).toEqual([]);
      // The system bots, outside the organization: the notification bot (which announces new channels in general) and the welcome bot.
      expect(body.cross_realm_bots).toEqual([
        expect.objectContaining({ user_id: NOTIFICATION_BOT_ID, email: 'notification-bot@zulip.com', full_name: 'Notification Bot', is_bot: true, is_system_bot: true }),
        expect.objectContaining({ user_id: 2_000_000_002, email: 'welcome-bot@zulip.com', full_name: 'Welcome Bot', is_bot: true, is_system_bot: true }),
      ]);
      expect(body.realm_new_stream_announcements_stream_id).toBe(body.subscriptions.find((s: { name: string }) => s.name === 'general').stream_id);
      expect(body.realm_bots).toEqual([]);
      expect(body.user_id).toBe(ids.member);
      expect(body.realm_user_groups.map((g: { name: string }) => g.name)).toContain('role:members');
      expect(body.subscriptions.map((s: { name: string }) => s.name).sort()).toEqual(['engineering', 'general']);
      expect(body.subscriptions[0].subscribers).toBeUndefined();
      expect(body.never_subscribed).toEqual([]);
      expect(body.unsubscribed).toEqual([]);
      expect(body.streams.map((s: { name: string }) => s.name).sort()).toEqual(['engineering', 'general']);
      expect(body.realm_default_streams).toHaveLength(1);
      expect(body.max_message_id).toBeGreaterThanOrEqual(sent.body.id);
      expect(body.unread_msgs).toMatchObject({ count: 1, streams: [], huddles: [], mentions: [], old_unreads_missing: false });
      expect(body.unread_msgs.pms).toEqual([{ other_user_id: ids.member2, sender_id: ids.member2, unread_message_ids: [sent.body.id] }]);
      expect(body.recent_private_conversations).toEqual([{ max_message_id: sent.body.id, user_ids: [ids.member2] }]);
      expect(body.user_topics).toEqual([]);
      expect(body.starred_messages).toEqual([]);
      expect(body.user_settings).toMatchObject({ enter_sends: false, timezone: expect.any(String) });
      // Only in user_settings, with or without the user_settings_object capability: Zulip
      // dropped the top-level copies at feature level 439.
      expect(body.enter_sends).toBeUndefined();
      const legacy = (await member.post('/register', { fetch_event_types: ['update_display_settings', 'update_global_notifications'] })).body;
      expect(legacy.enter_sends).toBeUndefined();
      expect(legacy.user_settings).toBeUndefined();
      for (const empty of ['muted_users', 'drafts', 'saved_snippets', 'alert_words', 'realm_linkifiers', 'realm_playgrounds', 'scheduled_messages']) {
        expect(body[empty]).toEqual([]);
      }
      for (const empty of ['user_status', 'presences', 'realm_emoji']) expect(body[empty]).toEqual({});
    });

    it('fetches only the sections asked for, following event_types by default', async () => {
      const onlyMessages = (await member.post('/register', { fetch_event_types: ['message'] })).body;
      expect(onlyMessages.max_message_id).toEqual(expect.any(Number));
      for (const absent of ['realm_users', 'subscriptions', 'streams', 'unread_msgs', 'muted_users', 'realm_name']) {
        expect(onlyMessages[absent]).toBeUndefined();
      }
      const streamsOnly = (await member.post('/register', { event_types: ['stream'] })).body;
      expect(streamsOnly.streams).toEqual(expect.any(Array));
      expect(streamsOnly.subscriptions).toBeUndefined();
      expect(streamsOnly.max_message_id).toBeUndefined();
      const withSubscribers = (await member.post('/register', { fetch_event_types: ['subscription'], include_subscribers: true })).body;
      const general = withSubscribers.subscriptions.find((s: { name: string }) => s.name === 'general');
      expect(general.subscribers).toEqual(expect.arrayContaining([ids.member, ids.member2, ids.guest]));
    });

    it('shows guests only what they may see, and bots only to their owners and administrators', async () => {
      const seen = (await guest.post('/register', { fetch_event_types: ['subscription', 'stream', 'realm_bot'] })).body;
      expect(seen.subscriptions.map((s: { name: string }) => s.name)).toEqual(['general']);
      expect(seen.never_subscribed).toEqual([]);
      expect(seen.streams.map((s: { name: string }) => s.name)).toEqual(['general']);
      expect(seen.realm_bots).toEqual([]);
      const memberView = (await member.post('/register', { fetch_event_types: ['stream'] })).body;
      expect(memberView.streams.map((s: { name: string }) => s.name)).not.toContain('leadership');
      const adminView = (await admin.post('/register', { fetch_event_types: ['realm_bot', 'stream'] })).body;
      expect(adminView.realm_bots).toEqual([expect.objectContaining({ email: 'echo-bot@example.com', api_key: expect.any(String) })]);
      expect(adminView.streams.map((s: { name: string }) => s.name)).toContain('leadership');
    });

    it('ignores unknown event types (as Zulip does) and refuses malformed capabilities or narrows', async () => {
      expect((await member.post('/register', { event_types: ['message', 'no_such_event'] })).status).toBe(200);
      expect((await member.post('/register', { fetch_event_types: ['realm_userz'] })).status).toBe(200);
      for (const client_capabilities of ['[1]', '{"notification_settings_null": "yes"}', '"x"']) {
        const bad = await member.post('/register', { client_capabilities });
        expect(bad.status).toBe(400);
        expect(bad.body.msg).toContain('client_capabilities');
      }
      const badNarrow = await member.post('/register', { narrow: '{"stream": 1}' });
      expect(badNarrow.status).toBe(400);
      expect(badNarrow.body.msg).toContain('narrow');
    });

    it('puts every change in the state or in the queue exactly once', async () => {
      const sends: Promise<number>[] = [];
      const registers: Promise<Record<string, any>>[] = [];
      for (let i = 0; i < 24; i++) {
        sends.push(member2.post('/messages', { type: 'direct', to: [ids.member], content: `race ${i}` }).then((r) => r.body.id as number));
        if (i % 3 === 0) registers.push(member.post('/register', { event_types: ['message', 'update_message_flags'] }).then((r) => r.body));
      }
      const sentIds = await Promise.all(sends);
      for (const state of await Promise.all(registers)) {
        expect(state.result).toBe('success');
        const inState = new Set<number>(state.unread_msgs.pms.flatMap((p: { unread_message_ids: number[] }) => p.unread_message_ids));
        const inQueue: number[] = [];
        const deadline = Date.now() + 5000;
        for (;;) {
          const { events } = (await member.get('/events', { queue_id: state.queue_id, last_event_id: -1, dont_block: true })).body;
          inQueue.splice(0, inQueue.length, ...events.filter((e: { type: string }) => e.type === 'message').map((e: { message: { id: number } }) => e.message.id));
          if (sentIds.every((id) => inState.has(id) || inQueue.includes(id)) || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        for (const id of sentIds) expect([id, Number(inState.has(id)) + inQueue.filter((q) => q === id).length]).toEqual([id, 1]);
        for (const id of inQueue) expect(id).toBeGreaterThan(state.max_message_id);
      }
    }, 30_000);

    it('puts each new subscription in the state or in the queue exactly once', async () => {
      const names = Array.from({ length: 9 }, (_, i) => `race-${mode}-${i}`);
      const subscribes: Promise<unknown>[] = [];
      const registers: Promise<Record<string, any>>[] = [];
      for (const [i, name] of names.entries()) {
        subscribes.push(admin.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [ids.member, ids.admin] }));
        if (i % 2 === 0) registers.push(member.post('/register', { event_types: ['subscription'] }).then((r) => r.body));
      }
      await Promise.all(subscribes);
      for (const state of await Promise.all(registers)) {
        const inState = state.subscriptions.map((s: { name: string }) => s.name);
        let inQueue: string[] = [];
        const deadline = Date.now() + 5000;
        for (;;) {
          const { events } = (await member.get('/events', { queue_id: state.queue_id, last_event_id: -1, dont_block: true })).body;
          inQueue = events
            .filter((e: { type: string; op: string }) => e.type === 'subscription' && e.op === 'add')
            .flatMap((e: { subscriptions: { name: string }[] }) => e.subscriptions.map((s) => s.name));
          if (names.every((n) => inState.includes(n) || inQueue.includes(n)) || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        for (const name of names) expect([name, [...inState, ...inQueue].filter((n) => n === name).length]).toEqual([name, 1]);
      }
    }, 30_000);

    it('converges: an earlier state plus its queued events equals a fresh register', async () => {
      const types = ['message', 'update_message_flags', 'starred_messages'];
      const earlier = (await member.post('/register', { event_types: types })).body;
      const unreadOf = (state: Record<string, any>) =>
        new Set<number>([
          ...state.unread_msgs.pms.flatMap((p: { unread_message_ids: number[] }) => p.unread_message_ids),
          ...state.unread_msgs.streams.flatMap((p: { unread_message_ids: number[] }) => p.unread_message_ids),
          ...state.unread_msgs.huddles.flatMap((p: { unread_message_ids: number[] }) => p.unread_message_ids),
        ]);
      const sent = [];
      for (let i = 0; i < 4; i++) sent.push((await member2.post('/messages', { type: 'stream', to: 'general', topic: 'converge', content: `c${i}` })).body.id as number);
      await member.post('/messages/flags', { messages: [sent[0], sent[2]], op: 'add', flag: 'read' });
      await member.post('/messages/flags', { messages: [sent[1]], op: 'add', flag: 'starred' });
      const fresh = (await member.post('/register', { event_types: types })).body;

      const unread = unreadOf(earlier);
      const starred = new Set<number>(earlier.starred_messages);
      let maxId = earlier.max_message_id as number;
      const { events } = (await member.get('/events', { queue_id: earlier.queue_id, last_event_id: -1, dont_block: true })).body;
      for (const event of events) {
        if (event.type === 'message') {
          maxId = Math.max(maxId, event.message.id);
          if (!event.flags.includes('read')) unread.add(event.message.id);
        } else if (event.type === 'update_message_flags' && event.flag === 'read') {
          for (const id of event.messages) event.op === 'add' ? unread.delete(id) : unread.add(id);
        } else if (event.type === 'update_message_flags' && event.flag === 'starred') {
          for (const id of event.messages) event.op === 'add' ? starred.add(id) : starred.delete(id);
        }
      }
      expect(maxId).toBe(fresh.max_message_id);
      expect([...unread].sort((a, b) => a - b)).toEqual([...unreadOf(fresh)].sort((a, b) => a - b));
      expect([...starred].sort((a, b) => a - b)).toEqual(fresh.starred_messages);
      expect(fresh.unread_msgs.count).toBe(unread.size);
    });

    it("counts unread messages as Zulip does: direct ones, and channel ones unless their channel or topic is muted", async () => {
      const name = `muting-${Date.now() % 100000}`;
      await admin.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [ids.admin, ids.member2] });
      const channelId = (await admin.get('/get_stream_id', { stream: name })).body.stream_id as number;
      for (const topic of ['alpha', 'beta', 'beta']) await admin.post('/messages', { type: 'stream', to: channelId, topic, content: 'news' });
      await admin.post('/messages', { type: 'direct', to: [ids.member2], content: 'psst' });
      const count = async () => (await member2.post('/register', { event_types: ['message', 'update_message_flags', 'subscription', 'user_topic'] })).body.unread_msgs.count as number;
      const mute = (value: boolean) => member2.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: channelId, property: 'is_muted', value }] });
      const topic = (name: string, visibility_policy: number) => member2.post('/user_topics', { stream_id: channelId, topic: name, visibility_policy });

      const all = await count();
      expect((await mute(true)).body.result).toBe('success');
      // Read-your-writes holds per service: messaging learns of the mute a moment later.
      const deadline = Date.now() + 5000;
      let muted = await count();
      while (muted === all && Date.now() < deadline) muted = await count();
      expect(muted).toBe(all - 3);
      expect((await topic('BETA', 3)).body.result).toBe('success');
      expect(await count()).toBe(all - 1);
      expect((await topic('beta', 2)).body.result).toBe('success');
      expect(await count()).toBe(all - 1);
      expect((await mute(false)).body.result).toBe('success');
      await topic('alpha', 1);
      let unmuted = await count();
      while (unmuted !== all - 1 && Date.now() < deadline + 5000) unmuted = await count();
      expect(unmuted).toBe(all - 1);
      await topic('alpha', 0);
      expect(await count()).toBe(all);
    });
  });
}
