/**
 * The HTTP suite for linkifiers (issue 17 item 3), run against every mode: the list and
 * its changes, register's realm_linkifiers (and the always empty legacy realm_filters) and
 * their events by the linkifier_url_template capability, links
 * in rendered messages and topic_links, and every refusal leaving the list as it was.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { del, eventsUntil, expectRefused, patch, suiteServer, type Reply } from './suite-kit';

export function linkifiersSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`linkifiers (${mode})`, () => {
    const clients: Record<string, Client> = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'guest', 'echo-bot']).clients;

    const refusedWith = (reply: Reply, msg?: RegExp) => expectRefused(reply, { msg });
    const listOf = async (client: Client) => (await client.get('/realm/linkifiers')).body.linkifiers as any[];

    it('administrators add, edit, reorder and remove linkifiers; register and events carry the ordered list to clients with linkifier_url_template', async () => {
      const { admin, owner, member, guest } = clients as Record<string, Client>;
      const templates = { client_capabilities: { linkifier_url_template: true } };
      const queues = await Promise.all([member!, guest!].map(async (c) => (await c.post('/register', { event_types: ['realm_linkifiers', 'realm_filters'], ...templates })).body.queue_id));
      // A client without the capability reads URL format strings, not templates: it is told nothing.
      const legacyQueue = (await member!.post('/register', { event_types: ['realm_linkifiers', 'realm_filters'] })).body.queue_id;
      const issues = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/issues/{id}' };
      const tickets = { pattern: 'TICKET-(?P<n>[0-9]+)', url_template: 'https://desk.example/t/{n}' };
      const a = (await admin!.post('/realm/filters', issues)).body.id as number;
      const b = (await owner!.post('/realm/filters', tickets)).body.id as number;
      expect(typeof a).toBe('number');
      expect(b).not.toBe(a);
      expect(await listOf(owner!)).toEqual([{ id: a, ...issues }, { id: b, ...tickets }]);

      const edited = { pattern: 'TKT-(?P<n>[0-9]+)', url_template: 'https://desk.example/ticket/{n}' };
      expect((await patch(owner!, `/realm/filters/${b}`, edited)).body.result).toBe('success');
      expect((await patch(owner!, '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([b, a]) })).body.result).toBe('success');
      const ordered = [{ id: b, ...edited }, { id: a, ...issues }];
      expect(await listOf(owner!)).toEqual(ordered);
      const state = (await owner!.post('/register', { fetch_event_types: ['realm_linkifiers', 'realm_filters'], ...templates })).body;
      expect(state.realm_linkifiers).toEqual(ordered);
      // As Zulip since feature level 176: realm_filters is always empty, and the list empty without the capability.
      expect(state.realm_filters).toEqual([]);
      const legacyState = (await owner!.post('/register', { fetch_event_types: ['realm_linkifiers', 'realm_filters'] })).body;
      expect(legacyState.realm_linkifiers).toEqual([]);
      expect(legacyState.realm_filters).toEqual([]);

      expect((await del(owner!, `/realm/filters/${b}`)).body.result).toBe('success');
      expect(await listOf(owner!)).toEqual([{ id: a, ...issues }]);
      for (const [i, client] of [member!, guest!].entries()) {
        const events = await eventsUntil(client, queues[i]!, (e) => e.filter((x) => x.type === 'realm_linkifiers').length >= 5);
        const modern = events.filter((e) => e.type === 'realm_linkifiers').map((e) => e.realm_linkifiers);
        expect(modern).toEqual([[{ id: a, ...issues }], [{ id: a, ...issues }, { id: b, ...tickets }], [{ id: a, ...issues }, { id: b, ...edited }], ordered, [{ id: a, ...issues }]]);
        expect(events.filter((e) => e.type === 'realm_filters')).toEqual([]);
      }
      // Every fact above reached the queues (the others have all five): the legacy one has none.
      expect(await eventsUntil(member!, legacyQueue, () => true)).toEqual([]);
      await del(owner!, `/realm/filters/${a}`);
    });

    it('renders matches in messages as links and lists topic links, in messages and message events', async () => {
      const { admin } = clients as Record<string, Client>;
      const id = (await admin!.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/issues/{id}' })).body.id;
      const queue = (await admin!.post('/register', { event_types: ['message', 'update_message'] })).body.queue_id;
      const sent = await admin!.post('/messages', { type: 'stream', to: 'general', topic: 'fix #45 now', content: 'see #123, not a#9 or `#7`' });
      expect(sent.body.result).toBe('success');
      const message = (await admin!.get('/messages', { message_ids: JSON.stringify([sent.body.id]) })).body.messages[0];
      expect(message.content).toContain('<a href="https://tracker.example/issues/123"');
      expect(message.content).toContain('>#123</a>');
      expect(message.content).not.toContain('issues/9');
      expect(message.content).not.toContain('issues/7');
      expect(message.topic_links).toEqual([{ text: '#45', url: 'https://tracker.example/issues/45' }]);
      const events = await eventsUntil(admin!, queue, (e) => e.some((x) => x.type === 'message'));
      expect(events.find((e) => e.type === 'message').message.topic_links).toEqual(message.topic_links);

      // Moving to another topic lists the new topic's links.
      const moved = await patch(admin!, `/messages/${sent.body.id}`, { topic: 'see #46' });
      expect(moved.body.result).toBe('success');
      const after = (await admin!.get('/messages', { message_ids: JSON.stringify([sent.body.id]) })).body.messages[0];
      expect(after.topic_links).toEqual([{ text: '#46', url: 'https://tracker.example/issues/46' }]);
      const update = (await eventsUntil(admin!, queue, (e) => e.some((x) => x.type === 'update_message'))).find((e) => e.type === 'update_message');
      expect(update.topic_links).toEqual(after.topic_links);

      await del(admin!, `/realm/filters/${id}`);
      const plain = await admin!.post('/messages', { type: 'stream', to: 'general', topic: 'fix #45', content: 'see #123' });
      const rendered = (await admin!.get('/messages', { message_ids: JSON.stringify([plain.body.id]) })).body.messages[0];
      expect(rendered.content).toBe('<p>see #123</p>');
      expect(rendered.topic_links).toEqual([]);
    });

    it('authorization: only owners and administrators change linkifiers; every role may list them', async () => {
      const valid = { pattern: 'ROLE-(?P<id>[0-9]+)', url_template: 'https://e.example/{id}' };
      const allowed: Record<string, boolean> = { owner: true, admin: true, moderator: false, member: false, guest: false, 'echo-bot': false };
      for (const [name, may] of Object.entries(allowed)) {
        const client = clients[name]!;
        expect((await client.get('/realm/linkifiers')).body.result).toBe('success');
        const added = await client.post('/realm/filters', valid);
        if (!may) {
          refusedWith(added, /administrator/);
          continue;
        }
        expect(added.body.result).toBe('success');
        for (const other of Object.keys(allowed).filter((n) => !allowed[n])) {
          refusedWith(await patch(clients[other]!, `/realm/filters/${added.body.id}`, valid), /administrator/);
          refusedWith(await patch(clients[other]!, '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([added.body.id]) }), /administrator/);
          refusedWith(await del(clients[other]!, `/realm/filters/${added.body.id}`), /administrator/);
        }
        expect((await del(client, `/realm/filters/${added.body.id}`)).body.result).toBe('success');
      }
      expect(await listOf(clients.owner!)).toEqual([]);
    });

    it('refuses unsafe or invalid patterns, invalid templates, duplicates, unknown ids and bad orders, changing nothing', async () => {
      const admin = clients.admin!;
      const valid = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/issues/{id}' };
      const id = (await admin.post('/realm/filters', valid)).body.id;
      const before = await listOf(admin);
      // Backreferences and lookaround cannot run in linear time; RE2 refuses them.
      for (const pattern of ['(?P<id>a)\\1', '(?=x)(?P<id>y)', '(?<!x)(?P<id>y)', '(?P<id>unclosed', '', ' ', 'x'.repeat(1001), 'a\u0000(?P<id>b)', '(?P<linkifier_actual>x)']) {
        refusedWith(await admin.post('/realm/filters', { pattern, url_template: valid.url_template }));
      }
      refusedWith(await admin.post('/realm/filters', { pattern: '(?P<id>a)\\1', url_template: valid.url_template }), /^Bad regular expression/);
      for (const url_template of ['https://e.example/{id', 'https://e.example/}{id}', 'javascript:{id}', '{id}', `https://e.example/${'p'.repeat(1100)}{id}`]) {
        refusedWith(await admin.post('/realm/filters', { pattern: 'N(?P<id>[0-9]+)', url_template }));
      }
      refusedWith(await admin.post('/realm/filters', { pattern: 'N(?P<id>[0-9]+)', url_template: 'https://e.example/{other}' }), /Group 'other'/);
      refusedWith(await admin.post('/realm/filters', valid), /already exists/);
      refusedWith(await admin.post('/realm/filters', { pattern: 'x' }));
      refusedWith(await patch(admin, '/realm/filters/777777', valid), /not found/);
      refusedWith(await patch(admin, `/realm/filters/${id}`, { pattern: '(?=x)', url_template: valid.url_template }));
      refusedWith(await del(admin, '/realm/filters/777777'), /not found/);
      refusedWith(await patch(admin, '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([id, id]) }), /duplicated/);
      refusedWith(await patch(admin, '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([]) }), /exactly once/);
      refusedWith(await patch(admin, '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([777777]) }), /exactly once/);
      refusedWith(await patch(admin, '/realm/linkifiers', { ordered_linkifier_ids: 'not json' }));
      expect(await listOf(admin)).toEqual(before);
      await del(admin, `/realm/filters/${id}`);
    });
  });
}
