/**
 * The HTTP suite for navigation views (issue 17 item 6), run against every mode: a
 * user's own views, register's navigation_views, navigation_view events to that user's
 * clients only, and the refusals.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, expectRefused, suiteServer, type Reply } from './suite-kit';

export function navigationViewsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`navigation views (${mode})`, () => {
    const c: Record<string, Client> = suiteServer(start, ['owner', 'member', 'member2', 'guest', 'echo-bot']).clients;

    const refusedWith = (reply: Reply, msg?: RegExp) => expectRefused(reply, { msg });
    const path = (fragment: string) => `/navigation_views/${encodeURIComponent(fragment)}`;
    const patch = (client: Client, fragment: string, params: Record<string, unknown>) => client.request('PATCH', path(fragment), params, { query: false });
    const listOf = async (client: Client) => (await client.get('/navigation_views')).body.navigation_views;

    it('every role keeps its own views: add, rename, pin and remove, with navigation_view events to its own clients only', async () => {
      for (const name of ['owner', 'member', 'guest', 'echo-bot']) {
        const me = c[name]!;
        const other = c[name === 'member' ? 'member2' : 'member']!;
        const mine = (await me.post('/register', { event_types: ['navigation_view'] })).body.queue_id;
        const theirs = (await other.post('/register', { event_types: ['navigation_view'] })).body.queue_id;
        const fragment = 'narrow/channel/1-general/topic/plans';
        expect((await me.post('/navigation_views', { fragment: 'inbox', is_pinned: 'true' })).body.result).toBe('success');
        expect((await me.post('/navigation_views', { fragment, is_pinned: 'false', name: 'Plans' })).body.result).toBe('success');
        expect((await patch(me, fragment, { name: 'Our plans', is_pinned: 'true' })).body.result).toBe('success');
        expect((await me.request('DELETE', path('inbox'))).body.result).toBe('success');
        const expected = [{ fragment, is_pinned: true, name: 'Our plans' }];
        expect(await listOf(me)).toEqual(expected);
        expect((await me.post('/register', { fetch_event_types: ['navigation_view'] })).body.navigation_views).toEqual(expected);
        const events = await eventsUntil(me, mine, (e) => e.length >= 4);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'inbox', is_pinned: true, name: null } },
          { type: 'navigation_view', op: 'add', navigation_view: { fragment, is_pinned: false, name: 'Plans' } },
          { type: 'navigation_view', op: 'update', fragment, data: { is_pinned: true, name: 'Our plans' } },
          { type: 'navigation_view', op: 'remove', fragment: 'inbox' },
        ]);
        expect(await eventsUntil(other, theirs, () => true)).toEqual([]);
        await me.request('DELETE', path(fragment));
      }
    });

    it('refuses named built-in views, unnamed custom views, duplicates, unknown views and bad parameters, changing nothing', async () => {
      const member = c.member!;
      await member.post('/navigation_views', { fragment: 'recent', is_pinned: 'true' });
      const before = await listOf(member);
      refusedWith(await member.post('/navigation_views', { fragment: 'inbox', is_pinned: 'true', name: 'Mine' }), /Built-in/);
      refusedWith(await member.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: 'true' }), /name/);
      refusedWith(await member.post('/navigation_views', { fragment: 'recent', is_pinned: 'false' }), /already exists/);
      refusedWith(await member.post('/navigation_views', { fragment: '', is_pinned: 'false' }));
      refusedWith(await member.post('/navigation_views', { fragment: 'inbox' }));
      refusedWith(await member.post('/navigation_views', { fragment: 'inbox', is_pinned: 'maybe' }));
      refusedWith(await patch(member, 'narrow/none', { is_pinned: 'true' }), /does not exist/);
      refusedWith(await patch(member, 'recent', {}));
      refusedWith(await patch(member, 'recent', { name: 'Recent stuff' }), /Built-in/);
      refusedWith(await member.request('DELETE', path('narrow/none')), /does not exist/);
      // Another user's views are not this user's to change.
      refusedWith(await patch(c.member2!, 'recent', { is_pinned: 'false' }), /does not exist/);
      expect(await listOf(member)).toEqual(before);
      await member.request('DELETE', path('recent'));
    });
  });
}
