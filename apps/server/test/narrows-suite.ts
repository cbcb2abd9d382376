/**
 * The HTTP suite for GET /messages narrows and anchors, run against every mode: each
 * operator (object and legacy forms) and its negation, the anchors including `date`,
 * message formatting options, and the privacy rules — personal history, readable channel
 * history, channels:public, private channels and direct messages never leaking. Every
 * refused request is checked to have changed nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { suiteServer } from './suite-kit';

type Term = { operator: string; operand: unknown; negated?: boolean } | [string, unknown];

export function narrowsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`narrows (${mode})`, () => {
    const { clients, ids } = suiteServer(start, ['member', 'member2', 'owner', 'guest']);
    let member: Client;
    let member2: Client;
    let owner: Client;
    let guest: Client;
    const channelIds: Record<string, number> = {};
    /** Message ids by name, sent in beforeAll. */
    const m: Record<string, number> = {};
    // A word nobody else writes, so searches see only this suite's messages.
    const w = `zq${Date.now().toString(36)}`;

    const send = async (client: Client, params: Record<string, unknown>) => {
      const res = await client.post('/messages', params);
      expect(res.body).toMatchObject({ result: 'success' });
      return res.body.id as number;
    };
    const toChannel = (client: Client, to: string, topic: string, content: string) => send(client, { type: 'stream', to, topic, content });

    /** The ids `client` gets for a narrow (newest first page, ascending). */
    async function idsOf(client: Client, narrow: Term[], params: Record<string, unknown> = {}): Promise<number[]> {
      const res = await client.get('/messages', { anchor: 'newest', num_before: 1000, num_after: 0, narrow, ...params });
      expect({ narrow, status: res.status, msg: res.body.msg }).toEqual({ narrow, status: 200, msg: '' });
      return res.body.messages.map((x: any) => x.id);
    }
    const page = async (client: Client, params: Record<string, unknown>) => {
      const res = await client.get('/messages', params);
      expect({ params, status: res.status, msg: res.body.msg }).toEqual({ params, status: 200, msg: '' });
      return res.body;
    };

    beforeAll(async () => {
      ({ member, member2, owner, guest } = clients);

      m.lunch = await toChannel(owner, 'general', 'Lunch', `${w} pizza today?`);
      m.lunchReply = await toChannel(member, 'general', 'lunch', `${w} yes, **Pizza** please`);
      m.mention = await toChannel(owner, 'general', 'lunch', `${w} @**Mark Member** are you coming?`);
      m.emptyTopic = await toChannel(owner, 'general', 'general chat', `${w} in the empty topic`);
      m.link = await toChannel(owner, 'general', 'links', `${w} see https://example.com/page`);
      m.image = await toChannel(owner, 'general', 'links', `${w} [cat](https://example.com/cat.png)`);
      m.attachment = await toChannel(owner, 'general', 'links', `${w} [report](/user_uploads/2/ab/report.pdf)`);
      m.resolved = await toChannel(owner, 'general', '✔ deploy', `${w} shipped the release notes`);
      m.noise = await toChannel(owner, 'general', 'noise', `${w} chatter`);
      m.watch = await toChannel(owner, 'general', 'watching', `${w} keep an eye here`);
      m.engineering = await toChannel(member, 'engineering', 'build', `${w} the build is green`);
      m.engineeringOwner = await toChannel(owner, 'engineering', 'build', `${w} release tomorrow`);
      m.leadership = await toChannel(owner, 'leadership', 'budget', `${w} confidential salaries pizza`);
      m.dm = await send(member, { type: 'direct', to: [ids.owner], content: `${w} private pizza between us` });
      m.group = await send(owner, { type: 'direct', to: [ids.member, ids.member2], content: `${w} group plans` });

      const general = (await member.get('/messages', { message_ids: [m.lunch] })).body.messages[0];
      channelIds.general = general.stream_id;
      channelIds.engineering = (await owner.get('/messages', { message_ids: [m.engineering] })).body.messages[0].stream_id;
      channelIds.leadership = (await owner.get('/messages', { message_ids: [m.leadership] })).body.messages[0].stream_id;

      await member.post('/messages/flags', { messages: [m.lunch, m.noise], op: 'add', flag: 'starred' });
      await member.post('/messages/flags', { messages: [m.lunch, m.link], op: 'add', flag: 'read' });
      await member.post(`/messages/${m.noise}/reactions`, { emoji_name: 'octopus' });
      await member.post('/user_topics', { stream_id: channelIds.general, topic: 'watching', visibility_policy: 3 });
      await member.post('/user_topics', { stream_id: channelIds.general, topic: 'noise', visibility_policy: 1 });
    }, 60_000);

    const ch = (name: string | number, topic?: string): Term[] => [
      { operator: 'channel', operand: name },
      ...(topic !== undefined ? [{ operator: 'topic', operand: topic }] : []),
    ];
    const not = (operator: string, operand: unknown): Term => ({ operator, operand, negated: true });
    const mine: Term = { operator: 'search', operand: w };

    describe('operators', () => {
      it('narrows by channel (name or id), topic (any case, "general chat" for the empty topic) and legacy forms', async () => {
        const lunch = [m.lunch, m.lunchReply, m.mention];
        expect(await idsOf(member, [...ch('general', 'LUNCH')])).toEqual(lunch);
        expect(await idsOf(member, [...ch(channelIds.general!, 'lunch')])).toEqual(lunch);
        expect(await idsOf(member, [['stream', 'general'], ['subject', 'lunch']])).toEqual(lunch);
        expect(await idsOf(member, [...ch('general', 'general chat')])).toEqual([m.emptyTopic]);
        expect(await idsOf(member, [mine, ['topic', 'lunch']])).toEqual(lunch);
        const notLunch = await idsOf(member, [...ch('general'), mine, not('topic', 'lunch'), not('topic', 'links')]);
        expect(notLunch).toEqual([m.emptyTopic, m.resolved, m.noise, m.watch]);
        const notGeneral = await idsOf(member, [mine, not('channel', 'general')]);
        expect(notGeneral).toEqual([m.engineering, m.engineeringOwner, m.dm, m.group]);
      });

      it('narrows by sender (id, email or me) and its negation', async () => {
        expect(await idsOf(member, [mine, { operator: 'sender', operand: 'me' }])).toEqual([m.lunchReply, m.engineering, m.dm]);
        expect(await idsOf(member, [mine, ['sender', 'member@example.com']])).toEqual([m.lunchReply, m.engineering, m.dm]);
        expect(await idsOf(member, [mine, ['sender', ids.member]])).toEqual([m.lunchReply, m.engineering, m.dm]);
        const others = await idsOf(member, [...ch('general', 'lunch'), not('sender', 'me')]);
        expect(others).toEqual([m.lunch, m.mention]);
      });

      it('narrows direct messages: dm (ids, emails, comma-separated), dm-including, is:dm and is:private', async () => {
        expect(await idsOf(member, [{ operator: 'dm', operand: [ids.owner] }])).toEqual([m.dm]);
        expect(await idsOf(member, [['pm-with', 'owner@example.com']])).toEqual([m.dm]);
        expect(await idsOf(member, [['dm', 'owner@example.com,member2@example.com']])).toEqual([m.group]);
        expect(await idsOf(member, [['dm-including', ids.owner]])).toEqual([m.dm, m.group]);
        expect(await idsOf(member, [['group-pm-with', 'member2@example.com']])).toEqual([m.group]);
        expect(await idsOf(member, [mine, not('dm-including', ids.member2), ['is', 'dm']])).toEqual([m.dm]);
        expect(await idsOf(member, [mine, ['is', 'dm']])).toEqual([m.dm, m.group]);
        expect(await idsOf(member, [mine, ['is', 'private']])).toEqual([m.dm, m.group]);
        const channelOnly = await idsOf(member, [mine, not('is', 'dm'), ['sender', 'me']]);
        expect(channelOnly).toEqual([m.lunchReply, m.engineering]);
      });

      it('searches words and quoted phrases over content and topic, case-insensitively, all needed', async () => {
        expect(await idsOf(member, [mine, { operator: 'search', operand: 'PIZZA' }])).toEqual([m.lunch, m.lunchReply, m.dm]);
        expect(await idsOf(member, [mine, ['search', 'pizza please']])).toEqual([m.lunchReply]);
        expect(await idsOf(member, [mine, ['search', '"release notes"']])).toEqual([m.resolved]);
        expect(await idsOf(member, [mine, ['search', '"notes release"']])).toEqual([]);
        // The topic is searched too: "watching" only appears as a topic.
        expect(await idsOf(member, [mine, ['search', 'watching']])).toEqual([m.watch]);
        expect(await idsOf(member, [...ch('general', 'lunch'), not('search', 'pizza')])).toEqual([m.mention]);
      });

      it('reads query syntax as punctuation and operator names as words, and refuses searches too long or too many words', async () => {
        const pizza = [m.lunch, m.lunchReply, m.dm];
        for (const operand of ['pizza*', '"pizza', 'pizza"', '^pizza', '(pizza', 'pizza)', '-pizza', 'pizza:', '"pizza" *', 'pizza -- "', '((pizza', '{pizza}']) {
          expect({ operand, ids: await idsOf(member, [mine, ['search', operand]]) }).toEqual({ operand, ids: pizza });
        }
        const cases: [string, number[]][] = [
          ['pizza:please', [m.lunchReply]],
          ['"release notes', [m.resolved]],
          // "not" is a word, and the start of "notes".
          ['shipped NOT', [m.resolved]],
          ['NOT notes', [m.resolved]],
          // Words joined by punctuation are the phrase of their parts.
          ['NOT:notes', []],
          ['NEAR(pizza please)', []],
          ['pizza OR today', []],
          ['the', [m.emptyTopic, m.resolved, m.engineering]],
          ['THE "the"', [m.emptyTopic, m.resolved, m.engineering]],
        ];
        for (const [operand, expected] of cases) expect({ operand, ids: await idsOf(member, [mine, ['search', operand]]) }).toEqual({ operand, ids: expected });
        // Punctuation alone searches for nothing: the narrow is the rest of it.
        expect(await idsOf(member, [mine, ['search', '!!! " * :']])).toEqual(await idsOf(member, [mine]));
        const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
        expect(await idsOf(member, [mine, ['search', words(49)]])).toEqual([]);
        const refusals: [Term[], string][] = [
          [[['search', 'pizza '.repeat(200)]], 'too long'],
          [[mine, ['search', words(50)]], 'too many search words'],
          [Array.from({ length: 60 }, (_, i) => ['search', `w${i}`] as Term), 'too many search words'],
          [[mine, ['search', `"${words(50)}"`]], 'too many search words'],
        ];
        for (const [narrow, text] of refusals) {
          const res = await member.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow });
          expect({ text, status: res.status, code: res.body.code, msg: res.body.msg }).toEqual({ text, status: 400, code: 'BAD_REQUEST', msg: expect.stringContaining(text) });
        }
      });

      it('narrows by personal flags: is:unread, is:starred, is:mentioned, and their negations', async () => {
        const unread = await idsOf(member, [...ch('general'), mine, ['is', 'unread']]);
        // Only lunch and link were marked read: an API client's own messages stay unread.
        expect(unread).toEqual([m.lunchReply, m.mention, m.emptyTopic, m.image, m.attachment, m.resolved, m.noise, m.watch]);
        expect(await idsOf(member, [mine, ['is', 'starred']])).toEqual([m.lunch, m.noise]);
        expect(await idsOf(member, [mine, ['is', 'mentioned']])).toEqual([m.mention]);
        const readInLunch = await idsOf(member, [...ch('general', 'lunch'), not('is', 'unread')]);
        expect(readInLunch).toEqual([m.lunch]);
        expect(await idsOf(member, [...ch('general', 'lunch'), not('is', 'starred'), not('is', 'mentioned')])).toEqual([m.lunchReply]);
      });

      it('narrows by topic states: is:resolved, is:followed, is:muted and in:home', async () => {
        expect(await idsOf(member, [mine, ['is', 'resolved']])).toEqual([m.resolved]);
        // Followed explicitly, or automatically for having started the topic.
        expect(await idsOf(member, [mine, ['is', 'followed']])).toEqual([m.watch, m.engineering, m.engineeringOwner]);
        expect(await idsOf(member, [mine, ['is', 'muted']])).toEqual([m.noise]);
        const home = await idsOf(member, [mine, ['in', 'home'], ['channel', 'general']]);
        expect(home).not.toContain(m.noise);
        expect(home).toContain(m.watch);
        expect(await idsOf(member, [mine, not('is', 'resolved'), ['topic', '✔ deploy']])).toEqual([]);
      });

      it('narrows by has:link, has:image, has:attachment, has:reaction and their negations', async () => {
        expect(await idsOf(member, [mine, ['has', 'link']])).toEqual([m.link, m.image, m.attachment]);
        expect(await idsOf(member, [mine, ['has', 'image']])).toEqual([m.image]);
        expect(await idsOf(member, [mine, ['has', 'attachment']])).toEqual([m.attachment]);
        expect(await idsOf(member, [mine, ['has', 'reaction']])).toEqual([m.noise]);
        expect(await idsOf(member, [...ch('general', 'links'), not('has', 'image'), not('has', 'attachment')])).toEqual([m.link]);
        expect(await idsOf(member, [...ch('general', 'noise'), not('has', 'reaction')])).toEqual([]);
      });

      it('narrows to one message with id, anchors with near, and follows with to the conversation', async () => {
        expect(await idsOf(member, [['id', m.mention]])).toEqual([m.mention]);
        expect(await idsOf(member, [['id', m.mention], ['topic', 'links']])).toEqual([]);
        const near = await page(member, { narrow: [...ch('general', 'lunch'), ['near', m.lunchReply]], num_before: 1, num_after: 1 });
        expect(near).toMatchObject({ anchor: m.lunchReply, found_anchor: true });
        expect(near.messages.map((x: any) => x.id)).toEqual([m.lunch, m.lunchReply, m.mention]);
        expect(await idsOf(member, [...ch('engineering'), ['with', m.lunch]])).toEqual([m.lunch, m.lunchReply, m.mention]);
        expect(await idsOf(member, [['with', m.group]])).toEqual([m.group]);
      });
    });

    describe('anchors and formatting', () => {
      it('anchors at a date: first message on or after it, else the newest; refuses a missing or invalid anchor_date', async () => {
        const narrow = ch('general', 'lunch');
        const first = await page(member, { narrow, anchor: 'date', anchor_date: '2000-01-01', num_before: 0, num_after: 1 });
        expect(first).toMatchObject({ anchor: m.lunch, found_anchor: true, found_oldest: true, found_newest: false });
        expect(first.messages.map((x: any) => x.id)).toEqual([m.lunch, m.lunchReply]);
        const today = new Date().toISOString().slice(0, 10);
        const sameDay = await page(member, { narrow, anchor: 'date', anchor_date: today, num_before: 0, num_after: 0 });
        expect(sameDay.anchor).toBe(m.lunch);
        const future = await page(member, { narrow, anchor: 'date', anchor_date: '2999-12-31T23:59:59+02:00', num_before: 1, num_after: 0 });
        expect(future).toMatchObject({ found_anchor: false, found_newest: true });
        expect(future.messages.map((x: any) => x.id)).toEqual([m.mention]);
        const excluded = await page(member, { narrow, anchor: 'date', anchor_date: '2000-01-01', include_anchor: false, num_before: 0, num_after: 1 });
        expect(excluded.messages.map((x: any) => x.id)).toEqual([m.lunchReply]);
      });

      it('anchors at first_unread within the narrow, and takes message_ids filtered by the narrow', async () => {
        const first = await page(member, { narrow: [...ch('general'), mine], anchor: 'first_unread', num_before: 0, num_after: 0 });
        expect(first).toMatchObject({ anchor: m.lunchReply, found_anchor: true });
        const legacy = await page(member, { narrow: [...ch('general'), mine], use_first_unread_anchor: true, num_before: 0, num_after: 0 });
        expect(legacy.anchor).toBe(m.lunchReply);
        const filtered = await page(member, { message_ids: [m.lunch, m.dm, m.noise, m.leadership], narrow: [['is', 'starred']] });
        expect(filtered.messages.map((x: any) => x.id)).toEqual([m.lunch, m.noise]);
        expect(filtered).not.toHaveProperty('anchor');
      });

      it('formats messages by client_gravatar, apply_markdown and allow_empty_topic_name', async () => {
        const [plain] = (await page(member, { message_ids: [m.lunchReply] })).messages;
        expect(plain).toMatchObject({ avatar_url: null, content: expect.stringContaining('<strong>Pizza</strong>'), content_type: 'text/html' });
        const [raw] = (await page(member, { message_ids: [m.lunchReply], client_gravatar: false, apply_markdown: false })).messages;
        expect(raw).toMatchObject({ avatar_url: expect.stringContaining('gravatar.com'), content: `${w} yes, **Pizza** please`, content_type: 'text/x-markdown' });
        const [empty] = (await page(member, { narrow: ch('general', 'general chat'), anchor: 'newest', num_before: 1, num_after: 0 })).messages;
        expect(empty.subject).toBe('general chat');
        const [bare] = (await page(member, { narrow: ch('general', ''), anchor: 'newest', num_before: 1, num_after: 0, allow_empty_topic_name: true })).messages;
        expect(bare.subject).toBe('');
      });
    });

    describe('privacy', () => {
      it("never shows a private channel's messages to a non-subscriber, whatever the route", async () => {
        for (const narrow of [[['search', 'confidential']], [['channels', 'public'], ['search', 'confidential']], [['id', m.leadership]], [['dm-including', ids.owner], ['search', 'confidential']]] as Term[][]) {
          expect({ narrow, ids: await idsOf(member, narrow) }).toEqual({ narrow, ids: [] });
        }
        expect((await page(member, { message_ids: [m.leadership] })).messages).toEqual([]);
        const near = await page(member, { narrow: [['near', m.leadership]], num_before: 1, num_after: 1 });
        expect(near.found_anchor).toBe(false);
        expect(near.messages.map((x: any) => x.id)).not.toContain(m.leadership);
        const hidden = await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: ch('leadership') });
        expect(hidden.status).toBe(400);
        // Subscribers see it, from their personal history (its history is not shared).
        expect(await idsOf(owner, [...ch('leadership'), mine])).toEqual([m.leadership]);
        expect(await idsOf(owner, [mine, ['search', 'confidential']])).toEqual([m.leadership]);
      });

      it('reads the full history of a public channel the requester is not in, flagged read and historical', async () => {
        expect(await idsOf(member2, [mine, ['search', 'green']])).toEqual([]);
        expect(await idsOf(member2, [...ch('engineering'), ['search', 'green']])).toEqual([m.engineering]);
        const { messages } = await page(member2, { narrow: ch('engineering', 'build'), anchor: 'newest', num_before: 5, num_after: 0 });
        expect(messages.map((x: any) => [x.id, x.flags])).toEqual([
          [m.engineering, ['read', 'historical']],
          [m.engineeringOwner, ['read', 'historical']],
        ]);
        expect(await idsOf(member2, [...ch('engineering'), ['is', 'unread']])).toEqual([]);
      });

      it('covers all public channels for channels:public, but only their subscribed ones for guests', async () => {
        const everyone = await idsOf(member2, [['channels', 'public'], mine, ['search', 'green']]);
        expect(everyone).toEqual([m.engineering]);
        expect(await idsOf(member2, [['streams', 'public'], mine, ['search', 'release']])).toEqual([m.resolved, m.engineeringOwner]);
        expect(await idsOf(guest, [['channels', 'public'], mine, ['search', 'release']])).toEqual([m.resolved]);
        expect(await idsOf(guest, [...ch('engineering'), mine])).toEqual([]);
        expect((await page(guest, { message_ids: [m.engineering] })).messages).toEqual([]);
      });

      it('keeps direct messages to their participants', async () => {
        expect(await idsOf(member2, [mine, ['search', 'private']])).toEqual([]);
        expect(await idsOf(member2, [['dm-including', ids.member]])).toEqual([m.group]);
        expect((await page(member2, { message_ids: [m.dm, m.group] })).messages.map((x: any) => x.id)).toEqual([m.group]);
        expect(await idsOf(guest, [['is', 'dm'], mine])).toEqual([]);
        expect(await idsOf(member2, [['dm', [ids.owner]]])).toEqual([]);
      });
    });

    describe('refusals', () => {
      it('refuses malformed narrows and anchors with BAD_REQUEST, changing nothing', async () => {
        const newest = async () => (await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).body.messages.at(-1).id;
        const unreadCount = async () => (await idsOf(member, [mine, ['is', 'unread']])).length;
        const [newestBefore, unreadBefore] = [await newest(), await unreadCount()];
        const base = { anchor: 'newest', num_before: 1, num_after: 0 };
        const cases: [Record<string, unknown>, string][] = [
          [{ ...base, narrow: [{ operator: 'frobnicate', operand: 'x' }] }, "unknown operator 'frobnicate'"],
          [{ ...base, narrow: [['channel', 'no-such-channel']] }, 'unknown channel'],
          [{ ...base, narrow: [['channel', 99999]] }, 'unknown channel'],
          [{ ...base, narrow: [['topic', ['a', 'b']]] }, 'topic'],
          [{ ...base, narrow: [['sender', 'ghost@example.com']] }, 'unknown user'],
          [{ ...base, narrow: [['dm', [99999]]] }, 'unknown user'],
          [{ ...base, narrow: [['dm-including', 'ghost@example.com']] }, 'unknown user'],
          [{ ...base, narrow: [['is', 'shiny']] }, "'is' operand"],
          [{ ...base, narrow: [['has', 'video']] }, "'has' operand"],
          [{ ...base, narrow: [['channels', 'private']] }, "'channels' operand"],
          [{ ...base, narrow: [['id', 'first']] }, 'message id'],
          [{ ...base, narrow: [['near', 'x']] }, 'message id'],
          [{ ...base, narrow: [not('dm', [ids.owner])] }, 'cannot be negated'],
          [{ ...base, narrow: [['channel', 'general'], ['channel', 'engineering']] }, 'only one channel'],
          [{ ...base, narrow: [['with', 1], ['with', 2]] }, "'with'"],
          [{ ...base, narrow: [{ operator: 'search' }] }, 'narrow'],
          [{ anchor: 'date', num_before: 1, num_after: 0 }, 'anchor_date'],
          [{ anchor: 'date', anchor_date: 'next tuesday', num_before: 1, num_after: 0 }, 'anchor_date'],
          [{ anchor: 'date', anchor_date: '2024-02-30', num_before: 1, num_after: 0 }, 'anchor_date'],
          [{ anchor: 'newest', use_first_unread_anchor: true, num_before: 1, num_after: 0 }, 'exclusive'],
          [{ message_ids: [m.lunch], include_anchor: false }, 'include_anchor'],
          [{ message_ids: [m.lunch], use_first_unread_anchor: true }, 'use_first_unread_anchor'],
          [{ message_ids: Array.from({ length: 5001 }, (_, i) => i + 1) }, '5000'],
          [{ anchor: 'newest', num_before: 2500, num_after: 2501 }, '5000'],
        ];
        for (const [params, text] of cases) {
          const res = await member.get('/messages', params);
          expect({ params, status: res.status, code: res.body.code }).toEqual({ params, status: 400, code: 'BAD_REQUEST' });
          expect({ params, msg: res.body.msg }).toEqual({ params, msg: expect.stringContaining(text) });
        }
        // The same narrows refused by POST /messages/flags/narrow mark nothing read.
        for (const narrow of [[['is', 'shiny']], [['channel', 'leadership']], [['search', w], ['frobnicate', 1]]]) {
          const res = await member.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow, op: 'add', flag: 'read' });
          expect({ narrow, status: res.status, code: res.body.code }).toEqual({ narrow, status: 400, code: 'BAD_REQUEST' });
        }
        expect(await newest()).toBe(newestBefore);
        expect(await unreadCount()).toBe(unreadBefore);
      });

      it('marks read exactly what a narrow selects through POST /messages/flags/narrow', async () => {
        const narrow = [mine, ['has', 'attachment']];
        const res = await member.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow, op: 'add', flag: 'read' });
        expect(res.body).toMatchObject({ result: 'success', processed_count: 1, updated_count: 1, first_processed_id: m.attachment });
        expect(await idsOf(member, [mine, ['is', 'unread'], ['has', 'link']])).toEqual([m.image]);
      });
    });
  });
}
