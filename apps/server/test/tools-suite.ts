/**
 * The HTTP suite for the personal and organization tools (issue 15) — drafts, saved
 * snippets, alert words, bot storage, code playgrounds, video calls and the drafts setting
 * of PATCH /settings — run against every mode. Every refused request is checked to have
 * left the state as it was.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { del, eventsUntil, expectRefused, patch, suiteServer, type Reply } from './suite-kit';

/** A small storage limit, so that exceeding it takes a small request. */
const STORAGE_LIMIT = 1000;
const JITSI = 'https://meet.example.org';
export const TOOLS_ENV = { TEAMCHAT_BOT_STORAGE_LIMIT: String(STORAGE_LIMIT), TEAMCHAT_JITSI_SERVER_URL: JITSI };

export function toolsSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`personal and organization tools (${mode})`, () => {
    const { clients, ids } = suiteServer(() => start(TOOLS_ENV), ['owner', 'admin', 'member', 'member2', 'guest', 'bot']);
    let owner: Client;
    let admin: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    let bot: Client;
    const channels: Record<string, number> = {};

    beforeAll(async () => {
      ({ owner, admin, member, member2, guest, bot } = clients);
      const registered = await owner.post('/register', { fetch_event_types: ['subscription'] });
      for (const s of registered.body.subscriptions) channels[s.name] = s.stream_id;
    });

    const refusedWith = (reply: Reply, code?: string, status?: number) => expectRefused(reply, { code, status });
    const register = async (client: Client, event_types: string[]) => (await client.post('/register', { event_types })).body;

    describe('drafts', () => {
      const draft = (over: Record<string, unknown> = {}) => ({ type: 'stream', to: [channels.general], topic: 'plans', content: 'draft text', ...over });

      it('creates, lists (most recently edited first), edits and deletes drafts, with drafts events to the owner only', async () => {
        const mine = await register(member, ['drafts']);
        const theirs = await register(member2, ['drafts']);
        const created = await member.post('/drafts', {
          drafts: [draft({ timestamp: 1000 }), draft({ type: 'private', to: [ids.member2!, ids.member2!], topic: 'ignored', timestamp: 3000 }), draft({ type: '', to: [5], topic: 'x' })],
        });
        expect(created.body.result).toBe('success');
        const [a, b, c] = created.body.ids as number[];
        const listed = (await member.get('/drafts')).body;
        expect(listed.count).toBe(3);
        // The unaddressed one has the server's time, the newest.
        expect(listed.drafts.map((d: any) => d.id)).toEqual([c, b, a]);
        expect(listed.drafts[1]).toEqual({ id: b, type: 'private', to: [ids.member2], topic: '', content: 'draft text', timestamp: 3000 });
        expect(listed.drafts[0]).toMatchObject({ type: '', to: [], topic: '' });
        expect(Math.abs(listed.drafts[0].timestamp - Date.now() / 1000)).toBeLessThan(60);

        expect((await patch(member, `/drafts/${a}`, { draft: draft({ content: 'edited', timestamp: 4_000_000_000 }) })).body.result).toBe('success');
        expect((await member.get('/drafts')).body.drafts[0]).toMatchObject({ id: a, content: 'edited', timestamp: 4_000_000_000 });
        expect((await del(member, `/drafts/${b}`)).body.result).toBe('success');
        expect((await member.get('/drafts')).body.drafts.map((d: any) => d.id)).toEqual([a, c]);

        const events = await eventsUntil(member, mine.queue_id, (e) => e.filter((x) => x.type === 'drafts').length >= 3);
        expect(events.map((e) => e.op)).toEqual(['add', 'update', 'remove']);
        expect(events[0].drafts).toHaveLength(3);
        expect(events[1].draft).toMatchObject({ id: a, content: 'edited' });
        expect(events[2]).toMatchObject({ draft_id: b });
        expect(await eventsUntil(member2, theirs.queue_id, () => false)).toEqual([]);
        expect((await member2.get('/drafts')).body).toMatchObject({ count: 0, drafts: [] });
        await del(member, `/drafts/${a}`);
        await del(member, `/drafts/${c}`);
      });

      it('refuses bad drafts with a clear error and changes nothing', async () => {
        const id = (await member.post('/drafts', { drafts: [draft()] })).body.ids[0];
        const before = (await member.get('/drafts')).body;
        const bad: [string, Record<string, unknown>][] = [
          ['two channels', draft({ to: [channels.general, channels.engineering] })],
          ['no channel', draft({ to: [] })],
          ['an unknown channel', draft({ to: [999999] })],
          ['a private channel the user may not post to', draft({ to: [channels.leadership] })],
          ['an unknown user', draft({ type: 'private', to: [999999] })],
          ['a null byte in the content', draft({ content: 'a\u0000b' })],
          ['a null byte in the topic', draft({ topic: 'a\u0000b' })],
          ['an overlong content', draft({ content: 'x'.repeat(10001) })],
          ['an overlong topic', draft({ topic: 't'.repeat(61) })],
          ['an unknown type', draft({ type: 'direct' })],
          ['a string for to', draft({ to: 'general' })],
          ['a missing content', { type: '', to: [], topic: '' }],
          ['a negative timestamp', draft({ timestamp: -5 })],
          ['an unknown member', draft({ extra: 1 })],
        ];
        for (const [why, body] of bad) {
          const created = await member.post('/drafts', { drafts: [body] });
          expect([why, created.body.code]).toEqual([why, 'BAD_REQUEST']);
          const edited = await patch(member, `/drafts/${id}`, { draft: body });
          expect([why, edited.body.code]).toEqual([why, 'BAD_REQUEST']);
        }
        refusedWith(await member.post('/drafts', { drafts: 'not json' }));
        refusedWith(await member.post('/drafts', {}));
        refusedWith(await patch(member, `/drafts/${id}`, {}));
        // Another user's draft, and one that never existed, do not exist.
        refusedWith(await patch(member2, `/drafts/${id}`, { draft: draft() }));
        refusedWith(await del(member2, `/drafts/${id}`));
        refusedWith(await patch(member, '/drafts/987654', { draft: draft() }));
        refusedWith(await del(member, '/drafts/987654'));
        refusedWith(await del(member, '/drafts/abc'));
        expect((await member.get('/drafts')).body).toEqual(before);
        expect((await member2.get('/drafts')).body.count).toBe(0);
        await del(member, `/drafts/${id}`);
      });

      it('turning enable_drafts_synchronization off deletes every draft without a drafts event, and refuses new ones', async () => {
        await member2.post('/drafts', { drafts: [draft(), draft({ content: 'two' })] });
        const queue = await register(member2, ['drafts', 'user_settings']);
        const off = await patch(member2, '/settings', { enable_drafts_synchronization: false, no_such_setting: true });
        expect(off.body.result).toBe('success');
        expect(off.body.ignored_parameters_unsupported).toEqual(['no_such_setting']);
        expect((await member2.get('/drafts')).body).toMatchObject({ count: 0, drafts: [] });
        const events = await eventsUntil(member2, queue.queue_id, (e) => e.some((x) => x.type === 'user_settings'));
        expect(events).toEqual([{ id: expect.any(Number), type: 'user_settings', op: 'update', property: 'enable_drafts_synchronization', value: false }]);
        refusedWith(await member2.post('/drafts', { drafts: [draft()] }));
        expect((await member2.get('/drafts')).body.count).toBe(0);
        const state = (await member2.post('/register', { fetch_event_types: ['user_settings', 'drafts'] })).body;
        expect(state.user_settings.enable_drafts_synchronization).toBe(false);
        expect(state.drafts).toEqual([]);
        refusedWith(await patch(member2, '/settings', { enable_drafts_synchronization: 'maybe' }));
        expect((await patch(member2, '/settings', { enable_drafts_synchronization: true })).body.result).toBe('success');
        expect((await member2.post('/drafts', { drafts: [draft()] })).body.result).toBe('success');
        const again = (await member2.get('/drafts')).body;
        await del(member2, `/drafts/${again.drafts[0].id}`);
      });
    });

    describe('saved snippets', () => {
      it('creates, lists, edits and deletes snippets, with saved_snippets events to the owner', async () => {
        const queue = await register(member, ['saved_snippets']);
        const created = await member.post('/saved_snippets', { title: ' Greeting ', content: 'Hello **there**' });
        const id = created.body.saved_snippet_id as number;
        expect(Number.isInteger(id)).toBe(true);
        const listed = (await member.get('/saved_snippets')).body.saved_snippets;
        expect(listed).toEqual([{ id, title: 'Greeting', content: 'Hello **there**', date_created: expect.any(Number) }]);
        expect((await patch(member, `/saved_snippets/${id}`, { content: 'Hi' })).body.result).toBe('success');
        expect((await member.get('/saved_snippets')).body.saved_snippets[0]).toMatchObject({ title: 'Greeting', content: 'Hi' });
        expect((await member2.get('/saved_snippets')).body.saved_snippets).toEqual([]);
        expect((await del(member, `/saved_snippets/${id}`)).body.result).toBe('success');
        expect((await member.get('/saved_snippets')).body.saved_snippets).toEqual([]);
        const events = await eventsUntil(member, queue.queue_id, (e) => e.length >= 3);
        expect(events.map((e) => [e.type, e.op])).toEqual([
          ['saved_snippets', 'add'],
          ['saved_snippets', 'update'],
          ['saved_snippets', 'remove'],
        ]);
        expect(events[2].saved_snippet_id).toBe(id);
      });

      it('refuses empty, overlong or null-byte titles and contents, unknown and other users\' snippets, and changes nothing', async () => {
        const id = (await member.post('/saved_snippets', { title: 'Kept', content: 'kept' })).body.saved_snippet_id;
        const before = (await member.get('/saved_snippets')).body;
        for (const body of [
          { title: '', content: 'x' },
          { title: '   ', content: 'x' },
          { title: 'x', content: '' },
          { title: 'x' },
          { content: 'x' },
          { title: 'a\u0000', content: 'x' },
          { title: 'x', content: 'a\u0000' },
          { title: 't'.repeat(61), content: 'x' },
          { title: 'x', content: 'c'.repeat(10001) },
        ]) {
          refusedWith(await member.post('/saved_snippets', body));
        }
        refusedWith(await patch(member, `/saved_snippets/${id}`, {}));
        refusedWith(await patch(member, `/saved_snippets/${id}`, { title: '' }));
        refusedWith(await patch(member, `/saved_snippets/${id}`, { content: ' ' }));
        refusedWith(await patch(member, '/saved_snippets/424242', { title: 'x' }));
        refusedWith(await patch(member2, `/saved_snippets/${id}`, { title: 'stolen' }));
        refusedWith(await del(member2, `/saved_snippets/${id}`));
        refusedWith(await del(member, '/saved_snippets/424242'));
        expect((await member.get('/saved_snippets')).body).toEqual(before);
        await del(member, `/saved_snippets/${id}`);
      });
    });

    describe('alert words', () => {
      it('adds (trimmed, lower-cased, once), lists and removes alert words, with alert_words events', async () => {
        const queue = await register(member2, ['alert_words']);
        expect((await member2.post('/users/me/alert_words', { alert_words: [' Kraken ', 'kraken', 'Release notes'] })).body.alert_words).toEqual([
          'kraken',
          'release notes',
        ]);
        expect((await member2.get('/users/me/alert_words')).body.alert_words).toEqual(['kraken', 'release notes']);
        expect((await del(member2, '/users/me/alert_words', { alert_words: ['RELEASE NOTES', 'never added'] })).body.alert_words).toEqual(['kraken']);
        const events = await eventsUntil(member2, queue.queue_id, (e) => e.length >= 2);
        expect(events.map((e) => e.alert_words)).toEqual([['kraken', 'release notes'], ['kraken']]);
        expect((await member.get('/users/me/alert_words')).body.alert_words).toEqual([]);
      });

      it('flags messages holding a recipient\'s alert word (whole word, any case, content or topic) in history, events and is:alerted', async () => {
        await member.post('/users/me/alert_words', { alert_words: ['basilisk'] });
        const queue = await register(member, ['message']);
        const hit = (await member2.post('/messages', { type: 'stream', to: 'general', topic: 'zoo', content: 'A BASILISK, seen!' })).body.id;
        const inTopic = (await member2.post('/messages', { type: 'stream', to: 'general', topic: 'basilisk sightings', content: 'nothing here' })).body.id;
        const partial = (await member2.post('/messages', { type: 'stream', to: 'general', topic: 'zoo', content: 'basilisks and xbasilisk' })).body.id;
        const direct = (await member2.post('/messages', { type: 'direct', to: [ids.member], content: 'basilisk?' })).body.id;
        const own = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'zoo', content: 'my basilisk' })).body.id;
        const flagsOf = async (id: number) => (await member.get(`/messages/${id}`)).body.message.flags as string[];
        expect(await flagsOf(hit)).toContain('has_alert_word');
        expect(await flagsOf(inTopic)).toContain('has_alert_word');
        expect(await flagsOf(direct)).toContain('has_alert_word');
        expect(await flagsOf(partial)).not.toContain('has_alert_word');
        expect(await flagsOf(own)).not.toContain('has_alert_word');
        // Only the recipient with the word is alerted.
        expect((await member2.get(`/messages/${hit}`)).body.message.flags).not.toContain('has_alert_word');
        const alerted = await member.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] });
        expect(alerted.body.messages.map((m: any) => m.id)).toEqual([hit, inTopic, direct]);
        const events = await eventsUntil(member, queue.queue_id, (e) => e.filter((x) => x.type === 'message').length >= 5);
        const flagged = events.filter((e) => e.type === 'message' && e.flags.includes('has_alert_word')).map((e) => e.message.id);
        expect(flagged).toEqual([hit, inTopic, direct]);
        await del(member, '/users/me/alert_words', { alert_words: ['basilisk'] });
      });

      it('follows an edit of the content: the flag comes and goes with the word, in history and update_message events', async () => {
        await member.post('/users/me/alert_words', { alert_words: ['griffin'] });
        const id = (await member2.post('/messages', { type: 'stream', to: 'general', topic: 'zoo', content: 'nothing yet' })).body.id;
        const flagsOf = async () => (await member.get(`/messages/${id}`)).body.message.flags as string[];
        expect(await flagsOf()).not.toContain('has_alert_word');
        const queue = await register(member, ['update_message']);
        expect((await member2.request('PATCH', `/messages/${id}`, { content: 'a Griffin!' })).status).toBe(200);
        expect(await flagsOf()).toContain('has_alert_word');
        const alerted = await member.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] });
        expect(alerted.body.messages.map((m: any) => m.id)).toContain(id);
        expect((await member2.request('PATCH', `/messages/${id}`, { content: 'gone again' })).status).toBe(200);
        expect(await flagsOf()).not.toContain('has_alert_word');
        const edits = await eventsUntil(member, queue.queue_id, (e) => e.filter((x) => x.type === 'update_message').length >= 2);
        expect(edits.filter((e) => e.type === 'update_message').map((e) => e.flags.includes('has_alert_word'))).toEqual([true, false]);
        await del(member, '/users/me/alert_words', { alert_words: ['griffin'] });
      });

      it('refuses empty, overlong, null-byte and wrongly typed alert words, and changes nothing', async () => {
        await member.post('/users/me/alert_words', { alert_words: ['steady'] });
        for (const alert_words of [[''], ['  '], ['w'.repeat(101)], ['a\u0000b'], [1], 'steady', { a: 1 }]) {
          refusedWith(await member.post('/users/me/alert_words', { alert_words }));
        }
        refusedWith(await member.post('/users/me/alert_words', {}));
        refusedWith(await del(member, '/users/me/alert_words', { alert_words: [''] }));
        expect((await member.get('/users/me/alert_words')).body.alert_words).toEqual(['steady']);
        await del(member, '/users/me/alert_words', { alert_words: ['steady'] });
      });
    });

    describe('bot storage', () => {
      it('stores, overwrites, reads and removes a bot\'s keys', async () => {
        expect((await bot.request('PUT', '/bot_storage', { storage: { a: '1', b: '2', 'ключ': 'значение' } })).body.result).toBe('success');
        expect((await bot.request('PUT', '/bot_storage', { storage: { a: 'one' } })).body.result).toBe('success');
        expect((await bot.get('/bot_storage')).body.storage).toEqual({ a: 'one', b: '2', 'ключ': 'значение' });
        expect((await bot.get('/bot_storage', { keys: ['b'] })).body.storage).toEqual({ b: '2' });
        expect((await del(bot, '/bot_storage', { keys: ['b'] })).body.result).toBe('success');
        expect((await bot.get('/bot_storage')).body.storage).toEqual({ a: 'one', 'ключ': 'значение' });
        expect((await del(bot, '/bot_storage')).body.result).toBe('success');
        expect((await bot.get('/bot_storage')).body.storage).toEqual({});
      });

      it('refuses unknown keys, the storage limit, wrong types, and every user who is not a bot, changing nothing', async () => {
        await bot.request('PUT', '/bot_storage', { storage: { kept: 'x'.repeat(100) } });
        const before = (await bot.get('/bot_storage')).body.storage;
        refusedWith(await bot.get('/bot_storage', { keys: ['missing'] }));
        refusedWith(await del(bot, '/bot_storage', { keys: ['kept', 'missing'] }));
        // Keys plus values over the limit: the new entry (899 + 1 characters) and the kept one (104).
        refusedWith(await bot.request('PUT', '/bot_storage', { storage: { k: 'v'.repeat(STORAGE_LIMIT - 101) } }));
        refusedWith(await bot.request('PUT', '/bot_storage', { storage: { n: 5 } }));
        refusedWith(await bot.request('PUT', '/bot_storage', { storage: ['x'] }));
        refusedWith(await bot.request('PUT', '/bot_storage', {}));
        expect((await bot.get('/bot_storage')).body.storage).toEqual(before);
        // Exactly at the limit is allowed.
        expect((await bot.request('PUT', '/bot_storage', { storage: { k: 'v'.repeat(STORAGE_LIMIT - 105) } })).body.result).toBe('success');
        for (const human of [owner, admin, member, guest]) {
          refusedWith(await human.request('PUT', '/bot_storage', { storage: { a: 'b' } }), 'PERMISSION_DENIED');
          refusedWith(await human.get('/bot_storage'), 'PERMISSION_DENIED');
          refusedWith(await del(human, '/bot_storage'), 'PERMISSION_DENIED');
        }
        await del(bot, '/bot_storage');
      });
    });

    describe('code playgrounds', () => {
      it('administrators add and remove playgrounds; everyone gets realm_playgrounds events and register state', async () => {
        const queues = await Promise.all([member, guest].map((c) => register(c, ['realm_playgrounds'])));
        const added = await admin.post('/realm/playgrounds', { name: 'Compiler Explorer', lexer_language: 'c', url_template: 'https://godbolt.org/z?code={code}' });
        const id = added.body.id as number;
        const other = (await owner.post('/realm/playgrounds', { name: 'Rust', lexer_language: 'rust', url_template: 'https://play.rust-lang.org/{?code}' })).body.id;
        const list = [
          { id, name: 'Compiler Explorer', lexer_language: 'c', url_template: 'https://godbolt.org/z?code={code}' },
          { id: other, name: 'Rust', lexer_language: 'rust', url_template: 'https://play.rust-lang.org/{?code}' },
        ];
        expect((await guest.post('/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds).toEqual(list);
        expect((await del(admin, `/realm/playgrounds/${id}`)).body.result).toBe('success');
        for (const [i, client] of [member, guest].entries()) {
          const events = await eventsUntil(client, queues[i]!.queue_id, (e) => e.length >= 3);
          expect(events.map((e) => e.realm_playgrounds)).toEqual([[list[0]], list, [list[1]]]);
        }
        await del(owner, `/realm/playgrounds/${other}`);
      });

      it('refuses non-administrators, invalid templates and names, and unknown playgrounds, changing nothing', async () => {
        const valid = { name: 'Python', lexer_language: 'python', url_template: 'https://python.example/?src={code}' };
        for (const client of [member, guest, bot]) refusedWith(await client.post('/realm/playgrounds', valid));
        for (const url_template of [
          'https://x.example/{code',
          'https://x.example/{other}',
          'https://x.example/{code}/{other}',
          'https://x.example/no-variable',
          'https://x.example/}{code}',
          'javascript:{code}',
          '{code}',
          `https://x.example/${'p'.repeat(200)}{code}`,
        ]) {
          refusedWith(await admin.post('/realm/playgrounds', { ...valid, url_template }));
        }
        refusedWith(await admin.post('/realm/playgrounds', { ...valid, name: '' }));
        refusedWith(await admin.post('/realm/playgrounds', { ...valid, lexer_language: ' ' }));
        refusedWith(await admin.post('/realm/playgrounds', { ...valid, name: 'a\u0000' }));
        refusedWith(await admin.post('/realm/playgrounds', { name: 'x', lexer_language: 'x' }));
        expect((await admin.post('/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds).toEqual([]);
        const id = (await admin.post('/realm/playgrounds', valid)).body.id;
        refusedWith(await admin.post('/realm/playgrounds', valid));
        refusedWith(await member.request('DELETE', `/realm/playgrounds/${id}`));
        refusedWith(await admin.request('DELETE', '/realm/playgrounds/777777'));
        expect((await admin.post('/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds).toHaveLength(1);
        await del(admin, `/realm/playgrounds/${id}`);
      });
    });

    describe('video calls', () => {
      it('makes a fresh, unguessable meeting URL on the configured server; has_meeting_token in register state', async () => {
        const first = await member.post('/calls/meeting/create');
        const second = await guest.post('/calls/meeting/create');
        expect(first.body.url).toMatch(new RegExp(`^${JITSI}/[0-9a-f]{32}$`));
        expect(second.body.url).not.toBe(first.body.url);
        expect((await member.post('/register', { fetch_event_types: ['has_meeting_token'] })).body.has_meeting_token).toBe(true);
      });
    });

    it('register state holds every tool section, the same after the read models are asked again', async () => {
      await member.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'state' }] });
      await member.post('/saved_snippets', { title: 'State', content: 'state' });
      await member.post('/users/me/alert_words', { alert_words: ['state'] });
      const state = (await member.post('/register', { fetch_event_types: ['drafts', 'saved_snippets', 'alert_words', 'realm_playgrounds', 'has_meeting_token'] })).body;
      expect(state.drafts).toEqual((await member.get('/drafts')).body.drafts);
      expect(state.saved_snippets).toEqual((await member.get('/saved_snippets')).body.saved_snippets);
      expect(state.alert_words).toEqual(['state']);
      expect(state.realm_playgrounds).toEqual([]);
    });
  });
}

/** With no provider configured, POST /calls/meeting/create is a clear BAD_REQUEST. */
export function videoCallsUnconfiguredSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`video calls without a provider (${mode})`, () => {
    const { clients } = suiteServer(start, ['member']);
    it('refuses to create a meeting and says has_meeting_token false', async () => {
      const { member } = clients;
      const reply = await member.post('/calls/meeting/create');
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: expect.stringMatching(/video call provider/) });
      expect((await member.post('/register', { fetch_event_types: ['has_meeting_token'] })).body.has_meeting_token).toBe(false);
    });
  });
}
