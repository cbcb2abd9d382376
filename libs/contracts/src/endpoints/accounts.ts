/**
 * The accounts service's endpoints: key exchange, the server's settings, users. Also the
 * internal ones: the gateway's authentication, and the organization and users that
 * seeding and the command-line tool create.
 */
import { z } from 'zod';
import type { Actor } from '../actor';
import { ServerPermission } from '../settings-facts';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

export const DevFetchApiKeyParams = z.object({ username: z.string() });
export const JwtFetchApiKeyParams = z.object({ token: z.string(), include_profile: z.boolean().optional() });
export const UserIdPathParams = z.object({ user_id: int() });

/** The spec's User profile object. */
export const UserProfile = z.object({
  user_id: int(),
  /** Null when the viewer may not see the real address. */
  delivery_email: z.string().nullable(),
  email: z.string(),
  full_name: z.string(),
  date_joined: z.string(),
  is_active: z.boolean(),
  is_owner: z.boolean(),
  is_admin: z.boolean(),
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  bot_type: int().nullable(),
  bot_owner_id: int().nullable(),
  role: int(),
  timezone: z.string(),
  avatar_url: z.string(),
  avatar_version: int(),
  is_imported_stub: z.boolean(),
});
export type UserProfile = z.infer<typeof UserProfile>;

export const ActorSchema = z.object({
  user_id: int(),
  email: z.string(),
  full_name: z.string(),
  role: int(),
  is_bot: z.boolean(),
  client: z.string(),
}) satisfies z.ZodType<Actor>;

const ApiKey = z.object({ api_key: z.string(), email: z.string() });

export const accountsEndpoints = {
  devFetchApiKey: endpoint({
    service: 'accounts',
    subject: 'accounts.dev_fetch_api_key',
    http: { method: 'POST', path: '/dev_fetch_api_key', aliases: ['/fetch_api_key/dev'], login: true },
    auth: false,
    params: DevFetchApiKeyParams,
    reply: ApiKey.extend({ user_id: int() }),
  }),
  jwtFetchApiKey: endpoint({
    service: 'accounts',
    subject: 'accounts.jwt_fetch_api_key',
    http: { method: 'POST', path: '/jwt/fetch_api_key', login: true },
    auth: false,
    params: JwtFetchApiKeyParams,
    reply: ApiKey.extend({ user: UserProfile.optional() }),
  }),
  serverSettings: endpoint({
    service: 'accounts',
    subject: 'accounts.server_settings',
    http: { method: 'GET', path: '/server_settings' },
    auth: false,
    params: NoParams,
    reply: z.object({
      authentication_methods: z.object({ password: z.boolean(), dev: z.boolean(), jwt: z.boolean() }),
      zulip_feature_level: int(),
      zulip_version: z.string(),
      push_notifications_enabled: z.boolean(),
      realm_uri: z.string(),
      realm_url: z.string(),
      realm_name: z.string(),
      require_email_format_usernames: z.boolean(),
      email_auth_enabled: z.boolean(),
    }),
  }),
  getOwnUser: endpoint({
    service: 'accounts',
    subject: 'accounts.get_own_user',
    http: { method: 'GET', path: '/users/me' },
    auth: true,
    params: NoParams,
    reply: UserProfile,
  }),
  deactivateUser: endpoint({
    service: 'accounts',
    subject: 'accounts.deactivate_user',
    http: { method: 'DELETE', path: '/users/{user_id}' },
    auth: true,
    params: UserIdPathParams,
    reply: EmptyReply,
  }),
  reactivateUser: endpoint({
    service: 'accounts',
    subject: 'accounts.reactivate_user',
    http: { method: 'POST', path: '/users/{user_id}/reactivate' },
    auth: true,
    params: UserIdPathParams,
    reply: EmptyReply,
  }),

  /** The gateway's check of HTTP Basic credentials; it caches the actor (see ActorChanged). */
  authenticate: endpoint({
    service: 'accounts',
    subject: 'accounts.authenticate',
    auth: false,
    params: z.object({ email: z.string(), api_key: z.string(), client: z.string() }),
    reply: z.object({ actor: ActorSchema }),
  }),
  /** The command-line tool's: the organization and its first owner, whose key it prints. */
  createOrganization: endpoint({
    service: 'accounts',
    subject: 'accounts.create_organization',
    auth: false,
    params: z.object({ name: z.string(), owner_email: z.string(), owner_full_name: z.string() }),
    reply: z.object({ user_id: int(), email: z.string(), api_key: z.string() }),
  }),
  /** The operator's tool (change-user-role): gives or takes a server-level permission; never over HTTP. */
  changeServerPermission: endpoint({
    service: 'accounts',
    subject: 'accounts.change_server_permission',
    auth: false,
    params: z.object({ email: z.string(), permission: ServerPermission, granted: z.boolean() }),
    reply: z.object({ user_id: int(), changed: z.boolean() }),
  }),
  /** Seeding's (no actor) and, later, administrators'. */
  createUser: endpoint({
    service: 'accounts',
    subject: 'accounts.create_user',
    auth: false,
    params: z.object({
      email: z.string(),
      full_name: z.string(),
      role: int(),
      is_bot: z.boolean().optional(),
      bot_type: int().nullable().optional(),
      bot_owner_id: int().nullable().optional(),
    }),
    reply: z.object({ user_id: int() }),
  }),
  getOrganization: endpoint({
    service: 'accounts',
    subject: 'accounts.get_organization',
    auth: false,
    params: NoParams,
    reply: z.object({ exists: z.boolean(), name: z.string().nullable() }),
  }),
};
