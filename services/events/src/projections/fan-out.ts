/**
 * Which client events a stored fact becomes, and for whom: the one place that decides
 * who may see a fact. Facts carry their audience (computed by the service that decided
 * them, from who may see the message); the events service applies the result to the
 * queues of exactly those users.
 */
import {
  channelApiObject,
  cachedGravatarUrls,
  channelFromCreated,
  displayTopic,
  Fact,
  formatMessage,
  initialMessageFlags,
  subscriptionApiObject,
  type ChannelView,
  type ClientEvent,
  type FactOf,
  type FactType,
  type StreamCreateEvent,
  type StreamUpdateEvent,
  type UpdateMessageFlagsEvent,
  type UserGroup,
} from '@teamchat/contracts';
import { factOf, type FactHandlers, type StoredFact } from '@teamchat/platform';
import type { Delivery } from './delivery';
import { realmSettingsDeliveries, userStatusEvent } from './org-fan-out';
import { matchesQueueNarrow } from '../domain/queue-narrow';
import { linkifierFanOut } from './linkifier-fan-out';
import { navigationViewFanOut } from './navigation-view-fan-out';
import { deviceFanOut } from './device-fan-out';
import { toolsFanOut } from './tools-fan-out';
import { scheduledFanOut } from './scheduled-fan-out';
import { uploadsFanOut } from './uploads-fan-out';
import { settingsFanOut } from './settings-fan-out';
import { inviteFanOut } from './invite-fan-out';
import { peopleFanOut, type FanOutContext } from './people-fan-out';

export type { FanOutContext };

export type { Delivery };

const same = (event: ClientEvent) => () => event;

/** A fact type that clients are not told of. */
const NO_CLIENT_EVENT = null;

type FanOutCase<T extends FactType> = ((fact: FactOf<T>, stored: StoredFact, ctx: FanOutContext) => Delivery[]) | typeof NO_CLIENT_EVENT;

/** People's cases (people-fan-out.ts), made once per context. */
const peopleCases = new WeakMap<FanOutContext, ReturnType<typeof peopleFanOut>>();
function people(ctx: FanOutContext): ReturnType<typeof peopleFanOut> {
  let cases = peopleCases.get(ctx);
  if (!cases) peopleCases.set(ctx, (cases = peopleFanOut(ctx)));
  return cases;
}

/**
 * Every fact type, with what clients see of it: a new fact type fails the build here
 * until someone decides whether and how it is announced.
 */
