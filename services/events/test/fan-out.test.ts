import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, ClientEvent, SYSTEM_GROUP, type Fact, type FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { channelCreatedFact } from '@teamchat/platform/testing';
import { EventQueue, type QueueOptions } from '../src/domain/event-queue';
import { deliveriesFor as fanOut, type Delivery } from '../src/projections/fan-out';

/**
 * The fan-out, with every event it builds in these tests parsed against its client-event
 * schema: an event whose shape drifted from the schema (a field missing, renamed, added
 * or of another type) fails the test that built it.
 */
function deliveriesFor(fact: StoredFact): Delivery[] {
  return fanOut(fact, { apiKeyOf: (salt) => `key-of-${salt}` }).map((delivery) => ({
    ...delivery,
    eventFor: (q) => {
      const event = delivery.eventFor(q);
      if (event) expect(ClientEvent.parse(event)).toEqual(event);
      return event;
    },
  }));
}

const opOf = (event: ClientEvent | null) => (event && 'op' in event ? event.op : undefined);

const stored = (data: unknown, position = 42): StoredFact => ({
  id: 'fact-1',
  stream: 'message-0b6f',
  revision: 0,
  position,
  type: (data as { type?: string }).type ?? 'Unknown',
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

const sent = (overrides: Partial<FactOf<'MessageSent'>> = {}): FactOf<'MessageSent'> => ({
  type: 'MessageSent',
  sender_id: 4,
  sender_email: 'mark@acme.example',
  sender_full_name: 'Mark',
  recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'greetings' },
  content: 'hello **world**',
  rendered_content: '<p>hello <strong>world</strong></p>',
  is_me_message: false,
  client: 'website',
  recipient_id: 7,
  timestamp: 1_700_000_000,
  recipient_user_ids: [1, 4, 6],
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: { queue_id: 'q-mark', local_id: '1.01' },
  ...overrides,
});

const queue = (id: string, user_id: number, options: Partial<QueueOptions> = {}) =>
  new EventQueue(id, { user_id, event_types: null, apply_markdown: true, client_gravatar: true, empty_topic_name: false, narrow: [], ...options });

/** The one delivery of a MessageSent fact, as the given queue sees it. */
function eventFor(fact: Fact, q: EventQueue) {
  const deliveries = deliveriesFor(stored(fact));
  expect(deliveries).toHaveLength(1);
  return deliveries[0]!.eventFor(q) as unknown as Record<string, unknown> & { message: Record<string, unknown>; flags: string[] };
}

describe('deliveriesFor a MessageSent fact', () => {
  it('delivers to exactly the recipients of the message', () => {
    const deliveries = deliveriesFor(stored(sent({ recipient_user_ids: [1, 4, 6] })));
    expect(deliveries.map((d) => d.user_ids)).toEqual([[1, 4, 6]]);
  });

  it('gives a recipient the message event, with the fact position as message id', () => {
    expect(eventFor(sent(), queue('q-olivia', 1))).toEqual({
      type: 'message',
      flags: [],
      message: {
        id: 42,
        sender_id: 4,
        sender_email: 'mark@acme.example',
        sender_full_name: 'Mark',
        sender_realm_str: 'zulip',
        avatar_url: null,
        client: 'website',
        content: '<p>hello <strong>world</strong></p>',
        content_type: 'text/html',
        recipient_id: 7,
        timestamp: 1_700_000_000,
        is_me_message: false,
        reactions: [],
        submessages: [],
        topic_links: [],
        type: 'stream',
        stream_id: 10,
        display_recipient: 'general',
        subject: 'greetings',
      },
    });
  });

  it('gives the Markdown source to a queue without apply_markdown', () => {
    const { message } = eventFor(sent(), queue('q-olivia', 1, { apply_markdown: false }));
    expect(message.content).toBe('hello **world**');
    expect(message.content_type).toBe('text/x-markdown');
  });

  it("gives the sender's gravatar to a queue that does not compute it", () => {
    const hash = createHash('md5').update('mark@acme.example').digest('hex');
    const { message } = eventFor(sent(), queue('q-olivia', 1, { client_gravatar: false }));
    expect(message.avatar_url).toBe(`https://secure.gravatar.com/avatar/${hash}?d=identicon&version=1`);
  });

  it('shows the empty topic by its display name', () => {
    const { message } = eventFor(sent({ recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: '' } }), queue('q-olivia', 1));
    expect(message.subject).toBe('general chat');
  });

  it('formats a direct message with its participants', () => {
    const users = [
      { id: 4, email: 'mark@acme.example', full_name: 'Mark', is_mirror_dummy: false },
      { id: 5, email: 'mary@acme.example', full_name: 'Mary', is_mirror_dummy: false },
    ];
    const { message } = eventFor(sent({ recipient: { type: 'direct', users }, recipient_user_ids: [4, 5] }), queue('q-mary', 5));
    expect(message).toMatchObject({ type: 'private', display_recipient: users, subject: '', recipient_id: 7 });
    expect(message).not.toHaveProperty('stream_id');
  });

  it('makes one event for the queues that see the message alike, and a separate one per format and flags', () => {
    const [delivery] = deliveriesFor(stored(sent({ mentioned_user_ids: [6] })));
    const olivia = delivery!.eventFor(queue('q-olivia', 1));
    expect(delivery!.eventFor(queue('q-olivia-2', 1))).toBe(olivia);
    const markdownSource = delivery!.eventFor(queue('q-olivia-3', 1, { apply_markdown: false })) as unknown as { message: { content: string } };
    expect(markdownSource).not.toBe(olivia);
    expect(markdownSource.message.content).toBe('hello **world**');
    const gus = delivery!.eventFor(queue('q-gus', 6)) as unknown as { message: unknown; flags: string[] };
    expect(gus.flags).toEqual(['mentioned']);
    expect(gus).not.toBe(olivia);
    // The sender's echo is the sending queue's own.
    const echoed = delivery!.eventFor(queue('q-mark', 4));
    expect(echoed).toHaveProperty('local_message_id', '1.01');
    expect(delivery!.eventFor(queue('q-mark-phone', 4))).not.toHaveProperty('local_message_id');
  });

  describe('local echo', () => {
    it("gives local_message_id to the sender's queue named in the echo", () => {
      expect(eventFor(sent(), queue('q-mark', 4)).local_message_id).toBe('1.01');
    });

    it("leaves it out of the sender's other queues", () => {
      expect(eventFor(sent(), queue('q-mark-phone', 4))).not.toHaveProperty('local_message_id');
    });

    it("leaves it out of another user's queue, even one with the same id", () => {
      expect(eventFor(sent(), queue('q-mark', 1))).not.toHaveProperty('local_message_id');
    });

    it('leaves it out when the message had no echo', () => {
      expect(eventFor(sent({ local_echo: null }), queue('q-mark', 4))).not.toHaveProperty('local_message_id');
    });
  });

  describe('flags', () => {
    it("include 'read' for the sender when read_by_sender", () => {
      expect(eventFor(sent({ read_by_sender: true }), queue('q-mark', 4)).flags).toEqual(['read']);
    });

    it("leave 'read' out for the sender when not read_by_sender", () => {
      expect(eventFor(sent({ read_by_sender: false }), queue('q-mark', 4)).flags).toEqual([]);
    });

    it("never include 'read' for another recipient", () => {
      expect(eventFor(sent({ read_by_sender: true }), queue('q-olivia', 1)).flags).toEqual([]);
    });

    it('mark mentions for the mentioned user only', () => {
      const fact = sent({ mentioned_user_ids: [1], wildcard_mentioned_user_ids: [6] });
      expect(eventFor(fact, queue('q-olivia', 1)).flags).toEqual(['mentioned']);
      expect(eventFor(fact, queue('q-gus', 6)).flags).toEqual(['wildcard_mentioned']);
      expect(eventFor(fact, queue('q-mark', 4)).flags).toEqual(['read']);
    });
  });
});

