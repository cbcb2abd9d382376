/**
 * What travels on the bus between the gateway and the services: subjects, the request
 * envelope and the reply. Every reply is a value or an API error; the bus never carries
 * exceptions.
 */
import type { Actor } from './actor';
import type { ApiErrorShape } from './errors';

export const subjects = {
  accounts: {
    authenticate: 'accounts.authenticate',
    devFetchApiKey: 'accounts.dev_fetch_api_key',
    jwtFetchApiKey: 'accounts.jwt_fetch_api_key',
    createOrganization: 'accounts.create_organization',
    createUser: 'accounts.create_user',
    getOrganization: 'accounts.get_organization',
    deactivateUser: 'accounts.deactivate_user',
    reactivateUser: 'accounts.reactivate_user',
    getOwnUser: 'accounts.get_own_user',
    serverSettings: 'accounts.server_settings',
  },
  channels: {
    /** Trusted internal creation (seeding, benchmarks): no actor, no permission checks. */
    createChannel: 'channels.create_channel',
    /** POST /users/me/subscriptions: subscribes, creating the channels that do not exist. */
    subscribe: 'channels.subscribe',
    updateChannel: 'channels.update_channel',
    archiveChannel: 'channels.archive_channel',
    listChannels: 'channels.list_channels',
  },
  messaging: {
    sendMessage: 'messaging.send_message',
    getMessages: 'messaging.get_messages',
    getMessage: 'messaging.get_message',
    renderMessage: 'messaging.render_message',
    updateMessage: 'messaging.update_message',
    deleteMessage: 'messaging.delete_message',
    addReaction: 'messaging.add_reaction',
    removeReaction: 'messaging.remove_reaction',
    updateFlags: 'messaging.update_flags',
    updateFlagsForNarrow: 'messaging.update_flags_for_narrow',
    markTopicAsRead: 'messaging.mark_topic_as_read',
    updateUserTopic: 'messaging.update_user_topic',
  },
  events: {
    register: 'events.register',
    getEvents: 'events.get_events',
    deleteQueue: 'events.delete_queue',
  },
} as const;

/** Queue group of each service: instances of one service share its requests. */
export const queueGroups = {
  accounts: 'accounts',
  channels: 'channels',
  messaging: 'messaging',
  events: 'events',
} as const;

/**
 * Published after every append, carrying the new head position, so that subscribers in
 * other processes read the store at once instead of waiting for their next poll.
 */
export const STORE_APPENDED_SUBJECT = 'store.appended';

/**
 * Published by accounts when what the gateway caches of a user's credentials changes:
 * their actor (email, name, role, bot) or whether they may authenticate at all. The
 * gateway drops what it cached for them (see gateway/http/credentials-cache.ts).
 */
export const ACTOR_CHANGED_SUBJECT = 'accounts.actor_changed';

export type ActorChanged = {
  user_id: number;
  /** The store position of the fact that changed it. */
  position: number;
};

export interface BusRequest<P = unknown> {
  /** Absent only for endpoints that need no authentication. */
  actor?: Actor;
  /**
   * Read-your-writes token: the store position of the caller's last write. The service
   * waits until its read models have caught up with it before answering.
   */
  after?: number;
  params: P;
}

export type BusReply<V = Record<string, unknown>> =
  | {
      ok: true;
      value: V;
      position?: number;
      /**
       * More members of the response, already serialized: the text of a JSON object
       * whose members follow `value`'s. Large replies (GET /messages) are assembled from
       * cached per-message JSON and cross the bus and the gateway as one piece, never
       * re-serialized: as text, or as its UTF-8 bytes where the bus carries bytes (see
       * Bus `carriesBytes`).
       */
      json?: string | Uint8Array;
    }
  | { ok: false; error: ApiErrorShape };