const fanOut = {
  OrganizationCreated: NO_CLIENT_EVENT,
  UserCreated: (fact, _stored, ctx) => people(ctx).UserCreated(fact),
  UserDeactivated: (fact, _stored, ctx) => people(ctx).UserDeactivated(fact),
  UserReactivated: (fact, _stored, ctx) => people(ctx).UserReactivated(fact),
  UserPasswordSet: NO_CLIENT_EVENT,
  UserRoleChanged: (fact, _stored, ctx) => people(ctx).UserRoleChanged(fact),
  UserFullNameChanged: (fact, _stored, ctx) => people(ctx).UserFullNameChanged(fact),
  BotOwnerChanged: (fact, _stored, ctx) => people(ctx).BotOwnerChanged(fact),
  BotSettingsChanged: (fact, _stored, ctx) => people(ctx).BotSettingsChanged(fact),
  BotApiKeyRegenerated: (fact, _stored, ctx) => people(ctx).BotApiKeyRegenerated(fact),
  // Set only by trusted internal callers (seeding) so far; the organization-settings work
  // announces it as Zulip's realm update of new_stream_announcements_stream_id.
  NewChannelAnnouncementsChannelChanged: NO_CLIENT_EVENT,
  ChannelCreated: (fact) => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same(streamCreated(channelFromCreated(fact), { first_message_id: null, subscriber_count: 0 })),
    },
    ...defaultChannelsDelivery(fact.default_channels),
  ],
  ChannelUpdated: (fact) => channelUpdateDeliveries(fact),
  ChannelArchived: (fact) => [
    { user_ids: fact.audience_user_ids, eventFor: same(streamUpdate(fact.channel_id, fact.name, 'is_archived', true)) },
    ...defaultChannelsDelivery(fact.default_channels),
  ],
  ChannelUnarchived: (fact) => {
    const extra = { first_message_id: fact.first_message_id, subscriber_count: fact.subscriber_ids.length };
    return [
      { user_ids: fact.audience_user_ids, eventFor: same(streamUpdate(fact.channel_id, fact.name, 'is_archived', false)) },
      { user_ids: fact.audience_user_ids, eventFor: same(streamCreated(fact.channel, extra, true)) },
    ];
  },
  // A user group's membership changed who may see a private channel. As Zulip, only the
  // channel itself (whose subscriber_count holds its subscribers) or its removal: a peer_add
  // would count the subscribers a second time.
  ChannelAccessChanged: (fact) => [
    ...(fact.shown
      ? [{ user_ids: fact.shown.user_ids, eventFor: same(streamCreated(fact.shown.channel, { first_message_id: fact.shown.first_message_id, subscriber_count: fact.shown.subscriber_ids.length })) }]
      : []),
    ...visibilityDeliveries(fact.channel_id, fact.name, undefined, fact.hidden_user_ids),
  ],
  SubscriptionsAdded: (fact) => subscriptionDeliveries(fact),
  SubscriptionsRemoved: (fact) => unsubscriptionDeliveries(fact),
  SubscriptionPropertyUpdated: (fact) => subscriptionPropertyDeliveries(fact),
  ChannelFolderCreated: (fact) => [
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
  ChannelFolderUpdated: ({ audience_user_ids, folder_id, type: _type, ...data }) => [
    { user_ids: audience_user_ids, eventFor: same({ type: 'channel_folder', op: 'update', channel_folder_id: folder_id, data }) },
  ],
  RecipientAllocated: NO_CLIENT_EVENT,
  MessageSent: (fact, stored) => [messageDelivery(fact, stored.position)],
  ReactionAdded: (fact) => [reactionDelivery(fact, 'add')],
  ReactionRemoved: (fact) => [reactionDelivery(fact, 'remove')],
  MessageEdited: (fact) => editDeliveries(fact),
  MessageDeleted: (fact) => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same({
        type: 'delete_message',
        message_ids: [fact.message_id],
        message_id: fact.message_id,
        message_type: fact.channel_id === null ? 'private' : 'stream',
        ...(fact.channel_id !== null && fact.topic !== null ? { stream_id: fact.channel_id, topic: fact.topic } : {}),
      }),
    },
  ],
  MessageFlagsUpdated: (fact) => [
    {
      user_ids: [fact.user_id],
      eventFor: same({
        type: 'update_message_flags',
        op: fact.op,
        operation: fact.op,
        flag: fact.flag,
        messages: fact.message_ids,
        all: false,
        ...(fact.message_details ? { message_details: wireMessageDetails(fact.message_details) } : {}),
      }),
    },
  ],
  UserTopicUpdated: (fact) => [
    {
      user_ids: [fact.user_id],
      eventFor: same({
        type: 'user_topic',
        stream_id: fact.channel_id,
        topic_name: fact.topic,
        last_updated: fact.last_updated,
        visibility_policy: fact.visibility_policy,
      }),
    },
  ],
  UserGroupCreated: (fact) => [{ user_ids: fact.audience_user_ids, eventFor: same({ type: 'user_group', op: 'add', group: userGroupOf(fact) }) }],
  UserGroupUpdated: (fact) => [
    { user_ids: fact.audience_user_ids, eventFor: same({ type: 'user_group', op: 'update', group_id: fact.group_id, data: fact.changes }) },
  ],
  UserGroupMembersAdded: (fact) => [
    { user_ids: fact.audience_user_ids, eventFor: same({ type: 'user_group', op: 'add_members', group_id: fact.group_id, user_ids: fact.user_ids }) },
  ],
  UserGroupMembersRemoved: (fact) => [
    { user_ids: fact.audience_user_ids, eventFor: same({ type: 'user_group', op: 'remove_members', group_id: fact.group_id, user_ids: fact.user_ids }) },
  ],
  UserGroupSubgroupsAdded: (fact) => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same({ type: 'user_group', op: 'add_subgroups', group_id: fact.group_id, direct_subgroup_ids: fact.subgroup_ids }),
    },
  ],
  UserGroupSubgroupsRemoved: (fact) => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: same({ type: 'user_group', op: 'remove_subgroups', group_id: fact.group_id, direct_subgroup_ids: fact.subgroup_ids }),
    },
  ],
  // Clients that list deactivated groups mark it; the others drop it, as Zulip tells each.
  UserGroupDeactivated: (fact) => [
    {
      user_ids: fact.audience_user_ids,
      eventFor: (queue) =>
        queue.options.include_deactivated_groups
          ? { type: 'user_group', op: 'update', group_id: fact.group_id, data: { deactivated: true } }
          : { type: 'user_group', op: 'remove', group_id: fact.group_id },
    },
  ],
  ...toolsFanOut,
  ...linkifierFanOut,
  ...navigationViewFanOut,
  ...deviceFanOut,
  ...uploadsFanOut,
  ...settingsFanOut,
  ...inviteFanOut,
  RealmSettingsChanged: (fact) => realmSettingsDeliveries(fact),
  UserStatusChanged: (fact) => [{ user_ids: fact.audience_user_ids, eventFor: same(userStatusEvent(fact)) }],
  CustomProfileFieldsChanged: (fact) => [
    { user_ids: fact.audience_user_ids, eventFor: same({ type: 'custom_profile_fields', fields: fact.fields }) },
  ],
  CustomProfileDataChanged: (fact) =>
    fact.changes.map(({ id, value }) => ({
      user_ids: fact.audience_user_ids,
      eventFor: same({ type: 'realm_user', op: 'update', person: { user_id: fact.user_id, custom_profile_field: { id, value } } }),
    })),
  ...scheduledFanOut,
} satisfies { [T in FactType]: FanOutCase<T> };

