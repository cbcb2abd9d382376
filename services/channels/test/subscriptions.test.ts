import { describe, expect, it } from '@jest/globals';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { channelFromCreated, defaultChannelGroupSettings, ROLE, type Fact, type FactOf, type GroupMember } from '@teamchat/contracts';
import { channelCreated } from './fixtures';
import { deciderSpec } from '@teamchat/platform/testing';
import { evolveRegistry, initialRegistry, type RegistryState } from '../src/domain/registry';
import {
  decideSubscribe,
  decideSubscribeRequest,
  evolveChannel,
  initialChannel,
  type ChannelState,
  type Subscribe,
  type SubscribeRequest,
} from '../src/domain/subscriptions';

const NOW = 1_700_000_000_999;
const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: 1_600_000_000 });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const mark = person(4, ROLE.member);
const mary = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const users = [owner, admin, mark, mary, guest];

const general = channelCreated(1, 'general');
const leadership = channelCreated(2, 'leadership', { invite_only: true, history_public_to_subscribers: false });
const registry = [general, leadership].reduce<RegistryState>(evolveRegistry, initialRegistry());

// ---------------------------------------------------------------------------------------
// The request: which channels, created or not, and whether the actor may.
// ---------------------------------------------------------------------------------------

const request = (overrides: Partial<SubscribeRequest> = {}): SubscribeRequest => ({
  actor: mark,
  channels: [{ name: 'general', description: '', rendered_description: '' }],
  principal_ids: [4],
  actor_channel_ids: new Set(),
  authorization_errors_fatal: true,
  settings: { invite_only: false, is_web_public: false, is_default: false, group_settings: {} },
  users,
  groups: NO_CUSTOM_GROUPS,
  now: NOW,
  ...overrides,
});
const named = (...names: string[]) => names.map((name) => ({ name, description: `about ${name}`, rendered_description: `<p>about ${name}</p>` }));
const planOf = (overrides: Partial<SubscribeRequest>) => {
  const { facts, plan } = decideSubscribeRequest(registry, request(overrides));
  return { created: facts.map((f) => f.name), channels: plan.channels.map((c) => c.name), unauthorized: plan.unauthorized };
};

describe('decideSubscribeRequest', () => {
  it('subscribes to an existing public channel, creating nothing', () =>
    expect(planOf({})).toEqual({ created: [], channels: ['general'], unauthorized: [] }));

  it('creates the channels that do not exist, keeping the order named', () =>
    expect(planOf({ channels: named('design', 'General', 'ops') })).toEqual({ created: ['design', 'ops'], channels: ['design', 'general', 'ops'], unauthorized: [] }));

  it('creates each channel once, however often it is named', () =>
    expect(planOf({ channels: named('design', ' DESIGN ') })).toEqual({ created: ['design'], channels: ['design'], unauthorized: [] }));

  it('gives created channels the description asked for and the creation settings', () => {
    const { facts } = decideSubscribeRequest(registry, request({ channels: named('design'), settings: { invite_only: true, is_web_public: false, is_default: false, group_settings: {} } }));
    expect(facts).toEqual([
      expect.objectContaining({ channel_id: 3, name: 'design', description: 'about design', invite_only: true, creator_id: 4, audience_user_ids: [1, 2, 4] }),
    ]);
  });

  it('lets a member subscribe others to a public channel (the organization lets members add subscribers)', () =>
    expect(planOf({ principal_ids: [5, 6] })).toEqual({ created: [], channels: ['general'], unauthorized: [] }));

  it('lets a subscriber of a private channel subscribe others to it', () =>
    expect(planOf({ channels: named('leadership'), principal_ids: [5], actor_channel_ids: new Set([2]) })).toEqual({
      created: [],
      channels: ['leadership'],
      unauthorized: [],
    }));

  it('refuses a private channel the actor may not access, naming it', () =>
    expect(() => decideSubscribeRequest(registry, request({ channels: named('leadership') }))).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', msg: 'Unable to access channel (leadership).' }),
    ));

  it('refuses an unsubscribed administrator too: administrators do not join private channels uninvited', () =>
    expect(() => decideSubscribeRequest(registry, request({ actor: admin, channels: named('leadership'), principal_ids: [2] }))).toThrow(
      expect.objectContaining({ msg: 'Unable to access channel (leadership).' }),
    ));

  it('lists inaccessible channels instead when authorization errors are not fatal', () =>
    expect(planOf({ channels: named('leadership', 'general', 'design'), authorization_errors_fatal: false })).toEqual({
      created: ['design'],
      channels: ['general', 'design'],
      unauthorized: ['leadership'],
    }));

  it("lets can_add_subscribers_group's members access a private channel", () => {
    const open = evolveRegistry(registry, channelCreated(3, 'open-door', { invite_only: true, can_add_subscribers_group: { direct_members: [5], direct_subgroups: [] } }));
    expect(decideSubscribeRequest(open, request({ actor: mary, channels: named('open-door'), principal_ids: [5, 4] })).plan.channels.map((c) => c.name)).toEqual([
      'open-door',
    ]);
  });

  it('refuses guests altogether', () =>
    expect(() => decideSubscribeRequest(registry, request({ actor: guest, principal_ids: [6] }))).toThrow(
      expect.objectContaining({ msg: 'Not allowed for guest users' }),
    ));

  it('refuses an invalid name before anything', () =>
    expect(() => decideSubscribeRequest(registry, request({ channels: named('ok', '   ') }))).toThrow(expect.objectContaining({ msg: 'Channel name is required' })));

  it('refuses creation settings the actor may not choose', () =>
    expect(() => decideSubscribeRequest(registry, request({ channels: named('new'), settings: { invite_only: false, is_web_public: false, is_default: true, group_settings: {} } }))).toThrow(
      expect.objectContaining({ msg: 'Insufficient permission' }),
    ));

  it('ignores creation settings when nothing is created', () =>
    expect(planOf({ settings: { invite_only: false, is_web_public: true, is_default: true, group_settings: {} } }).channels).toEqual(['general']));
});

