/**
 * People: listing and reading users, creating, changing and deactivating them, password
 * login, and bots. Accounts answers them all.
 */
import { z } from 'zod';
import { EmptyReply, endpoint, NoParams } from './contract';
import { UserProfile } from './accounts';
import { ProfileDataItem } from './org';

const int = () => z.number().int();

/** A user as GET /users and GET /users/{id} give it: the User profile, for one viewer. */
export const PersonObject = UserProfile.extend({
  delivery_email: z.string().nullable(),
  avatar_url: z.string().nullable(),
  is_billing_admin: z.boolean(),
  profile_data: z.record(z.string(), z.object({ value: z.string(), rendered_value: z.string().optional() })).optional(),
});
export type PersonObject = z.infer<typeof PersonObject>;


const UserQuery = {
  /** Zulip's default for these endpoints: clients compute Gravatar URLs. */
  client_gravatar: z.boolean().optional(),
  include_custom_profile_fields: z.boolean().optional(),
};

/** `/users/{user_id}` and `/users/{email}` are one route: an id is all digits. */
const UserIdOrEmail = { user_id_or_email: z.string() };

/** A bot as GET /bots and `realm_bots` give it. */
export const BotObject = z.object({
  user_id: int(),
  email: z.string(),
  full_name: z.string(),
  bot_type: int().nullable(),
  is_active: z.boolean(),
  owner_id: int().nullable(),
  api_key: z.string(),
  avatar_url: z.string(),
  default_sending_stream: z.string().nullable(),
  default_events_register_stream: z.string().nullable(),
  default_all_public_streams: z.boolean(),
  services: z.array(z.record(z.string(), z.unknown())),
});

const BotDefaults = {
  default_sending_stream: z.string().nullable().optional(),
  default_events_register_stream: z.string().nullable().optional(),
  default_all_public_streams: z.boolean().optional(),
};
const BotIdPath = { bot_id: int() };

export const peopleEndpoints = {
  listUsers: endpoint({
    service: 'accounts',
    subject: 'accounts.list_users',
    http: { method: 'GET', path: '/users' },
    auth: true,
    params: z.object(UserQuery),
    reply: z.object({ members: z.array(PersonObject) }),
  }),
  getUser: endpoint({
    service: 'accounts',
    subject: 'accounts.get_user',
    http: { method: 'GET', path: '/users/{user_id_or_email}' },
    auth: true,
    params: z.object({ ...UserIdOrEmail, ...UserQuery }),
    reply: z.object({ user: PersonObject }),
  }),
  createUserAccount: endpoint({
    service: 'accounts',
    subject: 'accounts.create_user_account',
    http: { method: 'POST', path: '/users' },
    auth: true,
    params: z.object({ email: z.string(), full_name: z.string(), password: z.string().optional() }),
    reply: z.object({ user_id: int() }),
  }),
  updateUser: endpoint({
    service: 'accounts',
    subject: 'accounts.update_user',
    http: { method: 'PATCH', path: '/users/{user_id_or_email}' },
    auth: true,
    params: z.object({
      ...UserIdOrEmail,
      full_name: z.string().optional(),
      role: int().optional(),
      profile_data: z.array(ProfileDataItem).optional(),
      new_email: z.string().optional(),
    }),
    reply: EmptyReply,
  }),
  deactivateOwnUser: endpoint({
    service: 'accounts',
    subject: 'accounts.deactivate_own_user',
    http: { method: 'DELETE', path: '/users/me' },
    auth: true,
    params: NoParams,
    reply: EmptyReply,
  }),
  fetchApiKey: endpoint({
    service: 'accounts',
    subject: 'accounts.fetch_api_key',
    http: { method: 'POST', path: '/fetch_api_key', login: true },
    auth: false,
    params: z.object({ username: z.string(), password: z.string() }),
    reply: z.object({ api_key: z.string(), email: z.string(), user_id: int() }),
  }),
  createBot: endpoint({
    service: 'accounts',
    subject: 'accounts.create_bot',
    http: { method: 'POST', path: '/bots' },
    auth: true,
    params: z.object({
      full_name: z.string(),
      short_name: z.string(),
      bot_type: int().optional(),
      payload_url: z.string().optional(),
      interface_type: int().optional(),
      service_name: z.string().optional(),
      config_data: z.record(z.string(), z.string()).optional(),
      ...BotDefaults,
    }),
    reply: z.object({
      user_id: int(),
      api_key: z.string(),
      avatar_url: z.string(),
      default_sending_stream: z.string().nullable(),
      default_events_register_stream: z.string().nullable(),
      default_all_public_streams: z.boolean(),
    }),
  }),
  listBots: endpoint({
    service: 'accounts',
    subject: 'accounts.list_bots',
    http: { method: 'GET', path: '/bots' },
    auth: true,
    params: NoParams,
    reply: z.object({ bots: z.array(BotObject) }),
  }),
  updateBot: endpoint({
    service: 'accounts',
    subject: 'accounts.update_bot',
    http: { method: 'PATCH', path: '/bots/{bot_id}' },
    auth: true,
    params: z.object({ ...BotIdPath, full_name: z.string().optional(), bot_owner_id: int().optional(), ...BotDefaults }),
    reply: z.object({
      full_name: z.string(),
      bot_owner: z.string().nullable(),
      default_sending_stream: z.string().nullable(),
      default_events_register_stream: z.string().nullable(),
      default_all_public_streams: z.boolean(),
    }),
  }),
  deactivateBot: endpoint({
    service: 'accounts',
    subject: 'accounts.deactivate_bot',
    http: { method: 'DELETE', path: '/bots/{bot_id}' },
    auth: true,
    params: z.object(BotIdPath),
    reply: EmptyReply,
  }),
  regenerateBotApiKey: endpoint({
    service: 'accounts',
    subject: 'accounts.regenerate_bot_api_key',
    http: { method: 'POST', path: '/bots/{bot_id}/api_key/regenerate' },
    auth: true,
    params: z.object(BotIdPath),
    reply: z.object({ api_key: z.string() }),
  }),
};