function userGroupOf(fact: FactOf<'UserGroupCreated'>): UserGroup {
  return {
    id: fact.group_id,
    name: fact.name,
    description: fact.description,
    members: fact.members,
    direct_subgroup_ids: fact.subgroup_ids,
    is_system_group: false,
    date_created: fact.date_created,
    creator_id: fact.creator_id,
    deactivated: false,
    can_add_members_group: fact.can_add_members_group,
    can_join_group: fact.can_join_group,
    can_leave_group: fact.can_leave_group,
    can_manage_group: fact.can_manage_group,
    can_mention_group: fact.can_mention_group,
    can_remove_members_group: fact.can_remove_members_group,
  };
}

/**
 * Who gets which event for a stored fact. Facts are checked against their schema here,
 * as this is where they leave the system: one that does not match becomes no event.
 */
export function deliveriesFor(stored: StoredFact, ctx: FanOutContext): Delivery[] {
  return deliveriesOf(factOf(stored), stored, ctx);
}

function deliveriesOf(fact: Fact, stored: StoredFact, ctx: FanOutContext): Delivery[] {
  const parsed = Fact.safeParse(fact);
  if (!parsed.success) return [];
  const deliveries = fanOut[parsed.data.type] as FanOutCase<FactType>;
  return deliveries ? deliveries(parsed.data, stored, ctx) : [];
}

/**
 * The events projection: each fact announced is handed to `deliver`, delivery by delivery,
 * with its store position: queues derive their event ids from it, and a new queue leaves
 * out what its initial state already holds.
 */
export function fanOutHandlers(deliver: (delivery: Delivery, position: number) => void, ctx: FanOutContext): FactHandlers {
  const announce = (fact: Fact, stored: StoredFact) => {
    for (const delivery of deliveriesOf(fact, stored, ctx)) deliver(delivery, stored.position);
  };
  const announced = (Object.keys(fanOut) as FactType[]).filter((type) => fanOut[type] !== NO_CLIENT_EVENT);
  return Object.fromEntries(announced.map((type) => [type, announce]));
}

function reactionDelivery(fact: FactOf<'ReactionAdded' | 'ReactionRemoved'>, op: 'add' | 'remove'): Delivery {
  return {
    user_ids: fact.audience_user_ids,
    eventFor: same({
      type: 'reaction',
      op,
      message_id: fact.message_id,
      user_id: fact.user_id,
      emoji_name: fact.emoji_name,
      emoji_code: fact.emoji_code,
      reaction_type: fact.reaction_type,
    }),
  };
}

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
    deliveries.push({ user_ids: hidden, eventFor: same({ type: 'stream', op: 'delete', streams: [{ stream_id: channelId, name }], stream_ids: [channelId] }) });
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

const avatarUrls = cachedGravatarUrls();

/**
 * A message event is made once per form that its queues see (formats × flags), not once per
 * queue: queues alike share the event object, whose JSON is then made once too
 * (EventQueue.toJson). Only the sender's echo, for the one queue that sent it, is its own.
 */
