/**
 * Invariant 3 for the personal and organization tools: drafts, settings, saved snippets,
 * alert words (and the messages they flag), bot storage and playgrounds read the same after
 * every read model is dropped and rebuilt from the event store.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbedded } from './harness';
import { dropReadModels, scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();

describe('rebuilding the tools read models from the event store', () => {
  it('answers exactly as before after every read model is dropped', async () => {
    const dataDir = newDataDir();
    const first = await startEmbedded(dataDir);
    const [member, member2, admin, bot] = await Promise.all(['member', 'member2', 'admin', 'echo-bot'].map((n) => Client.login(first.api, `${n}@example.com`)));
    const patch = (client: Client, path: string, params: Record<string, unknown>) => client.request('PATCH', path, params, { query: false });

    const [d1, d2] = (await member.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'one' }, { type: '', to: [], topic: '', content: 'two' }] })).body.ids;
    await patch(member, `/drafts/${d1}`, { draft: { type: '', to: [], topic: '', content: 'one, edited', timestamp: 4_000_000_000 } });
    await member.request('DELETE', `/drafts/${d2}`);
    await member2.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'dropped' }] });
    await patch(member2, '/settings', { enable_drafts_synchronization: false });
    const s1 = (await member.post('/saved_snippets', { title: 'One', content: 'one' })).body.saved_snippet_id;
    await member.post('/saved_snippets', { title: 'Two', content: 'two' });
    await patch(member, `/saved_snippets/${s1}`, { content: 'uno' });
    await member.post('/users/me/alert_words', { alert_words: ['griffin', 'sphinx'] });
    await member.request('DELETE', '/users/me/alert_words', { alert_words: ['sphinx'] });
    await member2.post('/messages', { type: 'stream', to: 'general', topic: 'myths', content: 'a griffin!' });
    await bot.request('PUT', '/bot_storage', { storage: { a: '1', b: '2' } });
    await bot.request('DELETE', '/bot_storage', { keys: ['a'] });
    const p1 = (await admin.post('/realm/playgrounds', { name: 'Godbolt', lexer_language: 'c', url_template: 'https://godbolt.org/z?code={code}' })).body.id;
    await admin.post('/realm/playgrounds', { name: 'Rust', lexer_language: 'rust', url_template: 'https://play.rust-lang.org/{?code}' });
    await admin.request('DELETE', `/realm/playgrounds/${p1}`);

    const fetch = ['drafts', 'saved_snippets', 'alert_words', 'realm_playgrounds', 'user_settings'];
    const snapshot = async ([m, m2, b]: Client[]) => {
      const views: unknown[] = [];
      for (const client of [m!, m2!]) {
        views.push((await client.get('/drafts')).body, (await client.get('/saved_snippets')).body, (await client.get('/users/me/alert_words')).body);
        const { queue_id: _q, last_event_id: _l, ...state } = (await client.post('/register', { fetch_event_types: fetch })).body;
        views.push(state);
        views.push((await client.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] })).body);
      }
      views.push((await b!.get('/bot_storage')).body);
      return views;
    };
    const before = await snapshot([member, member2, bot]);
    expect(JSON.stringify(before)).toContain('griffin');
    await first.stop();

    dropReadModels(dataDir);
    const second = await startEmbedded(dataDir);
    try {
      const again = [member, member2, bot].map((client) => new Client(second.api, client.email, client.apiKey));
      expect(await snapshot(again)).toEqual(before);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
