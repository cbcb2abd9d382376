/**
 * Invariant 3: every state change is a fact, so read models dropped and rebuilt from the
 * event store give the same answers. Exercise every kind of message change, capture what
 * clients see, delete every read-model file, restart, and compare.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbedded } from './harness';
import { dropReadModels, scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();

describe('rebuilding read models from the event store', () => {
  it('answers exactly as before after every read model is dropped', async () => {
    const dataDir = newDataDir();
    const first = await startEmbedded(dataDir);
    const [member, member2, admin] = await Promise.all(['member', 'member2', 'admin'].map((n) => Client.login(first.api, `${n}@example.com`)));
    const send = async (client: Client, params: Record<string, unknown>) => (await client.post('/messages', params)).body.id as number;

    const a = await send(member, { type: 'stream', to: 'general', topic: 'rebuild', content: 'hello @**Mary Member** :octopus:' });
    const b = await send(member2, { type: 'stream', to: 'general', topic: 'rebuild', content: 'second' });
    const c = await send(member, { type: 'direct', to: ['member2@example.com'], content: 'private words' });
    const d = await send(admin, { type: 'stream', to: 'engineering', topic: 'moving', content: 'to be moved' });
    await member2.post(`/messages/${a}/reactions`, { emoji_name: 'tada' });
    await member.request('PATCH', `/messages/${a}`, { content: 'hello again' }, { query: false });
    await member.request('PATCH', `/messages/${b}`, { topic: 'rebuilt', propagate_mode: 'change_all' }, { query: false });
    await admin.request('PATCH', `/messages/${d}`, { topic: '✔ moving' }, { query: false });
    await member2.post('/messages/flags', { messages: [a, c], op: 'add', flag: 'read' });
    await member2.post('/messages/flags', { messages: [b], op: 'add', flag: 'starred' });
    await member.request('DELETE', `/messages/${c}`);
    const generalId = (await member.get(`/messages/${a}`)).body.message.stream_id;
    await member2.post('/user_topics', { stream_id: generalId, topic: 'rebuilt', visibility_policy: 1 });

    const snapshot = async (clients: Client[]) => {
      const views = [];
      for (const client of clients) {
        for (const narrow of [[], [{ operator: 'channel', operand: 'general' }], [{ operator: 'is', operand: 'starred' }], [{ operator: 'search', operand: 'hello' }]]) {
          const { body } = await client.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow, apply_markdown: true });
          views.push(body);
        }
        views.push((await client.get('/messages', { anchor: 'first_unread', num_before: 5, num_after: 5 })).body);
      }
      return views;
    };
    const before = await snapshot([member, member2, admin]);
    expect(before.flatMap((v) => v.messages).length).toBeGreaterThan(5);
    await first.stop();

    dropReadModels(dataDir);
    const second = await startEmbedded(dataDir);
    try {
      const again = [member, member2, admin].map((client) => new Client(second.api, client.email, client.apiKey));
      expect(await snapshot(again)).toEqual(before);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
