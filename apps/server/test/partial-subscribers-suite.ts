/**
 * `include_subscribers: "partial"` (POST /register and GET /users/me/subscriptions), run
 * against every mode with a small partial-list threshold (TEAMCHAT_PARTIAL_SUBSCRIBERS_MIN=4):
 * a large channel lists its bots and recently active subscribers as `partial_subscribers`,
 * a small one its whole `subscribers`.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export const PARTIAL_SUBSCRIBERS_ENV = { TEAMCHAT_PARTIAL_SUBSCRIBERS_MIN: '4' };

export function partialSubscribersSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`partial subscriber lists (${mode})`, () => {
    const { clients, ids }: { clients: Record<string, Client>; ids: Record<string, number> } = suiteServer(start, ['owner', 'admin', 'member', 'member2', 'echo-bot']);

    it('lists bots and recently active subscribers of large channels, and every subscriber of small ones', async () => {
      const everyone = [ids.owner!, ids.admin!, ids.member!, ids.member2!, ids['echo-bot']!];
      expect((await clients.admin!.post('/users/me/subscriptions', { subscriptions: [{ name: 'crowded' }], principals: everyone })).body.result).toBe('success');
      expect((await clients.admin!.post('/users/me/subscriptions', { subscriptions: [{ name: 'cosy' }], principals: [ids.admin, ids.member2] })).body.result).toBe('success');
      // The member is active now; the owner, the administrator and the second member did nothing the store records.
      expect((await clients.member!.post('/messages', { type: 'stream', to: 'crowded', topic: 'hi', content: 'here' })).body.result).toBe('success');

      const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
      const expectedPartial = sorted([ids.member!, ids['echo-bot']!]);
      const deadline = Date.now() + 5000;
      let state: any;
      for (;;) {
        state = (await clients.member2!.post('/register', { event_types: ['subscription'], include_subscribers: 'partial' })).body;
        const crowded = state.subscriptions.find((s: any) => s.name === 'crowded');
        if (JSON.stringify(sorted(crowded.partial_subscribers ?? [])) === JSON.stringify(expectedPartial) || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const crowded = state.subscriptions.find((s: any) => s.name === 'crowded');
      expect(crowded).not.toHaveProperty('subscribers');
      expect(sorted(crowded.partial_subscribers)).toEqual(expectedPartial);
      const cosy = state.subscriptions.find((s: any) => s.name === 'cosy');
      expect(cosy).not.toHaveProperty('partial_subscribers');
      expect(sorted(cosy.subscribers)).toEqual(sorted([ids.admin!, ids.member2!]));
      // The general channel has every user: large too.
      const general = state.subscriptions.find((s: any) => s.name === 'general');
      expect(general).toHaveProperty('partial_subscribers');

      // Full lists when asked for them, none when not.
      const full = (await clients.member2!.post('/register', { event_types: ['subscription'], include_subscribers: true })).body;
      expect(sorted(full.subscriptions.find((s: any) => s.name === 'crowded').subscribers)).toEqual(sorted(everyone));

      const listed = (await clients.member2!.get('/users/me/subscriptions', { include_subscribers: 'partial' })).body.subscriptions;
      expect(sorted(listed.find((s: any) => s.name === 'crowded').partial_subscribers)).toEqual(expectedPartial);
      expect(listed.find((s: any) => s.name === 'cosy')).toHaveProperty('subscribers');
      expect((await clients.member2!.get('/users/me/subscriptions', { include_subscribers: 'maybe' })).body.code).toBe('BAD_REQUEST');
    });
  });
}
