/**
 * What clients see of channels, subscriptions and channel folders: `stream`,
 * `subscription`, `default_streams` and `channel_folder` events, to the users each fact
 * names (channels decided who may see the channel).
 */
import {
  channelApiObject,
  channelFromCreated,
  subscriptionApiObject,
  type ChannelView,
  type ClientEvent,
  type FactOf,
  type StreamCreateEvent,
  type StreamUpdateEvent,
} from '@teamchat/contracts';
import { same, type Delivery } from './delivery';

export const channelFanOut = {
  ChannelCreated: (fact: FactOf<'ChannelCreated'>): Delivery[] => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same(streamCreated(channelFromCreated(fact), { first_message_id: null, subscriber_count: 0 })),
    },
    ...defaultChannelsDelivery(fact.default_channels),
  ],
  ChannelUpdated: (fact: FactOf<'ChannelUpdated'>) => channelUpdateDeliveries(fact),
  // As Zulip since feature level 378: a client that handles archived channels sees the
  // channel updated; any other never sees an archived channel, so it sees it deleted (and
  // created again when unarchived), matching the register state it got.
  ChannelArchived: (fact: FactOf<'ChannelArchived'>): Delivery[] => {
    const updated = streamUpdate(fact.channel_id, fact.name, 'is_archived', true);
    const deleted = streamDeleted(fact.channel_id, fact.name);
    return [
      { user_ids: fact.audience_user_ids, eventFor: (queue) => (queue.options.archived_channels ? updated : deleted) },
      ...defaultChannelsDelivery(fact.default_channels),
    ];
  },
  ChannelUnarchived: (fact: FactOf<'ChannelUnarchived'>): Delivery[] => {
    const extra = { first_message_id: fact.first_message_id, subscriber_count: fact.subscriber_ids.length };
    const updated = streamUpdate(fact.channel_id, fact.name, 'is_archived', false);
    const created = streamCreated(fact.channel, extra, true);
    return [{ user_ids: fact.audience_user_ids, eventFor: (queue) => (queue.options.archived_channels ? updated : created) }];
  },
  // A user group's membership changed who may see a private channel. As Zulip, only the
  // channel itself (whose subscriber_count holds its subscribers) or its removal: a peer_add
  // would count the subscribers a second time.
  ChannelAccessChanged: (fact: FactOf<'ChannelAccessChanged'>): Delivery[] => [
    ...(fact.shown
      ? [{ user_ids: fact.shown.user_ids, eventFor: same(streamCreated(fact.shown.channel, { first_message_id: fact.shown.first_message_id, subscriber_count: fact.shown.subscriber_ids.length })) }]
      : []),
    ...visibilityDeliveries(fact.channel_id, fact.name, undefined, fact.hidden_user_ids),
  ],
  SubscriptionsAdded: (fact: FactOf<'SubscriptionsAdded'>) => subscriptionDeliveries(fact),
  SubscriptionsRemoved: (fact: FactOf<'SubscriptionsRemoved'>) => unsubscriptionDeliveries(fact),
  SubscriptionPropertyUpdated: (fact: FactOf<'SubscriptionPropertyUpdated'>) => subscriptionPropertyDeliveries(fact),
  ChannelFolderCreated: (fact: FactOf<'ChannelFolderCreated'>): Delivery[] => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same({
        type: 'channel_folder',
        op: 'add',
        channel_folder: {
          id: fact.folder_id,
          name: fact.name,
          description: fact.description,
          rendered_description: fact.rendered_description,
          order: fact.order,
          date_created: fact.date_created,
          creator_id: fact.creator_id,
          is_archived: false,
        },
      }),
    },
  ],
  ChannelFoldersReordered: (fact: FactOf<'ChannelFoldersReordered'>): Delivery[] => [
    { user_ids: fact.audience_user_ids, eventFor: same({ type: 'channel_folder', op: 'reorder', order: fact.order }) },
  ],
  ChannelFolderUpdated: ({ audience_user_ids, folder_id, type: _type, ...data }: FactOf<'ChannelFolderUpdated'>): Delivery[] => [
    { user_ids: audience_user_ids, eventFor: same({ type: 'channel_folder', op: 'update', channel_folder_id: folder_id, data }) },
  ],
};

function streamCreated(
  channel: ChannelView,
  extra: { first_message_id: number | null; subscriber_count: number },
  forUnarchiving = false,
): StreamCreateEvent {
  return { type: 'stream', op: 'create', streams: [channelApiObject(channel, extra)], for_unarchiving: forUnarchiving };
}

function streamUpdate(
  channelId: number,
  name: string,
  property: string,
  value: StreamUpdateEvent['value'],
  extra: Pick<StreamUpdateEvent, 'rendered_description' | 'history_public_to_subscribers' | 'is_web_public'> = {},
): StreamUpdateEvent {
  return { type: 'stream', op: 'update', stream_id: channelId, name, property, value, ...extra };
}

const streamDeleted = (channelId: number, name: string): ClientEvent => ({ type: 'stream', op: 'delete', streams: [{ stream_id: channelId, name }], stream_ids: [channelId] });

