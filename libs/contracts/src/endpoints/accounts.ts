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

/**
 * The keys of Zulip's `authentication_methods` (one per backend it ships, `openid connect`
 * with its space): the mobile app requires `ldap` among them to decide whether to offer a
 * password form.
 */
export const AUTHENTICATION_METHODS = ['password', 'dev', 'email', 'ldap', 'remoteuser', 'github', 'azuread', 'gitlab', 'apple', 'google', 'saml', 'openid connect', 'jwt'] as const;
export type AuthenticationMethod = (typeof AUTHENTICATION_METHODS)[number];

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
    // The User-Agent decides `is_incompatible`, as in Zulip.
    http: { method: 'GET', path: '/server_settings', fromHeaders: { user_agent: 'user-agent' } },
    auth: false,
    params: z.object({ user_agent: z.string().optional() }),
    reply: z.object({
      /** Every method Zulip names (its deprecated per-backend flags, which the apps still read), each on or off. */
      authentication_methods: z.object(Object.fromEntries(AUTHENTICATION_METHODS.map((name) => [name, z.boolean()])) as Record<AuthenticationMethod, z.ZodBoolean>),
      /** Social and SAML logins, none of which this server offers. */
      external_authentication_methods: z.array(
        z.object({ name: z.string(), display_name: z.string(), display_icon: z.string().nullable(), login_url: z.string(), signup_url: z.string() }),
      ),
      zulip_feature_level: int(),
      zulip_version: z.string(),
      zulip_merge_base: z.string(),
      push_notifications_enabled: z.boolean(),
      is_incompatible: z.boolean(),
      realm_uri: z.string(),
      realm_url: z.string(),
      realm_name: z.string(),
      realm_icon: z.string(),
      /** The organization's description, rendered (HTML), as Zulip gives it here. */
      realm_description: z.string(),
      realm_web_public_access_enabled: z.boolean(),
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
