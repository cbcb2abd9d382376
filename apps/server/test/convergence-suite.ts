/**
 * Every action that changes what POST /register returns, checked for convergence (see
 * convergence.ts): for each observer, the registration's state plus the events the action
 * sent equals a fresh registration's state. Adding an action is one row of its domain's
 * table (convergence-<domain>.ts); ACTIONS runs them all, in this order.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { verifyAction } from './convergence';
import { CHANNEL_ACTIONS } from './convergence-channels';
import { GROUP_ACTIONS } from './convergence-groups';
import { MESSAGE_ACTIONS } from './convergence-messages';
import { ORG_ACTIONS } from './convergence-org';
import { stream, type ActionRow, type Context, type Who } from './convergence-rows';
import { TOOL_ACTIONS } from './convergence-tools';
import type { RunningServer } from './harness';
import { suiteServer } from './suite-kit';

const ACTIONS: ActionRow[] = [...MESSAGE_ACTIONS, ...CHANNEL_ACTIONS, ...GROUP_ACTIONS, ...TOOL_ACTIONS, ...ORG_ACTIONS];

export function convergenceSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`convergence of register state and events (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'member', 'member2', 'guest'] as Who[]);
    const ctx = { clients: suite.clients, ids: suite.ids } as Context;

    beforeAll(async () => {
      const { server } = suite;
      ctx.bus = server.bus!;
      ctx.base = server.api.replace(/\/api\/v1$/, '');
      ctx.dataDir = server.dataDir!;
      ctx.messageId = (await ctx.clients.member.post('/messages', stream('general', 'converge', 'the target'))).body.id;
      const channels = new Map<string, number>();
      ctx.channelId = async (name) => {
        if (!channels.has(name)) {
          const registered = await ctx.clients.owner.post('/register', { fetch_event_types: JSON.stringify(['subscription']) });
          for (const s of registered.body.subscriptions ?? []) channels.set(s.name, s.stream_id);
        }
        return channels.get(name)!;
      };
    });

    for (const action of ACTIONS) {
      it(`${action.name}: state + events = fresh state, for ${action.observers.join(', ')}`, async () => {
        let heard = 0;
        for (const who of action.observers) {
          const { events, expected, actual } = await verifyAction(ctx.clients[who], ctx.ids[who], () => action.perform(ctx), action.register);
          expect({ observer: who, state: actual }).toEqual({ observer: who, state: expected });
          heard += events.filter((e) => e.type !== 'heartbeat').length;
        }
        // The check proves something only if the action was heard of.
        expect(heard).toBeGreaterThan(0);
      }, 30_000);
    }
  });
}