function messageDelivery(fact: FactOf<'MessageSent'>, id: number): Delivery {
  const messages = new Map<string, ReturnType<typeof formatMessage>>();
  const events = new Map<string, ClientEvent>();
  return {
    user_ids: fact.recipient_user_ids,
    eventFor: (queue) => {
      const { options } = queue;
      if (!matchesQueueNarrow(options.narrow, fact)) return null;
      const format = `${+options.apply_markdown}${+options.client_gravatar}${+options.empty_topic_name}`;
      let message = messages.get(format);
      if (!message) {
        message = formatMessage(
          { ...fact, id },
          { apply_markdown: options.apply_markdown, client_gravatar: options.client_gravatar, allow_empty_topic_name: options.empty_topic_name },
          avatarUrls,
        );
        messages.set(format, message);
      }
      const flags = initialMessageFlags(fact, options.user_id);
      const echo = fact.local_echo;
      if (echo && echo.queue_id === queue.id && fact.sender_id === options.user_id) {
        return { type: 'message', message, flags, local_message_id: echo.local_id };
      }
      const key = `${format}${flags.join(',')}`;
      let event = events.get(key);
      if (!event) {
        event = { type: 'message', message, flags };
        events.set(key, event);
      }
      return event;
    },
  };
}

function editDeliveries(fact: FactOf<'MessageEdited'>): Delivery[] {
  const revoked = new Set(fact.move?.revoked_user_ids ?? []);
  if (revoked.size === 0 || !fact.move) return [editDelivery(fact, fact.audience_user_ids)];
  // Users who lose sight of moved messages see them deleted rather than moved.
  const gone: Delivery = {
    user_ids: [...revoked],
    eventFor: same({
      type: 'delete_message',
      message_ids: fact.move.message_ids,
      message_type: 'stream',
      stream_id: fact.move.prev_channel_id,
      topic: fact.move.prev_topic,
    }),
  };
  return [editDelivery(fact, fact.audience_user_ids.filter((id) => !revoked.has(id))), gone];
}

function editDelivery(fact: FactOf<'MessageEdited'>, userIds: number[]): Delivery {
  return {
    user_ids: userIds,
    eventFor: (queue) => {
      const { content, move } = fact;
      const userId = queue.options.user_id;
      const flags = content
        ? [
            ...(content.mentioned_user_ids.includes(userId) ? ['mentioned'] : []),
            ...(content.wildcard_mentioned_user_ids.includes(userId) ? ['wildcard_mentioned'] : []),
            ...(content.alert_word_user_ids?.includes(userId) ? ['has_alert_word'] : []),
          ]
        : [];
      const topic = (t: string) => displayTopic(t, queue.options.empty_topic_name);
      return {
        type: 'update_message',
        user_id: fact.editor_id,
        edit_timestamp: fact.timestamp,
        message_id: fact.message_id,
        message_ids: move ? move.message_ids : [fact.message_id],
        flags,
        rendering_only: false,
        ...(content
          ? {
              orig_content: content.prev_content,
              orig_rendered_content: content.prev_rendered_content,
              content: queue.options.apply_markdown ? content.rendered_content : content.content,
              rendered_content: content.rendered_content,
              is_me_message: content.is_me_message,
            }
          : {}),
        ...(move
          ? {
              stream_id: move.prev_channel_id,
              propagate_mode: move.propagate_mode,
              orig_subject: topic(move.prev_topic),
              ...(move.topic !== move.prev_topic ? { subject: topic(move.topic), topic_links: move.topic_links ?? [] } : {}),
              ...(move.channel_id !== move.prev_channel_id ? { new_stream_id: move.channel_id } : {}),
            }
          : {}),
      };
    },
  };
}

/** The API still calls a channel a stream and a direct message private here. */
function wireMessageDetails(details: NonNullable<FactOf<'MessageFlagsUpdated'>['message_details']>): UpdateMessageFlagsEvent['message_details'] {
  const wire: NonNullable<UpdateMessageFlagsEvent['message_details']> = {};
  for (const [id, detail] of Object.entries(details)) {
    const mentioned = detail.mentioned === undefined ? {} : { mentioned: detail.mentioned };
    wire[id] =
      detail.type === 'channel'
        ? { type: 'stream', stream_id: detail.channel_id, topic: detail.topic, ...mentioned }
        : { type: 'private', user_ids: detail.user_ids, ...mentioned };
  }
  return wire;
}