describe('deliveriesFor other facts', () => {
  it.each<Fact>([
    { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 0 },
    { type: 'UserDeactivated', user_id: 4 },
    { type: 'SubscriptionsAdded', channel_id: 10, user_ids: [4] },
    { type: 'RecipientAllocated', key: 'channel:10', recipient_id: 7 },
  ])('delivers nothing for $type', (fact) => {
    expect(deliveriesFor(stored(fact))).toEqual([]);
  });

  it('delivers nothing for data that is not a known fact', () => {
    expect(deliveriesFor(stored({ type: 'SomethingElse', user_ids: [1] }))).toEqual([]);
    expect(deliveriesFor(stored({ ...sent(), recipient_user_ids: 'everyone' }))).toEqual([]);
  });
});

describe('deliveriesFor changes to messages', () => {
  const edited = (move: Partial<NonNullable<FactOf<'MessageEdited'>['move']>> | null): FactOf<'MessageEdited'> => ({
    type: 'MessageEdited',
    message_id: 42,
    editor_id: 2,
    timestamp: 1_700_000_100,
    content: null,
    move: move && {
      prev_channel_id: 10,
      channel_id: 11,
      channel_name: 'secret',
      prev_topic: 'greetings',
      topic: 'greetings',
      propagate_mode: 'change_all',
      message_ids: [42, 43],
      recipient_id: 9,
      revoked_user_ids: [],
      ...move,
    },
    audience_user_ids: [1, 2, 4, 6],
  });

  it('announces a move as update_message to the audience', () => {
    const deliveries = deliveriesFor(stored(edited({})));
    expect(deliveries.map((d) => d.user_ids)).toEqual([[1, 2, 4, 6]]);
    expect(deliveries[0]!.eventFor(queue('q', 1))).toMatchObject({
      type: 'update_message',
      message_ids: [42, 43],
      stream_id: 10,
      new_stream_id: 11,
      orig_subject: 'greetings',
      propagate_mode: 'change_all',
    });
  });

  it('tells users who lost access that the messages are gone, and nothing else', () => {
    const deliveries = deliveriesFor(stored(edited({ revoked_user_ids: [4, 6] })));
    // The bulk form, then one per message for clients without bulk_message_deletion.
    expect(deliveries.map((d) => d.user_ids)).toEqual([[1, 2], [4, 6], [4, 6], [4, 6]]);
    expect(deliveries[1]!.eventFor(queue('q', 4, { bulk_message_deletion: true }))).toEqual({
      type: 'delete_message',
      message_ids: [42, 43],
      message_type: 'stream',
      stream_id: 10,
      topic: 'greetings',
    });
  });

  const unread: FactOf<'MessageFlagsUpdated'> = {
    type: 'MessageFlagsUpdated',
    user_id: 4,
    op: 'remove',
    flag: 'read',
    message_ids: [42, 50],
    message_details: {
      '42': { type: 'channel', channel_id: 10, topic: 'greetings', mentioned: true },
      '50': { type: 'direct', user_ids: [1, 4] },
    },
  };
  const unreadEvent = {
    type: 'update_message_flags',
    op: 'remove',
    operation: 'remove',
    flag: 'read',
    messages: [42, 50],
    all: false,
    message_details: {
      '42': { type: 'stream', stream_id: 10, topic: 'greetings', mentioned: true },
      '50': { type: 'private', user_ids: [1, 4] },
    },
  };

  it('carries message_details when messages become unread again, in the API’s names', () => {
    const deliveries = deliveriesFor(stored(unread));
    expect(deliveries.map((d) => d.user_ids)).toEqual([[4]]);
    expect(deliveries[0]!.eventFor(queue('q', 4))).toEqual(unreadEvent);
  });

  it('announces message_details stored in the API’s names the same way', () => {
    const old = { ...unread, message_details: unreadEvent.message_details };
    expect(deliveriesFor(stored(old))[0]!.eventFor(queue('q', 4))).toEqual(unreadEvent);
  });
});

