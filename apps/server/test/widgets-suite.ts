/**
 * The HTTP suite for widgets (issue 37, item 3): a message starting with /poll or /todo is
 * sent with its widget (the first of its `submessages`), POST /submessage adds votes,
 * options, question and title edits, tasks and strikes, `submessage` events reach exactly
 * the message's readers, and GET /messages lists every message's submessages in order.
 * Who may add one: whoever may see the message, every role checked. Every refusal is
 * checked to have stored nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningServer } from './harness';
import {
  authorizationMatrix,
  DEV_USERS,
  eventsUntil,
  expectRefusedUnchanged,
  patch,
  suiteServer,
  type MatrixRow,
  type Reply,
  type SeededUser as Who,
} from './suite-kit';

const ROLES: Who[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

const stream = (to: string, topic: string, content: string) => ({ type: 'stream', to, topic, content });
const json = (data: unknown) => JSON.stringify(data);
const vote = (key: string, v = 1) => json({ type: 'vote', key, vote: v });

export function widgetsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`widgets: polls and to-do lists (${mode})`, () => {
    const { clients, ids } = suiteServer(start, DEV_USERS);
    let serial = 0;
    const topic = () => `widgets ${++serial}`;

    async function send(who: Who, params: Record<string, unknown>): Promise<number> {
      const sent = await clients[who].post('/messages', params);
      expect(sent.body.result).toBe('success');
      return sent.body.id;
    }
    const submessage = (who: Who, message_id: number, content: string, msg_type = 'widget') =>
      clients[who].post('/submessage', { message_id, msg_type, content });
    /** The message as its sender sees it (who may always see it). */
    const messageAs = async (who: Who, id: number) => (await clients[who].get(`/messages/${id}`)).body.message;
    const submessagesOf = async (id: number, who: Who = 'owner') => (await messageAs(who, id)).submessages as any[];

    describe('sending a widget', () => {
      it('a /poll message carries its widget: the question and options of its lines, in GET /messages and the message event', async () => {
        const queue = (await clients.member2.post('/register', { event_types: ['message'] })).body;
        const content = '/poll Where to eat?\nPizza\n- Sushi\n\n* Tacos';
        const id = await send('member', stream('general', topic(), content));
        const widget = { id, message_id: id, sender_id: ids.member, msg_type: 'widget', content: expect.any(String) };
        const listed = (await clients.member2.get('/messages', { anchor: id, num_before: 0, num_after: 0 })).body.messages;
        expect(listed).toHaveLength(1);
        expect(listed[0].submessages).toEqual([widget]);
        expect(JSON.parse(listed[0].submessages[0].content)).toEqual({
          widget_type: 'poll',
          extra_data: { question: 'Where to eat?', options: ['Pizza', 'Sushi', 'Tacos'] },
        });
        expect(listed[0].content).toContain('/poll Where to eat?');
        const events = await eventsUntil(clients.member2, queue.queue_id, (es) => es.some((e) => e.message?.id === id));
        const event = events.find((e) => e.message?.id === id);
        expect(event.message.submessages).toEqual(listed[0].submessages);
      });

      it('a /todo message carries its task list: title, then tasks with their descriptions', async () => {
        const id = await send('member', stream('general', topic(), '/todo Release\nTag: on main\nAnnounce'));
        const [widget] = await submessagesOf(id);
        expect(JSON.parse(widget.content)).toEqual({
          widget_type: 'todo',
          extra_data: { task_list_title: 'Release', tasks: [{ task: 'Tag', desc: 'on main' }, { task: 'Announce', desc: '' }] },
        });
      });

      it('every other message has an empty submessages list (a direct one too)', async () => {
        const id = await send('member', stream('general', topic(), 'just words about /poll'));
        expect(await submessagesOf(id)).toEqual([]);
        const dm = await send('member', { type: 'direct', to: json([ids.member2]), content: '/pollster' });
        expect(await submessagesOf(dm, 'member')).toEqual([]);
      });
    });

    describe('POST /submessage', () => {
      it('votes, new options and question edits are listed in order, each announced to the readers', async () => {
        const queue = (await clients.member2.post('/register', { event_types: ['submessage'] })).body;
        const id = await send('member', stream('general', topic(), '/poll Lunch?\nPizza\nSushi'));
        expect((await submessage('member2', id, vote('canned,1'))).body.result).toBe('success');
        const option = json({ type: 'new_option', option: 'Ramen', idx: 1 });
        expect((await submessage('guest', id, option)).body.result).toBe('success');
        expect((await submessage('owner', id, vote(`${ids.guest},1`))).body.result).toBe('success');
        expect((await submessage('member', id, json({ type: 'question', question: 'Dinner?' }))).body.result).toBe('success');
        expect((await submessage('member2', id, vote('canned,1', -1))).body.result).toBe('success');

        const listed = await submessagesOf(id, 'bot');
        expect(listed.map((s) => [s.sender_id, s.content])).toEqual([
          [ids.member, expect.stringContaining('"widget_type":"poll"')],
          [ids.member2, vote('canned,1')],
          [ids.guest, option],
          [ids.owner, vote(`${ids.guest},1`)],
          [ids.member, json({ type: 'question', question: 'Dinner?' })],
          [ids.member2, vote('canned,1', -1)],
        ]);
        const listedIds = listed.map((s) => s.id);
        expect([...listedIds].sort((a, b) => a - b)).toEqual(listedIds);
        expect(new Set(listedIds).size).toBe(listedIds.length);
        expect(listed.every((s) => s.message_id === id && s.msg_type === 'widget')).toBe(true);

        const events = await eventsUntil(clients.member2, queue.queue_id, (es) => es.filter((e) => e.type === 'submessage').length >= 5);
        expect(events.filter((e) => e.type === 'submessage')).toEqual(
          listed.slice(1).map((s) => ({ type: 'submessage', id: expect.any(Number), msg_type: 'widget', message_id: id, submessage_id: s.id, sender_id: s.sender_id, content: s.content })),
        );
      });

      it('to-do lists take new tasks, strikes and title edits by the author', async () => {
        const id = await send('owner', stream('general', topic(), '/todo Chores\nDishes'));
        const task = json({ type: 'new_task', key: 2, task: 'Laundry', desc: 'whites', completed: false });
        expect((await submessage('member', id, task)).body.result).toBe('success');
        expect((await submessage('guest', id, json({ type: 'strike', key: '0,canned' }))).body.result).toBe('success');
        expect((await submessage('bot', id, json({ type: 'strike', key: `2,${ids.member}` }))).body.result).toBe('success');
        expect((await submessage('owner', id, json({ type: 'new_task_list_title', title: 'Weekend' }))).body.result).toBe('success');
        expect((await submessagesOf(id)).slice(1).map((s) => s.sender_id)).toEqual([ids.member, ids.guest, ids.bot, ids.owner]);
      });

      it('submessage events reach exactly the readers: a private channel’s subscribers, a direct message’s participants', async () => {
        const watchers = ['owner', 'admin', 'member', 'member2', 'guest'] as const;
        const queues = Object.fromEntries(
          await Promise.all(watchers.map(async (w) => [w, (await clients[w].post('/register', { event_types: ['submessage'] })).body.queue_id] as const)),
        ) as Record<(typeof watchers)[number], string>;
        const secret = await send('owner', stream('leadership', topic(), '/poll Raise?\nyes\nno'));
        const dm = await send('member', { type: 'direct', to: json([ids.member2]), content: '/poll Coffee?\nnow\nlater' });
        expect((await submessage('admin', secret, vote('canned,0'))).body.result).toBe('success');
        expect((await submessage('member2', dm, vote('canned,1'))).body.result).toBe('success');
        // A later broadcast every watcher hears marks when the others had their chance.
        const everyone = await send('owner', stream('general', topic(), '/poll Fence?\nup'));
        expect((await submessage('owner', everyone, vote('canned,0'))).body.result).toBe('success');
        const heard: Record<string, number[]> = {};
        for (const w of watchers) {
          const events = await eventsUntil(clients[w], queues[w], (es) => es.some((e) => e.message_id === everyone));
          heard[w] = events.filter((e) => e.type === 'submessage').map((e) => e.message_id);
        }
        expect(heard).toEqual({
          owner: [secret, everyone],
          admin: [secret, everyone],
          member: [dm, everyone],
          member2: [dm, everyone],
          guest: [everyone],
        });
      });
    });

    describe('editing', () => {
      it('refuses a change to a widget’s content (“Widgets cannot be edited.”), and leaves it as sent', async () => {
        const id = await send('member', stream('general', topic(), '/poll Tea?\nyes'));
        await expectRefusedUnchanged(
          () => patch(clients.member, `/messages/${id}`, { content: '/poll Coffee?\nyes' }),
          { msg: 'Widgets cannot be edited.' },
          async () => {
            const message = await messageAs('member', id);
            return [message.content, message.submessages];
          },
        );
      });

      it('a widget’s topic can still change', async () => {
        const id = await send('member', stream('general', topic(), '/poll Moved?\nyes'));
        const moved = topic();
        expect((await patch(clients.member, `/messages/${id}`, { topic: moved })).body.result).toBe('success');
        const message = await messageAs('member', id);
        expect([message.subject, message.submessages.length]).toEqual([moved, 1]);
      });

      it('editing a message into /poll text makes no widget: widgets are made only when sending', async () => {
        const id = await send('member', stream('general', topic(), 'a plain message'));
        expect((await patch(clients.member, `/messages/${id}`, { content: '/poll Now?\nyes\nno' })).body.result).toBe('success');
        const message = await messageAs('member', id);
        expect([message.content, message.submessages]).toEqual([expect.stringContaining('/poll Now?'), []]);
        await expectRefusedUnchanged(() => submessage('member', id, vote('canned,0')), { msg: 'You cannot attach a submessage to this message.' }, () => submessagesOf(id));
      });
    });

    describe('bad input: a clear error and nothing stored', () => {
      let poll: number;
      let todo: number;
      let plain: number;
      let engineering: number;
      beforeAll(async () => {
        poll = await send('member', stream('general', topic(), '/poll Pick\none\ntwo'));
        todo = await send('member', stream('general', topic(), '/todo List\nfirst'));
        plain = await send('member', stream('general', topic(), 'no widget here'));
        engineering = await send('member', stream('engineering', topic(), '/poll Guests cannot see\nx'));
      });

      const cases: [string, () => [Who, number, string, string?], string][] = [
        ['content that is not JSON', () => ['member2', poll, '{"type": "vote",'], 'Invalid json for submessage'],
        ['a JSON array', () => ['member2', poll, '[]'], 'poll data must be a JSON object'],
        ['no type', () => ['member2', poll, json({ key: 'canned,0', vote: 1 })], 'poll data needs "type"'],
        ['an unknown poll type', () => ['member2', poll, json({ type: 'close' })], 'Unknown type for poll data: close'],
        ['a to-do type on a poll', () => ['member2', poll, json({ type: 'strike', key: '0,canned' })], 'Unknown type for poll data: strike'],
        ['a vote on an option that does not exist', () => ['member2', poll, vote('canned,7')], 'This poll has no option "canned,7"'],
        ['a vote of 5', () => ['member2', poll, vote('canned,0', 5)], 'poll data: "vote" must be 1 or -1'],
        ['a vote with an extra member', () => ['member2', poll, json({ type: 'vote', key: 'canned,0', vote: 1, weight: 2 })], 'poll data: unexpected "weight"'],
        ['a new option with an idx beyond 1000', () => ['member2', poll, json({ type: 'new_option', option: 'x', idx: 5000 })], 'poll data: "idx" must be from 0 to 1000'],
        ['a question edit by someone else', () => ['member2', poll, json({ type: 'question', question: 'Mine now' })], "Only the poll's author may edit its question."],
        ['a strike of a task that does not exist', () => ['member2', todo, json({ type: 'strike', key: '3,canned' })], 'This to-do list has no task "3,canned"'],
        ['a task without its description', () => ['member2', todo, json({ type: 'new_task', key: 1, task: 'x', completed: false })], 'todo data needs "desc"'],
        ['a title edit by someone else', () => ['member2', todo, json({ type: 'new_task_list_title', title: 'Mine' })], "Only the to-do list's author may edit its title."],
        ['a message that has no widget', () => ['member2', plain, vote('canned,0')], 'You cannot attach a submessage to this message.'],
        ['a message the sender cannot see', () => ['guest', engineering, vote('canned,0')], 'Invalid message(s)'],
        ['a message that does not exist', () => ['member2', poll + 1_000_000, vote('canned,0')], 'Invalid message(s)'],
        ['a msg_type other than widget', () => ['member2', poll, vote('canned,0'), 'zform'], 'Invalid msg_type: only "widget" submessages exist'],
      ];
      it.each(cases)('refuses %s', async (_, attempt, msg) => {
        const [who, id, content, msgType] = attempt();
        const target = id > 1_000_000 ? poll : id;
        await expectRefusedUnchanged(() => submessage(who, id, content, msgType), { msg }, () => submessagesOf(target, 'member'));
      });

      it('refuses missing or malformed parameters', async () => {
        const state = () => submessagesOf(poll, 'member');
        await expectRefusedUnchanged(() => clients.member2.post('/submessage', { message_id: poll, msg_type: 'widget' }), {}, state);
        await expectRefusedUnchanged(() => clients.member2.post('/submessage', { message_id: 'first', msg_type: 'widget', content: vote('canned,0') }), {}, state);
        await expectRefusedUnchanged(() => clients.member2.post('/submessage', { message_id: poll, content: vote('canned,0') }), {}, state);
      });
    });

    describe('who may add a submessage: whoever may see the message', () => {
      const polls: Record<string, number> = {};
      beforeAll(async () => {
        polls.general = await send('member', stream('general', topic(), '/poll Everyone?\nyes'));
        // Public, but the guest is not subscribed (nor are the moderator and the bot, who may read its history).
        polls.engineering = await send('member', stream('engineering', topic(), '/poll Public?\nyes'));
        polls.leadership = await send('owner', stream('leadership', topic(), '/poll Private?\nyes'));
        polls.direct = await send('member', { type: 'direct', to: json([ids.guest, ids.bot]), content: '/poll Three of us?\nyes' });
      });
      const attempt = (poll: string, content: (who: Who) => string) => (who: Who): Promise<Reply> => submessage(who, polls[poll]!, content(who));
      const matrix: MatrixRow<Who>[] = [
        ['vote on a poll in general', attempt('general', () => vote('canned,0')), ROLES],
        ['vote on a poll in a public channel', attempt('engineering', () => vote('canned,0')), ['owner', 'admin', 'moderator', 'member', 'bot']],
        ['vote on a poll in a private channel', attempt('leadership', () => vote('canned,0')), ['owner', 'admin']],
        ['vote on a poll in a direct message', attempt('direct', () => vote('canned,0')), ['member', 'guest', 'bot']],
        ['add an option to a poll in general', attempt('general', (who) => json({ type: 'new_option', option: `from ${who}`, idx: 1 })), ROLES],
        ["edit the question of the member's poll", attempt('general', (who) => json({ type: 'question', question: `by ${who}` })), ['member']],
      ];
      authorizationMatrix(matrix, ROLES);
    });
  });
}