function defaultChannelsDelivery(defaults: { channel_ids: number[]; user_ids: number[] } | undefined): Delivery[] {
  return defaults ? [{ user_ids: defaults.user_ids, eventFor: same({ type: 'default_streams', default_streams: defaults.channel_ids }) }] : [];
}

/** Users who may see the channel only now get it whole, with its subscribers; those who lost it see it go. */
function visibilityDeliveries(channelId: number, name: string, shown: FactOf<'ChannelUpdated'>['shown'], hidden: number[] | undefined): Delivery[] {
  const deliveries: Delivery[] = [];
  if (shown) {
    const extra = { first_message_id: shown.first_message_id, subscriber_count: shown.subscriber_ids.length };
    deliveries.push(
      { user_ids: shown.user_ids, eventFor: same(streamCreated(shown.channel, extra)) },
      { user_ids: shown.user_ids, eventFor: same({ type: 'subscription', op: 'peer_add', stream_ids: [channelId], user_ids: shown.subscriber_ids }) },
    );
  }
  if (hidden?.length) {
    deliveries.push({ user_ids: hidden, eventFor: same(streamDeleted(channelId, name)) });
  }
  return deliveries;
}

function channelUpdateDeliveries(fact: FactOf<'ChannelUpdated'>): Delivery[] {
  const { change } = fact;
  const deliveries: Delivery[] = [];
  // A default-channel change is announced as the new list of default channels, as Zulip does.
  if (change.property !== 'is_default') {
    const extra =
      change.property === 'description'
        ? { rendered_description: change.rendered_description }
        : change.property === 'invite_only'
          ? { history_public_to_subscribers: change.history_public_to_subscribers, is_web_public: change.is_web_public }
          : {};
    deliveries.push({ user_ids: fact.audience_user_ids, eventFor: same(streamUpdate(fact.channel_id, fact.name, change.property, change.value, extra)) });
  }
  return [...deliveries, ...visibilityDeliveries(fact.channel_id, fact.name, fact.shown, fact.hidden_user_ids), ...defaultChannelsDelivery(fact.default_channels)];
}

function subscriptionDeliveries(fact: FactOf<'SubscriptionsAdded'>): Delivery[] {
  // Facts stored before subscriptions carried their channel have nothing to tell.
  if (!fact.channel || !fact.subscriber_ids) return [];
  const channel = fact.channel;
  const firstMessageId = fact.first_message_id ?? null;
  const subscriberIds = fact.subscriber_ids;
  // Re-subscribed users get back the settings they had; the others have the defaults.
  const kept = fact.properties ?? {};
  const fresh = fact.user_ids.filter((id) => !kept[String(id)]);
  const added = (userIds: number[], settings?: Record<string, boolean | string | null>): Delivery => ({
    user_ids: userIds,
    eventFor: same({
      type: 'subscription',
      op: 'add',
      subscriptions: [subscriptionApiObject(channel, { first_message_id: firstMessageId, subscriber_ids: subscriberIds, settings })],
    }),
  });
  return [
    {
      user_ids: fact.shown_user_ids ?? [],
      eventFor: same(streamCreated(channel, { first_message_id: firstMessageId, subscriber_count: subscriberIds.length })),
    },
    added(fresh),
    ...Object.entries(kept).map(([id, settings]) => added([Number(id)], settings)),
    {
      user_ids: fact.peer_user_ids ?? [],
      eventFor: same({ type: 'subscription', op: 'peer_add', stream_ids: [fact.channel_id], user_ids: fact.user_ids }),
    },
  ];
}

function unsubscriptionDeliveries(fact: FactOf<'SubscriptionsRemoved'>): Delivery[] {
  // Facts stored before unsubscribing was an endpoint carry nothing to tell.
  if (fact.name === undefined) return [];
  const deliveries: Delivery[] = [
    {
      user_ids: fact.user_ids,
      eventFor: same({ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: fact.channel_id, name: fact.name }] }),
    },
    {
      user_ids: fact.peer_user_ids ?? [],
      eventFor: same({ type: 'subscription', op: 'peer_remove', stream_ids: [fact.channel_id], user_ids: fact.user_ids }),
    },
  ];
  if (fact.hidden_user_ids?.length) {
    deliveries.push({
      user_ids: fact.hidden_user_ids,
      eventFor: same({ type: 'stream', op: 'delete', streams: [{ stream_id: fact.channel_id, name: fact.name }], stream_ids: [fact.channel_id] }),
    });
  }
  return deliveries;
}

/** Muting is told both ways, as Zulip does: `is_muted` and its legacy inverse `in_home_view`. */
function subscriptionPropertyDeliveries(fact: FactOf<'SubscriptionPropertyUpdated'>): Delivery[] {
  const update = (property: string, value: boolean | string | null): Delivery => ({
    user_ids: [fact.user_id],
    eventFor: same({ type: 'subscription', op: 'update', stream_id: fact.channel_id, property, value }),
  });
  if (fact.property === 'is_muted') return [update('in_home_view', !fact.value), update('is_muted', fact.value)];
  return [update(fact.property, fact.value)];
}