describe('deliveriesFor channel facts', () => {
  // Stored without group-settings: they are read as Zulip's defaults.
  const created = channelCreatedFact({
    channel_id: 10,
    name: 'design',
    description: 'Pixels',
    rendered_description: '<p>Pixels</p>',
    creator_id: 4,
    audience_user_ids: [1, 4, 5],
  });
  const channel = channelFromCreated(created);
  const eventsOf = (fact: Fact) => deliveriesFor(stored(fact)).map((d) => ({ user_ids: d.user_ids, event: d.eventFor(queue('q', d.user_ids[0] ?? 0)) }));

  it('announces a new channel as a stream create to its audience, with every group-setting', () => {
    const [delivery, ...rest] = eventsOf(created);
    expect(rest).toEqual([]);
    expect(delivery!.user_ids).toEqual([1, 4, 5]);
    expect(delivery!.event).toMatchObject({
      type: 'stream',
      op: 'create',
      streams: [
        {
          stream_id: 10,
          name: 'design',
          rendered_description: '<p>Pixels</p>',
          is_archived: false,
          first_message_id: null,
          subscriber_count: 0,
          stream_post_policy: 1,
          can_send_message_group: SYSTEM_GROUP.everyone,
          can_administer_channel_group: { direct_members: [4], direct_subgroups: [] },
          can_move_messages_within_channel_group: SYSTEM_GROUP.nobody,
        },
      ],
    });
  });

  it('sends the default channels to everyone who is told of them', () => {
    const deliveries = eventsOf({ ...created, is_default: true, default_channels: { channel_ids: [1, 10], user_ids: [1, 4] } });
    expect(deliveries[1]).toEqual({ user_ids: [1, 4], event: { type: 'default_streams', default_streams: [1, 10] } });
  });

  it('tells the channel to those it is shown to, the subscription to the new subscribers, and peer_add to the others', () => {
    const deliveries = eventsOf({
      type: 'SubscriptionsAdded',
      channel_id: 10,
      user_ids: [5, 6],
      channel,
      first_message_id: 42,
      subscriber_ids: [4, 5, 6],
      shown_user_ids: [6],
      peer_user_ids: [1, 4],
    });
    expect(deliveries.map((d) => [d.user_ids, d.event?.type, opOf(d.event)])).toEqual([
      [[6], 'stream', 'create'],
      [[5, 6], 'subscription', 'add'],
      [[1, 4], 'subscription', 'peer_add'],
    ]);
    expect(deliveries[1]!.event).toMatchObject({
      subscriptions: [{ stream_id: 10, name: 'design', subscribers: [4, 5, 6], subscriber_count: 3, first_message_id: 42, is_muted: false, in_home_view: true }],
    });
    expect(deliveries[2]!.event).toEqual({ type: 'subscription', op: 'peer_add', stream_ids: [10], user_ids: [5, 6] });
  });

  it('announces a changed group-setting as a stream update with the value as a group-setting', () => {
    const fact: FactOf<'ChannelUpdated'> = {
      type: 'ChannelUpdated',
      channel_id: 10,
      name: 'design',
      change: { property: 'can_send_message_group', value: { direct_members: [4], direct_subgroups: [SYSTEM_GROUP.administrators] } },
      audience_user_ids: [1, 4],
    };
    expect(eventsOf(fact)).toEqual([
      {
        user_ids: [1, 4],
        event: {
          type: 'stream',
          op: 'update',
          stream_id: 10,
          name: 'design',
          property: 'can_send_message_group',
          value: { direct_members: [4], direct_subgroups: [SYSTEM_GROUP.administrators] },
        },
      },
    ]);
  });

  it('carries the rendering with a new description, and the history setting with a privacy change', () => {
    const base = { type: 'ChannelUpdated' as const, channel_id: 10, name: 'design', audience_user_ids: [1] };
    expect(eventsOf({ ...base, change: { property: 'description', value: 'x', rendered_description: '<p>x</p>' } })[0]!.event).toMatchObject({
      property: 'description',
      value: 'x',
      rendered_description: '<p>x</p>',
    });
    expect(
      eventsOf({ ...base, change: { property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false } })[0]!.event,
    ).toMatchObject({ property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false });
  });

  it('shows a channel whole to those who gain sight of it and removes it for those who lose it', () => {
    const deliveries = eventsOf({
      type: 'ChannelUpdated',
      channel_id: 10,
      name: 'design',
      change: { property: 'invite_only', value: false, history_public_to_subscribers: true, is_web_public: false },
      audience_user_ids: [1],
      shown: { user_ids: [5], channel, subscriber_ids: [1], first_message_id: null },
      hidden_user_ids: [7],
    });
    expect(deliveries.map((d) => [d.user_ids, d.event?.type, opOf(d.event)])).toEqual([
      [[1], 'stream', 'update'],
      [[5], 'stream', 'create'],
      [[5], 'subscription', 'peer_add'],
      [[7], 'stream', 'delete'],
    ]);
    expect(deliveries[3]!.event).toEqual({ type: 'stream', op: 'delete', streams: [{ stream_id: 10, name: 'design' }], stream_ids: [10] });
  });

  it('announces a default-channel change only as the list of default channels', () => {
    const deliveries = eventsOf({
      type: 'ChannelUpdated',
      channel_id: 10,
      name: 'design',
      change: { property: 'is_default', value: true },
      audience_user_ids: [1, 4],
      default_channels: { channel_ids: [10], user_ids: [1, 4] },
    });
    expect(deliveries).toEqual([{ user_ids: [1, 4], event: { type: 'default_streams', default_streams: [10] } }]);
  });

  it('announces archiving and unarchiving as is_archived updates to clients with the archived_channels capability', () => {
    const withCapability = (fact: Fact) => deliveriesFor(stored(fact)).map((d) => ({ user_ids: d.user_ids, event: d.eventFor(queue('q', 4, { archived_channels: true })) }));
    expect(withCapability({ type: 'ChannelArchived', channel_id: 10, name: 'design', audience_user_ids: [1, 4] })).toEqual([
      { user_ids: [1, 4], event: { type: 'stream', op: 'update', stream_id: 10, name: 'design', property: 'is_archived', value: true } },
    ]);
    const unarchived = withCapability({ type: 'ChannelUnarchived', channel_id: 10, name: 'design', audience_user_ids: [4], channel, subscriber_ids: [4], first_message_id: 3 });
    expect(unarchived).toEqual([{ user_ids: [4], event: { type: 'stream', op: 'update', stream_id: 10, name: 'design', property: 'is_archived', value: false } }]);
  });

  it('announces archiving as a deletion and unarchiving as a creation to clients without it, which never see archived channels', () => {
    expect(eventsOf({ type: 'ChannelArchived', channel_id: 10, name: 'design', audience_user_ids: [1, 4] })).toEqual([
      { user_ids: [1, 4], event: { type: 'stream', op: 'delete', streams: [{ stream_id: 10, name: 'design' }], stream_ids: [10] } },
    ]);
    const unarchived = eventsOf({ type: 'ChannelUnarchived', channel_id: 10, name: 'design', audience_user_ids: [4], channel, subscriber_ids: [4], first_message_id: 3 });
    expect(unarchived.map((d) => d.event)).toEqual([expect.objectContaining({ type: 'stream', op: 'create', for_unarchiving: true })]);
    for (const { event } of unarchived) expect(ClientEvent.parse(event)).toEqual(event);
  });
});

