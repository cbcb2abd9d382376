/** The events service's endpoints: event queues and their long-poll. */
import { z } from 'zod';
import { EmptyReply, endpoint } from './contract';
import { NarrowTerm } from './messaging';
import { ChannelsState, MessagingState, RealmUsersMembers, RegisterStateReply } from './register-state';

const int = () => z.number().int();

/** The `client_capabilities` Zulip defines (zerver/views/events_register.py), each a flag. */
export const CLIENT_CAPABILITIES = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
  'individual_emoji_changes',
] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

export const RegisterParams = z.object({
  event_types: z.array(z.string()).optional(),
  fetch_event_types: z.array(z.string()).optional(),
  narrow: z.array(NarrowTerm).optional(),
  apply_markdown: z.boolean().optional(),
  client_gravatar: z.boolean().optional(),
  all_public_streams: z.boolean().optional(),
  slim_presence: z.boolean().optional(),
  /** Leave out of `presences` the users last seen longer ago than this. */
  presence_history_limit_days: z.number().int().min(0).optional(),
  include_subscribers: z.union([z.boolean(), z.literal('partial')]).optional(),
  /**
   * The capabilities this server reads are flags, and a known one that is not is refused;
   * a key it does not know is ignored whatever its value, as Zulip ignores it, since a
   * newer client declares capabilities an older server has never heard of.
   */
  client_capabilities: z.object(Object.fromEntries(CLIENT_CAPABILITIES.map((name) => [name, z.boolean().optional()])) as Record<ClientCapability, z.ZodOptional<z.ZodBoolean>>).catchall(z.unknown()).optional(),
  /**
   * How long the queue may go unpolled before it is garbage-collected, in seconds; absent
   * or 0 means the server's default (ten minutes), longer than a week means a week.
   */
  queue_lifespan_secs: int().min(0).optional(),
});
export type RegisterParams = z.infer<typeof RegisterParams>;

/**
 * Without `queue_id`, the registration parameters register a queue first (the spec's
 * rule for GET /events), and the reply names it.
 */
export const GetEventsParams = RegisterParams.omit({ fetch_event_types: true, include_subscribers: true }).extend({
  queue_id: z.string().optional(),
  // -1 is "nothing yet" (what POST /register answers); lower can only be a mistake.
  last_event_id: int().min(-1).optional(),
  dont_block: z.boolean().optional(),
});
export type GetEventsParams = z.infer<typeof GetEventsParams>;

export const DeleteQueueParams = z.object({ queue_id: z.string() });

/** An event as a queue holds it: its `type`, and the `id` the queue gave it. */
export const QueuedEvent = z.looseObject({ type: z.string(), id: int() });

export const eventsEndpoints = {
  register: endpoint({
    service: 'events',
    subject: 'events.register',
    // The owners that answer first are written while the others compute (register-state.ts).
    http: { method: 'POST', path: '/register', inParts: true },
    auth: true,
    params: RegisterParams,
    // Loose: the organization's settings come as many `realm_*` members.
    reply: z.looseObject({
      ...RegisterStateReply,
      queue_id: z.string(),
      last_event_id: int(),
      zulip_feature_level: int(),
      zulip_version: z.string(),
      zulip_merge_base: z.string(),
      max_message_length: int(),
      max_topic_length: int(),
      max_stream_name_length: int(),
      max_stream_description_length: int(),
      realm_empty_topic_display_name: z.string(),
      event_queue_longpoll_timeout_seconds: int(),
    }),
    /** realm_users, realm_non_active_users, channels' lists and messaging's sections follow the reply's members already serialized (BusReply `json`). */
    serialized: RealmUsersMembers.extend(MessagingState.shape).extend(ChannelsState.pick({ streams: true, never_subscribed: true }).shape),
  }),
  /** Its `events` follow the reply's members already serialized (BusReply `json`). */
  getEvents: endpoint({
    service: 'events',
    subject: 'events.get_events',
    // Zulip names the lifespan `lifespan_secs` here and `queue_lifespan_secs` on /register.
    http: { method: 'GET', path: '/events', longPoll: true, wireNames: { lifespan_secs: 'queue_lifespan_secs' }, routeByQueueId: true },
    auth: true,
    params: GetEventsParams,
    reply: z.object({ queue_id: z.string() }),
    serialized: z.object({ events: z.array(QueuedEvent) }),
  }),
  deleteQueue: endpoint({
    service: 'events',
    subject: 'events.delete_queue',
    http: { method: 'DELETE', path: '/events', routeByQueueId: true },
    auth: true,
    params: DeleteQueueParams,
    reply: EmptyReply,
  }),
};
