import { describe, expect, it } from '@jest/globals';
import type { ClientEvent } from '@teamchat/contracts';
import { StateCutoffs } from '../src/domain/state-cutoffs';
import type { Delivery } from '../src/projections/fan-out';
import { QueueRegistry } from '../src/queries/queues';
import { cutoffsOf, ownersToAsk, stateParamsOf, unbuiltSections } from '../src/queries/register-state';

const actor = { user_id: 4, email: 'm@example.com', full_name: 'M', role: 400, is_bot: false, client: 'test' };
const event = (type: string, n: number) => ({ type, n }) as unknown as ClientEvent;
const toMe = (e: ClientEvent): Delivery => ({ user_ids: [4], eventFor: () => e });

describe('register state parameters', () => {
  it('fetches what event_types names unless fetch_event_types says otherwise, and everything without either', () => {
    expect(stateParamsOf({}).fetch_event_types).toBeNull();
    expect(stateParamsOf({ event_types: ['message'] }).fetch_event_types).toEqual(['message']);
    expect(stateParamsOf({ event_types: ['message'], fetch_event_types: ['stream'] }).fetch_event_types).toEqual(['stream']);
    expect(stateParamsOf({ client_capabilities: { archived_channels: true } }).archived_channels).toBe(true);
  });

  it('asks only the owners of wanted sections', () => {
    expect(ownersToAsk(stateParamsOf({}))).toEqual(['accounts', 'channels', 'messaging']);
    expect(ownersToAsk(stateParamsOf({ event_types: ['message', 'presence'] }))).toEqual(['messaging']);
    expect(ownersToAsk(stateParamsOf({ event_types: ['typing'] }))).toEqual([]);
  });

  it('ignores an unknown event type, as Zulip does', () => {
    expect(ownersToAsk(stateParamsOf({ fetch_event_types: ['message', 'zulip_version'] }))).toEqual(['messaging']);
    expect(ownersToAsk(stateParamsOf({ event_types: ['no_such_event'] }))).toEqual([]);
  });

  it('cuts off only the fetched types, each at its owner position', () => {
    const cutoffs = cutoffsOf(stateParamsOf({ event_types: ['message', 'stream', 'reaction'], fetch_event_types: ['message', 'stream'] }), new Map([['messaging', 40], ['channels', 30]]));
    expect(Object.fromEntries(cutoffs)).toEqual({ message: 40, stream: 30 });
  });

  it('gives unbuilt features present, empty sections', () => {
    expect(unbuiltSections(stateParamsOf({ event_types: ['muted_users', 'user_status', 'message'] }))).toEqual({});
    expect(unbuiltSections(stateParamsOf({ event_types: ['presence'] }))).toMatchObject({ presences: {} });
    // Built features' sections come from their owners (drafts and snippets: accounts; scheduled messages and reminders: messaging).
    expect(unbuiltSections(stateParamsOf({}))).not.toHaveProperty('drafts');
    expect(unbuiltSections(stateParamsOf({}))).not.toHaveProperty('scheduled_messages');
    expect(unbuiltSections(stateParamsOf({}))).not.toHaveProperty('realm_emoji');
    expect(unbuiltSections(stateParamsOf({}))).not.toHaveProperty('realm_domains');
    expect(unbuiltSections(stateParamsOf({}))).not.toHaveProperty('reminders');
  });
});

describe('StateCutoffs', () => {
  it('holds events until the state is known, then drops those it holds and keeps the rest', () => {
    const cutoffs = new StateCutoffs<ClientEvent>();
    cutoffs.hold('q');
    expect(cutoffs.admit('q', event('message', 1), 11)).toBe(false);
    expect(cutoffs.admit('q', event('stream', 2), 12)).toBe(false);
    expect(cutoffs.admit('q', event('message', 3), 13)).toBe(false);
    expect(cutoffs.admit('q', event('heartbeat', 4), undefined)).toBe(false);
    const released = cutoffs.release('q', new Map([['message', 12], ['stream', 14]]));
    expect(released).toEqual([{ event: event('message', 3), position: 13 }, { event: event('heartbeat', 4), position: undefined }]);
    // Still covered after the release: the owner may have been ahead of the fan-out.
    expect(cutoffs.admit('q', event('stream', 5), 14)).toBe(false);
    expect(cutoffs.admit('q', event('message', 6), 14)).toBe(true);
    expect(cutoffs.admit('q', event('stream', 7), 15)).toBe(true);
  });

  it('lets everything through for a queue registered without state', () => {
    const cutoffs = new StateCutoffs<ClientEvent>();
    expect(cutoffs.admit('other', event('message', 1), 1)).toBe(true);
    cutoffs.hold('q');
    expect(cutoffs.release('q', new Map())).toEqual([]);
    expect(cutoffs.admit('q', event('message', 2), 2)).toBe(true);
  });
});

describe('QueueRegistry with initial state', () => {
  it('puts each event in the queue once: after the state position, in order', async () => {
    const registry = new QueueRegistry({ heartbeatSeconds: 60, settings: { maxEvents: 100, maxPerUser: 10, sweepMs: 60_000 }, checkpoint: () => 9 });
    const { queue_id } = await registry.register(actor, {});
    registry.holdForState(queue_id);
    registry.deliver(toMe(event('message', 1)), 10);
    registry.deliver(toMe(event('message', 2)), 11);
    registry.releaseWithState(queue_id, new Map([['message', 10]]));
    registry.deliver(toMe(event('message', 3)), 12);
    const { events } = await registry.getEvents(actor, { queue_id, dont_block: true });
    expect(events.map((e) => (e as unknown as { n: number }).n)).toEqual([2, 3]);
    registry.close();
  });
});