describe('client event schemas', () => {
  it('take every event the fan-out builds for reactions, deletions, content edits and topic policies', () => {
    const reaction = { message_id: 42, user_id: 4, emoji_name: 'ok', emoji_code: '1f44c', reaction_type: 'unicode_emoji' as const, audience_user_ids: [1, 4] };
    const facts: Fact[] = [
      { type: 'ReactionAdded', ...reaction },
      { type: 'ReactionRemoved', ...reaction },
      { type: 'MessageDeleted', message_id: 42, deleted_by: 4, channel_id: 10, topic: 'greetings', audience_user_ids: [4] },
      { type: 'MessageDeleted', message_id: 43, deleted_by: 4, channel_id: null, topic: null, audience_user_ids: [4] },
      {
        type: 'MessageEdited',
        message_id: 42,
        editor_id: 4,
        timestamp: 1_700_000_100,
        content: {
          prev_content: 'a',
          prev_rendered_content: '<p>a</p>',
          content: 'b @**Olivia**',
          rendered_content: '<p>b</p>',
          is_me_message: false,
          mentioned_user_ids: [1],
          wildcard_mentioned_user_ids: [],
        },
        move: null,
        audience_user_ids: [1, 4],
      },
      { type: 'UserTopicUpdated', user_id: 4, channel_id: 10, topic: 'greetings', visibility_policy: 3, last_updated: 1_700_000_000 },
    ];
    const events = facts.flatMap((fact) => deliveriesFor(stored(fact)).map((d) => d.eventFor(queue('q', 1))));
    // Each deletion has a delivery per form (capability-fan-out.test.ts); this queue takes one.
    expect(events.filter((e) => e !== null).map((e) => e?.type)).toEqual(['reaction', 'reaction', 'delete_message', 'delete_message', 'update_message', 'user_topic']);
  });

  it('take the heartbeat the queues send when nothing happened', () => {
    expect(ClientEvent.parse({ type: 'heartbeat' })).toEqual({ type: 'heartbeat' });
  });

  it('refuse an event with a field the API does not have, or without one it requires', () => {
    const reaction = { type: 'reaction', op: 'add', message_id: 1, user_id: 4, emoji_name: 'ok', emoji_code: '1f44c', reaction_type: 'unicode_emoji' };
    expect(ClientEvent.safeParse(reaction).success).toBe(true);
    expect(ClientEvent.safeParse({ ...reaction, emoji: 'ok' }).success).toBe(false);
    const { user_id: _user, ...withoutUser } = reaction;
    expect(ClientEvent.safeParse(withoutUser).success).toBe(false);
  });
});

