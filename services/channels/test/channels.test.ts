import { describe, expect, it } from '@jest/globals';
import { ROLE, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '../../../libs/platform/src/testing/decider-spec';
import {
  decideCreateChannel,
  decideSubscribe,
  evolveChannel,
  evolveRegistry,
  initialChannel,
  initialRegistry,
  type ChannelState,
  type CreateChannel,
  type RegistryState,
  type Subscribe,
} from '../src/domain/channels';

const NOW = 1_700_000_000_999;

const actor = (user_id: number, role: number): Actor => ({
  user_id,
  email: `user${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot: false,
  client: 'website',
});
const owner = actor(1, ROLE.owner);
const admin = actor(2, ROLE.administrator);
const moderator = actor(3, ROLE.moderator);
const member = actor(4, ROLE.member);
const guest = actor(5, ROLE.guest);

const registry = deciderSpec<RegistryState, CreateChannel>({
  initial: initialRegistry,
  evolve: evolveRegistry,
  decide: (cmd, state) => decideCreateChannel(state, cmd),
});

function channelCreated(channel_id: number, name: string, overrides: Partial<FactOf<'ChannelCreated'>> = {}): FactOf<'ChannelCreated'> {
  return {
    type: 'ChannelCreated',
    channel_id,
    name,
    description: '',
    rendered_description: '',
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    is_default: false,
    topics_policy: 'inherit',
    message_retention_days: null,
    creator_id: 4,
    date_created: 1_700_000_000,
    ...overrides,
  };
}

describe('decideCreateChannel', () => {
  const create: CreateChannel = {
    actor: member,
    name: 'engineering',
    description: '',
    rendered_description: '',
    invite_only: false,
    is_default: false,
    now: NOW,
  };
  const when = (given: Fact[], overrides: Partial<CreateChannel> = {}) => registry.given(given).when({ ...create, ...overrides });
  const general = channelCreated(1, 'General');

  it('creates the first channel with id 1 and every field', () =>
    when([], {
      name: '  design  ',
      description: 'Pixels *and* more',
      rendered_description: '<p>Pixels <em>and</em> more</p>',
      is_default: true,
    }).then([
      {
        type: 'ChannelCreated',
        channel_id: 1,
        name: 'design',
        description: 'Pixels *and* more',
        rendered_description: '<p>Pixels <em>and</em> more</p>',
        invite_only: false,
        is_web_public: false,
        history_public_to_subscribers: true,
        is_default: true,
        topics_policy: 'inherit',
        message_retention_days: null,
        creator_id: 4,
        date_created: 1_700_000_000,
      },
    ]));

  it('allocates the id after the highest one seen', () =>
    when([general, channelCreated(2, 'random')]).then([channelCreated(3, 'engineering')]));

  it('allocates past gaps', () => when([channelCreated(7, 'seven')]).then([channelCreated(8, 'engineering')]));

  it('has no creator when a trusted internal caller creates it', () =>
    when([], { actor: undefined }).then([channelCreated(1, 'engineering', { creator_id: null })]));

  it('refuses a name already taken, whatever its case', () =>
    when([general], { name: 'general' }).thenThrows({ code: 'BAD_REQUEST', msg: "Channel 'general' already exists" }));

  it('refuses a taken name with surrounding spaces', () =>
    when([general], { name: '  GENERAL ' }).thenThrows({ code: 'BAD_REQUEST', msg: "Channel 'GENERAL' already exists" }));

  it('accepts a name of 60 code points, even when they take 120 UTF-16 units', () =>
    when([], { name: '😀'.repeat(60) }).then([channelCreated(1, '😀'.repeat(60))]));

  it.each([
    ['ASCII', 'x'.repeat(61)],
    ['emoji', '😀'.repeat(61)],
  ])('refuses a name of 61 code points (%s)', (_, name) =>
    when([], { name }).thenThrows({ code: 'BAD_REQUEST', msg: 'Channel name too long (limit: 60 characters)' }));

  it.each(['', '   ', '\t\n'])('refuses the empty name %j', (name) =>
    when([], { name }).thenThrows({ code: 'BAD_REQUEST', msg: 'Channel name is required' }));

  it.each(['bad\u0000name', 'bell\u0007', 'new\nline', 'tab\there', 'del\u007f', 'esc\u001b[0m'])('refuses the control character in %j', (name) =>
    when([], { name }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid character in channel name' }));

  it('accepts a description of 1024 code points', () =>
    when([], { description: '😀'.repeat(1024) }).then([channelCreated(1, 'engineering', { description: '😀'.repeat(1024) })]));

  it('refuses a description of 1025 code points', () =>
    when([], { description: 'x'.repeat(1025) }).thenThrows({ code: 'BAD_REQUEST', msg: 'Channel description too long' }));

  it('refuses a guest', () => when([], { actor: guest }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));
  it('refuses a guest without revealing that a name is taken', () =>
    when([channelCreated(1, 'engineering')], { actor: guest }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it.each([
    ['owner', owner],
    ['administrator', admin],
    ['moderator', moderator],
  ])('lets a %s create a channel', (_, by) =>
    when([], { actor: by }).then([channelCreated(1, 'engineering', { creator_id: by.user_id })]));

  describe('history_public_to_subscribers', () => {
    it.each([undefined, true, false])('is always true for a public channel (asked %p)', (asked) =>
      when([], { history_public_to_subscribers: asked }).then([channelCreated(1, 'engineering', { history_public_to_subscribers: true })]));

    it('defaults to false for a private channel', () =>
      when([], { invite_only: true }).then([channelCreated(1, 'engineering', { invite_only: true, history_public_to_subscribers: false })]));

    it.each([true, false])('is as asked (%p) for a private channel', (asked) =>
      when([], { invite_only: true, history_public_to_subscribers: asked }).then([
        channelCreated(1, 'engineering', { invite_only: true, history_public_to_subscribers: asked }),
      ]));
  });
});

describe('evolveRegistry', () => {
  it('indexes names in lower case and ignores other facts', () => {
    const state = [channelCreated(1, 'General'), { type: 'SubscriptionsAdded', channel_id: 1, user_ids: [1] } as Fact, channelCreated(2, 'Ops')].reduce(
      evolveRegistry,
      initialRegistry(),
    );
    expect([...state.byName]).toEqual([
      ['general', 1],
      ['ops', 2],
    ]);
    expect(state.lastChannelId).toBe(2);
  });
});

const channel = deciderSpec<ChannelState, Subscribe>({
  initial: initialChannel,
  evolve: evolveChannel,
  decide: (cmd, state) => decideSubscribe(state, cmd),
});

describe('decideSubscribe', () => {
  const subscribed = (...user_ids: number[]): Fact => ({ type: 'SubscriptionsAdded', channel_id: 10, user_ids });
  const unsubscribed = (...user_ids: number[]): Fact => ({ type: 'SubscriptionsRemoved', channel_id: 10, user_ids });
  const subscribe = (by: Actor | undefined, user_ids: number[], invite_only = false): Subscribe => ({ actor: by, channel_id: 10, invite_only, user_ids });

  it('adds only the new subscribers, once each, in id order', () =>
    channel.given([subscribed(1, 2)]).when(subscribe(admin, [6, 2, 3, 6])).then([subscribed(3, 6)]));

  it('decides nothing when everyone is already subscribed', () =>
    channel.given([subscribed(1, 4)]).when(subscribe(admin, [4, 1])).then([]));

  it('decides nothing for a member already subscribed', () => channel.given([subscribed(4)]).when(subscribe(member, [4])).then([]));

  it('subscribes again after an unsubscription', () =>
    channel.given([subscribed(4, 6), unsubscribed(4)]).when(subscribe(admin, [4, 6])).then([subscribed(4)]));

  it('lets a member subscribe themselves to a public channel', () => channel.given([]).when(subscribe(member, [4])).then([subscribed(4)]));

  it.each([
    ['member', member],
    ['moderator', moderator],
  ])('refuses a %s subscribing someone else', (_, by) =>
    channel.given([]).when(subscribe(by, [6])).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('refuses a member subscribing themselves together with someone else', () =>
    channel.given([]).when(subscribe(member, [4, 6])).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('refuses a guest subscribing themselves to a public channel', () =>
    channel.given([]).when(subscribe(guest, [5])).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('refuses a member subscribing themselves to a private channel', () =>
    channel.given([]).when(subscribe(member, [4], true)).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it.each([
    ['owner', owner],
    ['administrator', admin],
  ])('lets an %s subscribe others to a private channel', (_, by) =>
    channel.given([]).when(subscribe(by, [6, 4], true)).then([subscribed(4, 6)]));

  it('lets an administrator subscribe a guest', () => channel.given([]).when(subscribe(admin, [5])).then([subscribed(5)]));

  it('lets a trusted internal caller (no actor) subscribe anyone to a private channel', () =>
    channel.given([]).when(subscribe(undefined, [1, 2], true)).then([subscribed(1, 2)]));
});

describe('evolveChannel', () => {
  it('adds and removes subscribers without touching the state it is given', () => {
    const before = evolveChannel(initialChannel(), { type: 'SubscriptionsAdded', channel_id: 10, user_ids: [1, 2, 3] });
    const after = evolveChannel(before, { type: 'SubscriptionsRemoved', channel_id: 10, user_ids: [2, 9] });
    expect([...before.subscribers].sort()).toEqual([1, 2, 3]);
    expect([...after.subscribers].sort()).toEqual([1, 3]);
  });
});
