/**
 * Every endpoint of the API: where a request goes. One line per endpoint: method, path,
 * the parameter schema from the contracts, whether it needs credentials, and the bus
 * subject of the service that answers it.
 */
import {
  ChannelIdPathParams,
  DeleteQueueParams,
  DevFetchApiKeyParams,
  GetEventsParams,
  GetMessageParams,
  GetMessagesParams,
  MarkTopicAsReadParams,
  MessageIdPathParams,
  ReactionParams,
  RenderMessageParams,
  UpdateFlagsForNarrowParams,
  UpdateFlagsParams,
  UpdateMessageParams,
  UserTopicParams,
  JwtFetchApiKeyParams,
  NoParams,
  RegisterParams,
  SendMessageParams,
  SubscribeParams,
  subjects,
  UpdateChannelParams,
  UserIdPathParams,
} from '@teamchat/contracts';
import type { ZodObject } from 'zod';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify path under /api/v1, with `:name` path parameters. */
  url: string;
  params: ZodObject;
  auth: boolean;
  subject: string;
  /** Long-polls wait longer than the default bus timeout. */
  longPoll?: boolean;
}

export const routes: RouteSpec[] = [
  { method: 'POST', url: '/dev_fetch_api_key', params: DevFetchApiKeyParams, auth: false, subject: subjects.accounts.devFetchApiKey },
  { method: 'POST', url: '/fetch_api_key/dev', params: DevFetchApiKeyParams, auth: false, subject: subjects.accounts.devFetchApiKey },
  { method: 'POST', url: '/jwt/fetch_api_key', params: JwtFetchApiKeyParams, auth: false, subject: subjects.accounts.jwtFetchApiKey },
  { method: 'GET', url: '/server_settings', params: NoParams, auth: false, subject: subjects.accounts.serverSettings },
  { method: 'GET', url: '/users/me', params: NoParams, auth: true, subject: subjects.accounts.getOwnUser },
  { method: 'DELETE', url: '/users/:user_id', params: UserIdPathParams, auth: true, subject: subjects.accounts.deactivateUser },
  { method: 'POST', url: '/users/:user_id/reactivate', params: UserIdPathParams, auth: true, subject: subjects.accounts.reactivateUser },

  { method: 'POST', url: '/users/me/subscriptions', params: SubscribeParams, auth: true, subject: subjects.channels.subscribe },
  { method: 'PATCH', url: '/streams/:stream_id', params: UpdateChannelParams, auth: true, subject: subjects.channels.updateChannel },
  { method: 'DELETE', url: '/streams/:stream_id', params: ChannelIdPathParams, auth: true, subject: subjects.channels.archiveChannel },

  { method: 'POST', url: '/messages', params: SendMessageParams, auth: true, subject: subjects.messaging.sendMessage },
  { method: 'GET', url: '/messages', params: GetMessagesParams, auth: true, subject: subjects.messaging.getMessages },
  { method: 'GET', url: '/messages/:message_id', params: GetMessageParams, auth: true, subject: subjects.messaging.getMessage },
  { method: 'PATCH', url: '/messages/:message_id', params: UpdateMessageParams, auth: true, subject: subjects.messaging.updateMessage },
  { method: 'DELETE', url: '/messages/:message_id', params: MessageIdPathParams, auth: true, subject: subjects.messaging.deleteMessage },
  { method: 'POST', url: '/messages/render', params: RenderMessageParams, auth: true, subject: subjects.messaging.renderMessage },
  { method: 'POST', url: '/messages/:message_id/reactions', params: ReactionParams, auth: true, subject: subjects.messaging.addReaction },
  { method: 'DELETE', url: '/messages/:message_id/reactions', params: ReactionParams, auth: true, subject: subjects.messaging.removeReaction },
  { method: 'POST', url: '/messages/flags', params: UpdateFlagsParams, auth: true, subject: subjects.messaging.updateFlags },
  { method: 'POST', url: '/messages/flags/narrow', params: UpdateFlagsForNarrowParams, auth: true, subject: subjects.messaging.updateFlagsForNarrow },
  { method: 'POST', url: '/mark_topic_as_read', params: MarkTopicAsReadParams, auth: true, subject: subjects.messaging.markTopicAsRead },
  { method: 'POST', url: '/user_topics', params: UserTopicParams, auth: true, subject: subjects.messaging.updateUserTopic },

  { method: 'POST', url: '/register', params: RegisterParams, auth: true, subject: subjects.events.register },
  { method: 'GET', url: '/events', params: GetEventsParams, auth: true, subject: subjects.events.getEvents, longPoll: true },
  { method: 'DELETE', url: '/events', params: DeleteQueueParams, auth: true, subject: subjects.events.deleteQueue },
];