describe('deliveriesFor subscription removals, subscriber settings and folders', () => {
  const channel = channelFromCreated(channelCreatedFact({ channel_id: 10, name: 'design' }));
  const eventsOf = (fact: Fact) => deliveriesFor(stored(fact)).map((d) => ({ user_ids: d.user_ids, event: d.eventFor(queue('q', d.user_ids[0] ?? 0)) }));

  it('tells the removed users, peer_remove to the others, and stream delete to those who no longer see the channel', () => {
    expect(eventsOf({ type: 'SubscriptionsRemoved', channel_id: 10, user_ids: [4] })).toEqual([]);
    expect(eventsOf({ type: 'SubscriptionsRemoved', channel_id: 10, user_ids: [4, 6], name: 'design', peer_user_ids: [1, 5], hidden_user_ids: [6] })).toEqual([
      { user_ids: [4, 6], event: { type: 'subscription', op: 'remove', subscriptions: [{ stream_id: 10, name: 'design' }] } },
      { user_ids: [1, 5], event: { type: 'subscription', op: 'peer_remove', stream_ids: [10], user_ids: [4, 6] } },
      { user_ids: [6], event: { type: 'stream', op: 'delete', streams: [{ stream_id: 10, name: 'design' }], stream_ids: [10] } },
    ]);
  });

  it("tells a subscriber their own setting, muting both ways", () => {
    const setting = (property: FactOf<'SubscriptionPropertyUpdated'>['property'], value: boolean | string | null): Fact => ({
      type: 'SubscriptionPropertyUpdated',
      channel_id: 10,
      user_id: 4,
      property,
      value,
    });
    expect(eventsOf(setting('is_muted', true))).toEqual([
      { user_ids: [4], event: { type: 'subscription', op: 'update', stream_id: 10, property: 'in_home_view', value: false } },
      { user_ids: [4], event: { type: 'subscription', op: 'update', stream_id: 10, property: 'is_muted', value: true } },
    ]);
    expect(eventsOf(setting('color', '#abcdef'))).toEqual([
      { user_ids: [4], event: { type: 'subscription', op: 'update', stream_id: 10, property: 'color', value: '#abcdef' } },
    ]);
  });

  it('gives a re-subscribed user their settings back in their own subscription event', () => {
    const deliveries = eventsOf({
      type: 'SubscriptionsAdded',
      channel_id: 10,
      user_ids: [4, 5],
      channel,
      first_message_id: null,
      subscriber_ids: [4, 5],
      shown_user_ids: [],
      peer_user_ids: [1],
      properties: { '4': { color: '#000000', is_muted: true, desktop_notifications: false } },
    });
    expect(deliveries.map((d) => [d.user_ids, opOf(d.event)])).toEqual([
      [[], 'create'],
      [[5], 'add'],
      [[4], 'add'],
      [[1], 'peer_add'],
    ]);
    expect(deliveries[2]!.event).toMatchObject({ subscriptions: [{ color: '#000000', is_muted: true, in_home_view: false, desktop_notifications: false, pin_to_top: false }] });
  });

  it('tells every user of a new or changed folder', () => {
    expect(
      eventsOf({
        type: 'ChannelFolderCreated',
        folder_id: 3,
        name: 'Work',
        description: 'd',
        rendered_description: '<p>d</p>',
        order: 3,
        creator_id: 2,
        date_created: 1_700_000_000,
        audience_user_ids: [1, 2, 6],
      }),
    ).toEqual([
      {
        user_ids: [1, 2, 6],
        event: {
          type: 'channel_folder',
          op: 'add',
          channel_folder: { id: 3, name: 'Work', description: 'd', rendered_description: '<p>d</p>', order: 3, date_created: 1_700_000_000, creator_id: 2, is_archived: false },
        },
      },
    ]);
    expect(eventsOf({ type: 'ChannelFolderUpdated', folder_id: 3, name: 'Play', is_archived: true, audience_user_ids: [1] })).toEqual([
      { user_ids: [1], event: { type: 'channel_folder', op: 'update', channel_folder_id: 3, data: { name: 'Play', is_archived: true } } },
    ]);
  });
});
