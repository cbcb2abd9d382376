import { describe, expect, it } from '@jest/globals';
import { ApiError, endpoints, type ClientEvent, type RegisterParams } from '@teamchat/contracts';
import { InProcessBus, serveContract } from '@teamchat/platform';
import pino from 'pino';
import { StateCutoffs } from '../src/domain/state-cutoffs';
import type { Delivery } from '../src/projections/fan-out';
import { QueueRegistry } from '../src/queries/queues';
import {
  accountsParamsOf,
  cutoffsOf,
  joinedMembers,
  linkifierSections,
  ownersToAsk,
  registerWithState,
  stateParamsOf,
  unbuiltSections,
  wantsNotificationDefaults,
  withNotificationDefaults,
  type RegisterDeps,
} from '../src/queries/register-state';

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

describe('register state in the forms client capabilities ask for', () => {
  const sub = (stream_id: number, desktop: boolean | null) =>
    ({ stream_id, desktop_notifications: desktop, audible_notifications: null, push_notifications: true, email_notifications: null, wildcard_mentions_notify: null }) as never;
  const settings = { enable_stream_desktop_notifications: true, enable_stream_audible_notifications: false, enable_stream_push_notifications: false, enable_stream_email_notifications: true } as never;

  it('fills a channel notification setting left null with the user default, without notification_settings_null', () => {
    const channels = { subscriptions: [sub(1, null), sub(2, false)], unsubscribed: [sub(3, null)], never_subscribed: [] };
    const legacy = withNotificationDefaults(channels, settings);
    expect(legacy.subscriptions).toEqual([
      { stream_id: 1, desktop_notifications: true, audible_notifications: false, push_notifications: true, email_notifications: true, wildcard_mentions_notify: null },
      { stream_id: 2, desktop_notifications: false, audible_notifications: false, push_notifications: true, email_notifications: true, wildcard_mentions_notify: null },
    ]);
    expect(legacy.unsubscribed).toEqual([{ stream_id: 3, desktop_notifications: true, audible_notifications: false, push_notifications: true, email_notifications: true, wildcard_mentions_notify: null }]);
    // The state the owner gave is not changed.
    expect(channels.subscriptions[0]).toMatchObject({ desktop_notifications: null });
  });

  it('keeps the nulls for clients with notification_settings_null, and asks accounts for the defaults only when needed', () => {
    const subscriptionsOnly = stateParamsOf({ fetch_event_types: ['subscription'] });
    const modern = { fetch_event_types: ['subscription'], client_capabilities: { notification_settings_null: true } };
    expect(wantsNotificationDefaults(stateParamsOf(modern), modern)).toBe(false);
    expect(accountsParamsOf(stateParamsOf(modern), modern).fetch_event_types).toEqual(['subscription']);
    expect(wantsNotificationDefaults(subscriptionsOnly, { fetch_event_types: ['subscription'] })).toBe(true);
    expect(accountsParamsOf(subscriptionsOnly, { fetch_event_types: ['subscription'] }).fetch_event_types).toEqual(['subscription', 'user_settings']);
    expect(ownersToAsk(accountsParamsOf(subscriptionsOnly, {}))).toEqual(['accounts', 'channels']);
    // Everything asked for already includes the settings; no subscriptions, nothing to fill.
    expect(accountsParamsOf(stateParamsOf({}), {}).fetch_event_types).toBeNull();
    expect(wantsNotificationDefaults(stateParamsOf({ fetch_event_types: ['message'] }), {})).toBe(false);
  });

  it('lists the linkifiers only for clients with linkifier_url_template, and realm_filters always empty', () => {
    const linkifiers = [{ id: 3, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' }];
    const sections = { realm_linkifiers: linkifiers, realm_filters: [['#(?P<id>[0-9]+)', 'https://tracker.example/{id}', 3]] as [string, string, number][] };
    expect(linkifierSections({ client_capabilities: { linkifier_url_template: true } }, sections)).toEqual({ realm_filters: [] });
    expect(linkifierSections({}, sections)).toEqual({ realm_linkifiers: [], realm_filters: [] });
    expect(linkifierSections({}, {})).toEqual({});
  });
});

describe('the owners’ serialized members', () => {
  it('go on as the pieces they are, bytes not copied and text encoded, and one alone as it came', () => {
    const users = Buffer.from('{"realm_users":[]}');
    const pieces = joinedMembers([users, '{"unread_msgs":{"count":0}}']) as Uint8Array[];
    expect(pieces).toHaveLength(2);
    expect(pieces[0]).toBe(users);
    expect(Buffer.from(pieces[1]!).toString()).toBe('{"unread_msgs":{"count":0}}');
    expect(joinedMembers(['{"a":1}'])).toBe('{"a":1}');
    expect(joinedMembers([users])).toBe(users);
    expect(joinedMembers([])).toBeUndefined();
  });
});

describe('the owners’ sections sent ahead of the reply (sendPart)', () => {
  type Owner = 'accounts' | 'channels' | 'messaging';
  const piece: Record<Owner, Buffer> = {
    accounts: Buffer.from('{"realm_users":[]}'),
    channels: Buffer.from('{"subscriptions":[]}'),
    messaging: Buffer.from('{"unread_msgs":{"count":0}}'),
  };

  /**
   * The three owners on a bus that carries parts, each answering when its gate opens (or
   * failing, if told to), and the events service's dependencies around them.
   */
  async function owners(failing?: Owner) {
    const bus = new InProcessBus({ copyReplies: false });
    const gates = {} as Record<Owner, () => void>;
    for (const owner of ['accounts', 'channels', 'messaging'] as const) {
      const opened = new Promise<void>((resolve) => (gates[owner] = resolve));
      await serveContract({ bus, log: pino({ level: 'silent' }) }, endpoints[owner].registerState, async () => {
        await opened;
        if (owner === failing) throw new ApiError('GATEWAY_TIMEOUT', 'too slow', 504);
        return { value: { state: {} }, position: 3, json: piece[owner] };
      });
    }
    const deleted: string[] = [];
    const deps: RegisterDeps = {
      bus,
      queues: {
        register: async () => ({ queue_id: 'q1', last_event_id: -1 }),
        holdForState: () => undefined,
        releaseWithState: () => undefined,
        delete: async (_actor: unknown, queueId: string) => void deleted.push(queueId),
      } as unknown as RegisterDeps['queues'],
      fanOut: { snapshot: async <T>(read: () => T | Promise<T>) => ({ value: await read(), position: 2 }) },
    };
    return { bus, gates, deps, deleted };
  }

  const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('sends each owner’s members but the last to answer as they come, the last in the reply', async () => {
    const { bus, gates, deps } = await owners();
    const parts: unknown[] = [];
    const registering = registerWithState(deps, actor, {} as RegisterParams, (part) => parts.push(part));
    await turn();
    gates.channels();
    await turn();
    expect(parts).toEqual([piece.channels]);
    gates.accounts();
    await turn();
    gates.messaging();
    const { value, json } = await registering;
    // The same memory, in the order the owners answered.
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(piece.channels);
    expect(parts[1]).toBe(piece.accounts);
    expect(json).toBe(piece.messaging);
    expect(value).toHaveProperty('queue_id', 'q1');
    await bus.close();
  });

  it('puts everything in the reply for a caller that takes no parts', async () => {
    const { bus, gates, deps } = await owners();
    const registering = registerWithState(deps, actor, {} as RegisterParams);
    gates.accounts();
    gates.channels();
    gates.messaging();
    const { json } = await registering;
    expect(json).toEqual([piece.accounts, piece.channels, piece.messaging]);
    await bus.close();
  });

  it('sends nothing more once an owner has failed, and answers with its error', async () => {
    const { bus, gates, deps, deleted } = await owners('channels');
    const parts: unknown[] = [];
    const registering = registerWithState(deps, actor, {} as RegisterParams, (part) => parts.push(part));
    const refused = registering.catch((err: unknown) => err);
    await turn();
    gates.channels();
    await turn();
    gates.accounts();
    gates.messaging();
    await turn();
    expect(await refused).toMatchObject({ code: 'GATEWAY_TIMEOUT', status: 504 });
    expect(parts).toEqual([]);
    expect(deleted).toEqual(['q1']);
    await bus.close();
  });
});