// ---------------------------------------------------------------------------------------
// One channel's stream: who is subscribed, and who hears of it.
// ---------------------------------------------------------------------------------------

const channel = deciderSpec<ChannelState, Subscribe>({
  initial: initialChannel,
  evolve: evolveChannel,
  decide: (cmd, state) => decideSubscribe(state, cmd),
});
const subscribed = (...user_ids: number[]): Fact => ({ type: 'SubscriptionsAdded', channel_id: 1, user_ids });
const unsubscribed = (...user_ids: number[]): Fact => ({ type: 'SubscriptionsRemoved', channel_id: 1, user_ids });
const publicView = channelFromCreated(general);
const privateView = { ...channelFromCreated({ ...leadership, channel_id: 1 }), ...defaultChannelGroupSettings(1) };
const subscribe = (user_ids: number[], view = publicView): Subscribe => ({ channel: view, user_ids, users, groups: NO_CUSTOM_GROUPS, first_message_id: 30, now: NOW });
const added = (user_ids: number[], overrides: Partial<FactOf<'SubscriptionsAdded'>>): FactOf<'SubscriptionsAdded'> => ({
  type: 'SubscriptionsAdded',
  channel_id: 1,
  user_ids,
  channel: publicView,
  first_message_id: 30,
  subscriber_ids: [],
  shown_user_ids: [],
  peer_user_ids: [],
  ...overrides,
});

describe('decideSubscribe', () => {
  it('adds only the new subscribers, once each, in id order, telling the other non-guests', () =>
    channel.given([subscribed(1, 2)]).when(subscribe([5, 4, 5, 2])).then([added([4, 5], { subscriber_ids: [1, 2, 4, 5], peer_user_ids: [1, 2] })]));

  it('decides nothing when everyone is already subscribed', () => channel.given([subscribed(1, 4)]).when(subscribe([4, 1])).then([]));

  it('subscribes again after an unsubscription', () =>
    channel.given([subscribed(4, 5), unsubscribed(4)]).when(subscribe([4, 5])).then([added([4], { subscriber_ids: [4, 5], peer_user_ids: [1, 2, 5] })]));

  it('tells the subscribed guests of a public channel of new peers', () =>
    channel.given([subscribed(6)]).when(subscribe([5])).then([added([5], { subscriber_ids: [5, 6], peer_user_ids: [1, 2, 4, 6] })]));

  it('shows a public channel to a joining guest', () =>
    channel.given([]).when(subscribe([6])).then([added([6], { subscriber_ids: [6], shown_user_ids: [6], peer_user_ids: [1, 2, 4, 5] })]));

  it('shows a private channel to new subscribers who could not see it, and tells only those who see it', () =>
    channel
      .given([subscribed(1)])
      .when(subscribe([5, 2], privateView))
      .then([added([2, 5], { channel: privateView, subscriber_ids: [1, 2, 5], shown_user_ids: [5], peer_user_ids: [1] })]));
});

describe('evolveChannel', () => {
  it('adds and removes subscribers without touching the state it is given', () => {
    const before = evolveChannel(initialChannel(), { type: 'SubscriptionsAdded', channel_id: 10, user_ids: [1, 2, 3] });
    const after = evolveChannel(before, { type: 'SubscriptionsRemoved', channel_id: 10, user_ids: [2, 9] });
    expect([...before.subscribers].sort()).toEqual([1, 2, 3]);
    expect([...after.subscribers].sort()).toEqual([1, 3]);
  });
});
