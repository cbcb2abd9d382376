/**
 * Every endpoint of the API: where a request goes. One line per endpoint: method, path,
 * the parameter schema from the contracts, whether it needs credentials, and the bus
 * subject of the service that answers it.
 */
import {
  DeleteQueueParams,
  DevFetchApiKeyParams,
  GetEventsParams,
  GetMessagesParams,
  JwtFetchApiKeyParams,
  NoParams,
  RegisterParams,
  SendMessageParams,
  subjects,
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

  { method: 'POST', url: '/messages', params: SendMessageParams, auth: true, subject: subjects.messaging.sendMessage },
  { method: 'GET', url: '/messages', params: GetMessagesParams, auth: true, subject: subjects.messaging.getMessages },

  { method: 'POST', url: '/register', params: RegisterParams, auth: true, subject: subjects.events.register },
  { method: 'GET', url: '/events', params: GetEventsParams, auth: true, subject: subjects.events.getEvents, longPoll: true },
  { method: 'DELETE', url: '/events', params: DeleteQueueParams, auth: true, subject: subjects.events.deleteQueue },
];
