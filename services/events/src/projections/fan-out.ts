/**
 * Which client events a stored fact becomes, and for whom: the one place that decides
 * who may see a fact. Facts carry their audience (computed by the service that decided
 * them, from who may see the message); the events service applies the result to the
 * queues of exactly those users.
 */
import {
  cachedGravatarUrls,
  displayTopic,
  Fact,
  formatMessage,
  initialMessageFlags,
  type ClientEvent,
  type FactOf,
  type FactType,
  type UpdateMessageFlagsEvent,
  type UserGroup,
} from '@teamchat/contracts';
import { factOf, type FactHandlers, type StoredFact } from '@teamchat/platform';
import { same, type Delivery } from './delivery';
import { realmSettingsDeliveries, userStatusEvent } from './org-fan-out';
import { matchesQueueNarrow } from '../domain/queue-narrow';
import { linkifierFanOut } from './linkifier-fan-out';
import { navigationViewFanOut } from './navigation-view-fan-out';
import { toolsFanOut } from './tools-fan-out';
import { scheduledFanOut } from './scheduled-fan-out';
import { uploadsFanOut } from './uploads-fan-out';
import { settingsFanOut } from './settings-fan-out';
import { inviteFanOut } from './invite-fan-out';
import { channelFanOut } from './channel-fan-out';
import { peopleFanOut, type FanOutContext } from './people-fan-out';

export type { FanOutContext };

export type { Delivery };

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
  ...channelFanOut,
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
