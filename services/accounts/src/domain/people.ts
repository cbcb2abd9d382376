/**
 * Administering people: changing a user's name and role (PATCH /users/{id}), deactivating
 * one's own account, and bots (POST /bots, PATCH and DELETE /bots/{id}, key regeneration).
 * Users and bots live on the organization's stream (ids, unique emails); every fact
 * carries who is told of it (`audiencesOf`). Pure: the clock, key material, password
 * hashes, the channels a bot may default to and the groups come in with the command.
 */
import type { ServerPermission } from '@teamchat/contracts';
import { ACTIVE_USERS, badRequest, ROLE, ROLES, type Actor, type BotSettings, type Fact, type FactOf } from '@teamchat/contracts';
import { isAdministrator, isGuest, isOwner, isUserInGroupSetting, ORGANIZATION_POLICY, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { checkNewEmail } from './account-settings';
import {
  audiencesOf,
  botAudience,
  checkFullName,
  deactivationFacts,
  NO_BOT_SETTINGS,
  personAudience,
  userCreated,
  type NewCredentials,
  type OrganizationState,
  type RegisteredUser,
} from './organization';

const insufficient = () => badRequest('Insufficient permission');

/**
 * The operator's tool (change-user-role) gives or takes a server-level permission; no
 * API request reaches this. Giving what is held, or taking what is not, changes nothing.
 */
export function decideServerPermission(
  state: OrganizationState,
  cmd: { email: string; permission: ServerPermission; granted: boolean },
): FactOf<'ServerPermissionChanged'>[] {
  const user = state.usersByEmail.get(cmd.email.trim().toLowerCase());
  if (!user) throw badRequest(`No user with the email ${cmd.email}`);
  if (user[cmd.permission] === cmd.granted) return [];
  return [{ type: 'ServerPermissionChanged', user_id: user.user_id, permission: cmd.permission, granted: cmd.granted }];
}

function userOf(state: OrganizationState, userId: number): RegisteredUser {
  const user = state.usersById.get(userId);
  if (!user) throw badRequest('No such user');
  return user;
}

const activeOwners = (state: OrganizationState) => [...state.usersById.values()].filter((u) => u.is_active && isOwner(u.role));

export interface UpdateUser {
  actor: Actor;
  user_id: number;
  full_name?: string;
  role?: number;
  /** profile_data is decided by the custom profile fields' decider (storedProfileValue), on their stream. */
  new_email?: string;
  /** Who may see the target's real address (told of a new one); nobody when absent. */
  maySeeRealEmail?: (viewer: RegisteredUser, subject: RegisteredUser) => boolean;
}

/**
 * PATCH /users/{id}: administrators only. Only owners give or take the owner role, the
 * only owner keeps it, and a guest is not made an administrator in one step. Changing an
 * address (`new_email`) needs an owner holding the server's can_change_user_emails
 * permission, which only the operator's tool gives (decideServerPermission).
 */
export function decideUpdateUser(state: OrganizationState, cmd: UpdateUser): Fact[] {
  const { actor } = cmd;
  if (!isAdministrator(actor.role)) throw insufficient();
  const target = userOf(state, cmd.user_id);
  const facts: Fact[] = [];
  if (cmd.new_email !== undefined) {
    if (!isOwner(actor.role)) throw badRequest('Must be an organization owner');
    if (!state.usersById.get(actor.user_id)?.can_change_user_emails) throw badRequest('User not authorized to change user emails');
    const email = checkNewEmail(state, target, cmd.new_email);
    if (email !== undefined) {
      const { audience: _everyone, ...bots } = audiencesOf(state, target);
      const maySee = cmd.maySeeRealEmail ?? (() => false);
      const viewers = personAudience(state, [target.user_id]).filter((id) => maySee(state.usersById.get(id)!, target));
      facts.push({ type: 'UserEmailChanged', user_id: target.user_id, old_email: target.email, new_email: email, audience_user_ids: viewers, ...bots });
    }
  }
  let current = state;
  if (cmd.full_name !== undefined) {
    const fullName = checkFullName(cmd.full_name);
    if (fullName !== target.full_name) {
      facts.push({ type: 'UserFullNameChanged', user_id: target.user_id, full_name: fullName, ...audiencesOf(current, target) });
    }
  }
  if (cmd.role !== undefined && cmd.role !== target.role) {
    const role = cmd.role;
    if (!ROLES.includes(role)) throw badRequest(`Invalid role ${role}`);
    if ((isOwner(target.role) || role === ROLE.owner) && !isOwner(actor.role)) throw badRequest('Must be an organization owner');
    if (isOwner(target.role) && target.is_active && activeOwners(current).length <= 1) {
      throw badRequest('The owner permission cannot be removed from the only organization owner.');
    }
    if (isGuest(target.role) && isAdministrator(role)) throw badRequest('Guests cannot be organization administrators');
    facts.push({
      type: 'UserRoleChanged',
      user_id: target.user_id,
      role,
      old_role: target.role,
      ...audiencesOf(current, target),
      ...botsSeenAfterRoleChange(current, target, role),
    });
  }
  return facts;
}

/** Administrators see every bot, others their own: a role change across that line shows or hides the others'. */
function botsSeenAfterRoleChange(state: OrganizationState, user: RegisteredUser, role: number) {
  const before = isAdministrator(user.role);
  const after = isAdministrator(role);
  if (before === after) return {};
  const others = [...state.usersById.values()].filter((u) => u.is_bot && u.bot_owner_id !== user.user_id).sort((a, b) => a.user_id - b.user_id);
  if (!after) return { bots_hidden: others.map((bot) => bot.user_id) };
  return {
    bots_shown: others.map((bot) => ({
      user_id: bot.user_id,
      email: bot.email,
      full_name: bot.full_name,
      bot_type: bot.bot_type,
      is_active: bot.is_active,
      owner_id: bot.bot_owner_id,
      api_key_salt: bot.api_key_salt,
      bot_settings: bot.bot_settings ?? NO_BOT_SETTINGS,
    })),
  };
}

/** DELETE /users/me: anyone may leave, except the organization's only owner. */
export function decideDeactivateOwnAccount(state: OrganizationState, cmd: { actor: Actor }): Fact[] {
  const me = userOf(state, cmd.actor.user_id);
  if (!me.is_active) throw badRequest('User is already deactivated');
  if (isOwner(me.role) && activeOwners(state).length <= 1) {
    throw badRequest('Cannot deactivate the only organization owner');
  }
  return deactivationFacts(state, me);
}

// ---------------------------------------------------------------------------------------
// Bots

export const BOT_TYPE = { generic: 1, incoming_webhook: 2, outgoing_webhook: 3, embedded: 4 } as const;
const BOT_TYPES: readonly number[] = Object.values(BOT_TYPE);
/** Zulip's outgoing webhook formats: its own (1) and Slack's (2). */
const INTERFACE_TYPES = [1, 2];
/** The embedded bots Zulip ships (zulip_bots), which an embedded bot names as its service. */
export const EMBEDDED_BOTS = ['converter', 'encrypt', 'helloworld', 'virtual_fs', 'giphy', 'followup', 'incrementor'] as const;

/** A channel a bot may name as a default: the handler resolves names the actor can access. */
export interface ChannelRef {
  channel_id: number;
  name: string;
}

export interface BotDefaults {
  default_sending_stream?: string | null;
  default_events_register_stream?: string | null;
  default_all_public_streams?: boolean;
}

export interface CreateBot extends BotDefaults {
  actor: Actor;
  full_name: string;
  short_name: string;
  bot_type: number;
  payload_url?: string;
  interface_type?: number;
  service_name?: string;
  config_data?: Record<string, string>;
  host: string;
  credentials: NewCredentials;
  now: number;
  /** A channel by name, as the actor may see it; undefined when unknown or not accessible. */
  channel: (name: string) => ChannelRef | undefined;
  groups: GroupDirectory;
  policy?: OrganizationPolicy;
}

function resolveDefaults(defaults: BotDefaults, channel: CreateBot['channel']): Partial<BotSettings> {
  const settings: Partial<BotSettings> = {};
  const resolve = (name: string | null) => {
    if (name === null || name === '') return null;
    const found = channel(name);
    if (!found) throw badRequest(`Invalid channel name '${name}'`);
    return found;
  };
  if (defaults.default_sending_stream !== undefined) {
    const ref = resolve(defaults.default_sending_stream);
    settings.default_sending_stream_id = ref?.channel_id ?? null;
    settings.default_sending_stream = ref?.name ?? null;
  }
  if (defaults.default_events_register_stream !== undefined) {
    const ref = resolve(defaults.default_events_register_stream);
    settings.default_events_register_stream_id = ref?.channel_id ?? null;
    settings.default_events_register_stream = ref?.name ?? null;
  }
  if (defaults.default_all_public_streams !== undefined) settings.default_all_public_streams = defaults.default_all_public_streams;
  return settings;
}

function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function servicesOf(cmd: CreateBot): Record<string, unknown>[] {
  if (cmd.bot_type === BOT_TYPE.outgoing_webhook) {
    if (cmd.payload_url === undefined) throw badRequest('Missing payload_url');
    if (!isUrl(cmd.payload_url)) throw badRequest('payload_url is not a URL');
    const iface = cmd.interface_type ?? 1;
    if (!INTERFACE_TYPES.includes(iface)) throw badRequest(`Invalid interface type ${iface}`);
    return [{ base_url: cmd.payload_url, interface: iface }];
  }
  if (cmd.bot_type === BOT_TYPE.embedded) {
    if (cmd.service_name === undefined || !(EMBEDDED_BOTS as readonly string[]).includes(cmd.service_name)) {
      throw badRequest('Invalid embedded bot name.');
    }
    return [{ service_name: cmd.service_name, config_data: cmd.config_data ?? {} }];
  }
  return [];
}

/** Bots' addresses: `<short_name>-bot@<host>`, short names of letters, digits, `-`, `_` and `.`. */
const SHORT_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * POST /bots: members may create bots (guests and bots may not), as the organization's
 * can_create_bots_group says; incoming webhook bots follow can_create_write_only_bots_group.
 * The creator owns the bot; bots have the member role.
 */
export function decideCreateBot(state: OrganizationState, cmd: CreateBot): FactOf<'UserCreated'> {
  const { actor } = cmd;
  const policy = cmd.policy ?? ORGANIZATION_POLICY;
  if (!BOT_TYPES.includes(cmd.bot_type)) throw badRequest(`Invalid bot type ${cmd.bot_type}`);
  const creator = userOf(state, actor.user_id);
  const group = cmd.bot_type === BOT_TYPE.incoming_webhook ? policy.canCreateWriteOnlyBotsGroup : policy.canCreateBotsGroup;
  const member = { user_id: creator.user_id, role: creator.role, date_joined: creator.date_joined };
  if (creator.is_bot || !isUserInGroupSetting(group, member, Math.floor(cmd.now / 1000), cmd.groups)) throw insufficient();
  const fullName = checkFullName(cmd.full_name);
  const shortName = cmd.short_name.trim();
  if (!SHORT_NAME.test(shortName)) throw badRequest('Bad name or username');
  const email = `${shortName}-bot@${cmd.host}`;
  if (state.usersByEmail.has(email.toLowerCase())) throw badRequest('Username already in use');
  const bot_settings: BotSettings = { ...NO_BOT_SETTINGS, ...resolveDefaults(cmd, cmd.channel), services: servicesOf(cmd) };
  return userCreated(
    state,
    { email, full_name: fullName, role: ROLE.member, is_bot: true, bot_type: cmd.bot_type, bot_owner_id: creator.user_id, bot_settings },
    cmd.credentials,
    cmd.now,
    state.lastUserId + 1,
  );
}

/** The bot `actor` may administer: its owner and administrators may. */
function administeredBot(state: OrganizationState, actor: Actor, botId: number): RegisteredUser {
  const bot = state.usersById.get(botId);
  if (!bot || !bot.is_bot) throw badRequest('No such bot');
  if (!isAdministrator(actor.role) && bot.bot_owner_id !== actor.user_id) throw insufficient();
  return bot;
}

export interface UpdateBot extends BotDefaults {
  actor: Actor;
  bot_id: number;
  full_name?: string;
  bot_owner_id?: number;
  channel: CreateBot['channel'];
}

export function decideUpdateBot(state: OrganizationState, cmd: UpdateBot): Fact[] {
  const bot = administeredBot(state, cmd.actor, cmd.bot_id);
  const facts: Fact[] = [];
  if (cmd.full_name !== undefined) {
    const fullName = checkFullName(cmd.full_name);
    if (fullName !== bot.full_name) facts.push({ type: 'UserFullNameChanged', user_id: bot.user_id, full_name: fullName, ...audiencesOf(state, bot) });
  }
  if (cmd.bot_owner_id !== undefined && cmd.bot_owner_id !== bot.bot_owner_id) {
    const owner = state.usersById.get(cmd.bot_owner_id);
    if (!owner) throw badRequest('Failed to change owner, no such user');
    if (!owner.is_active) throw badRequest('Failed to change owner, user is deactivated');
    if (owner.is_bot) throw badRequest("Failed to change owner, bots can't own other bots");
    facts.push({
      type: 'BotOwnerChanged',
      user_id: bot.user_id,
      bot_owner_id: owner.user_id,
      old_owner_id: bot.bot_owner_id,
      audience: ACTIVE_USERS,
      bot_audience_user_ids: botAudience(state, owner.user_id),
      bot: { email: bot.email, full_name: facts.length ? (cmd.full_name ?? bot.full_name).trim() : bot.full_name, bot_type: bot.bot_type, is_active: bot.is_active, api_key_salt: bot.api_key_salt },
      bot_settings: bot.bot_settings ?? NO_BOT_SETTINGS,
    });
  }
  const current = bot.bot_settings ?? NO_BOT_SETTINGS;
  const wanted = resolveDefaults(cmd, cmd.channel);
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([key, value]) => current[key as keyof BotSettings] !== value),
  ) as Partial<BotSettings>;
  if (Object.keys(changes).length) {
    facts.push({ type: 'BotSettingsChanged', user_id: bot.user_id, changes, bot_audience_user_ids: botAudience(state, cmd.bot_owner_id ?? bot.bot_owner_id) });
  }
  return facts;
}

/** DELETE /bots/{id}: its owner or an administrator. */
export function decideDeactivateBot(state: OrganizationState, cmd: { actor: Actor; bot_id: number }): Fact[] {
  const bot = administeredBot(state, cmd.actor, cmd.bot_id);
  if (!bot.is_active) throw badRequest('User is already deactivated');
  return [{ type: 'UserDeactivated', user_id: bot.user_id, ...audiencesOf(state, bot) }];
}

/** POST /bots/{id}/api_key/regenerate: a new salt, so the old key stops working. */
export function decideRegenerateBotKey(state: OrganizationState, cmd: { actor: Actor; bot_id: number; credentials: NewCredentials }): Fact[] {
  const bot = administeredBot(state, cmd.actor, cmd.bot_id);
  return [{ type: 'BotApiKeyRegenerated', user_id: bot.user_id, ...cmd.credentials, bot_audience_user_ids: botAudience(state, bot.bot_owner_id) }];
}
