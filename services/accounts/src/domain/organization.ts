/**
 * The organization decider: the organization itself and its user registry. One stream
 * holds both because user ids and email uniqueness need one consistency boundary.
 * Pure: the clock, ids and key material come in with the command.
 */
import { ACTIVE_USERS, badRequest, isSystemBotEmail, ROLE, ROLES, type Actor, type BotSettings, type Fact, type FactOf } from '@teamchat/contracts';
import { codePointLength, isAdministrator, isOwner, systemGroupOfRole } from '@teamchat/policies';
import { addressRefusal, type AddressRules } from './invitations';
import { evolvePasswordLinks, type PasswordLink } from './password-link-state';
import { AscendingIds, VersionedMap } from './versioned-map';

export interface RegisteredUser {
  user_id: number;
  email: string;
  full_name: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  /** Seconds since the epoch (group membership: full members). */
  date_joined: number;
  /** The salt the user's key is derived from (not the key). */
  api_key_salt: string;
  bot_settings: BotSettings | null;
  /** Server-level permission to change other users' addresses (given by the operator's tool). */
  can_change_user_emails: boolean;
  /** Server-level permission to create users with POST /users (given by the operator's tool). */
  can_create_users: boolean;
}

export interface OrganizationState {
  exists: boolean;
  /**
   * By lower-cased email. Versioned maps: a new user adds to them without copying every
   * user before it (versioned-map.ts).
   */
  usersByEmail: VersionedMap<string, RegisteredUser>;
  usersById: VersionedMap<number, RegisteredUser>;
  /** The active users' ids: who may be told of an email change (personAudience, then filtered). */
  activeUserIds: AscendingIds;
  lastUserId: number;
  /** Email changes waiting for their link to be opened, by the SHA-256 of the link's key. */
  pendingEmailChanges: ReadonlyMap<string, { user_id: number; new_email: string; requested_at: number }>;
  /** Usable password links, by the SHA-256 of the link's token (password-links.ts). */
  passwordLinks: ReadonlyMap<string, PasswordLink>;
  /** When each user's reset links were mailed (milliseconds), for the per-address budget. */
  passwordResetTimes: ReadonlyMap<number, readonly number[]>;
}

export const initialOrganization = (): OrganizationState => ({
  exists: false,
  usersByEmail: VersionedMap.empty(),
  usersById: VersionedMap.empty(),
  activeUserIds: AscendingIds.empty(),
  lastUserId: 0,
  pendingEmailChanges: new Map(),
  passwordLinks: new Map(),
  passwordResetTimes: new Map(),
});

export function evolveOrganization(state: OrganizationState, fact: Fact): OrganizationState {
  switch (fact.type) {
    case 'OrganizationCreated':
      return { ...state, exists: true };
    case 'UserCreated': {
      const user: RegisteredUser = {
        user_id: fact.user_id,
        email: fact.email,
        full_name: fact.full_name,
        role: fact.role,
        is_active: true,
        is_bot: fact.is_bot,
        bot_type: fact.bot_type,
        bot_owner_id: fact.bot_owner_id,
        date_joined: fact.date_joined,
        api_key_salt: fact.api_key_salt,
        bot_settings: fact.bot_settings ?? (fact.is_bot ? NO_BOT_SETTINGS : null),
        can_change_user_emails: false,
        can_create_users: false,
      };
      const usersByEmail = state.usersByEmail.with(fact.email.toLowerCase(), user);
      const usersById = state.usersById.with(fact.user_id, user);
      const activeUserIds = state.activeUserIds.with(fact.user_id);
      return { ...state, usersByEmail, usersById, activeUserIds, lastUserId: Math.max(state.lastUserId, fact.user_id) };
    }
    case 'UserDeactivated':
    case 'UserReactivated':
      return changeUser(state, fact.user_id, { is_active: fact.type === 'UserReactivated' });
    case 'UserRoleChanged':
      return changeUser(state, fact.user_id, { role: fact.role });
    case 'UserFullNameChanged':
      return changeUser(state, fact.user_id, { full_name: fact.full_name });
    case 'BotOwnerChanged':
      return changeUser(state, fact.user_id, { bot_owner_id: fact.bot_owner_id });
    case 'BotApiKeyRegenerated':
    case 'UserApiKeyRegenerated':
      return changeUser(state, fact.user_id, { api_key_salt: fact.api_key_salt });
    case 'PasswordResetRequested':
    case 'UserPasswordSet':
      return evolvePasswordLinks(state, fact);
    case 'EmailChangeRequested': {
      // A newer request replaces the user's earlier one: only the latest link works.
      const pending = new Map([...state.pendingEmailChanges].filter(([, p]) => p.user_id !== fact.user_id));
      pending.set(fact.key_hash, { user_id: fact.user_id, new_email: fact.new_email, requested_at: fact.requested_at });
      return { ...state, pendingEmailChanges: pending };
    }
    case 'UserEmailChanged': {
      const user = state.usersById.get(fact.user_id);
      if (!user) return state;
      const updated = { ...user, email: fact.new_email };
      const usersByEmail = state.usersByEmail.without(user.email.toLowerCase()).with(fact.new_email.toLowerCase(), updated);
      const pending = new Map([...state.pendingEmailChanges].filter(([, p]) => p.user_id !== fact.user_id));
      return { ...state, usersByEmail, usersById: state.usersById.with(fact.user_id, updated), pendingEmailChanges: pending };
    }
    case 'ServerPermissionChanged':
      return changeUser(state, fact.user_id, { [fact.permission]: fact.granted });
    case 'BotSettingsChanged': {
      const user = state.usersById.get(fact.user_id);
      return user ? changeUser(state, fact.user_id, { bot_settings: { ...(user.bot_settings ?? NO_BOT_SETTINGS), ...fact.changes } }) : state;
    }
    default:
      return state;
  }
}

/** A bot created before bots had settings of their own. */
export const NO_BOT_SETTINGS: BotSettings = Object.freeze({
  default_sending_stream_id: null,
  default_sending_stream: null,
  default_events_register_stream_id: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  services: [],
});

function changeUser(state: OrganizationState, userId: number, change: Partial<RegisteredUser>): OrganizationState {
  const user = state.usersById.get(userId);
  if (!user) return state;
  const updated = { ...user, ...change };
  const { activeUserIds } = state;
  return {
    ...state,
    usersById: state.usersById.with(userId, updated),
    usersByEmail: state.usersByEmail.with(user.email.toLowerCase(), updated),
    activeUserIds: updated.is_active === user.is_active ? activeUserIds : updated.is_active ? activeUserIds.with(userId) : activeUserIds.without(userId),
  };
}

/**
 * Every active user and `also`, listed: for the audiences filtered user by user (who may
 * see an address). A change everyone is told of names its audience instead (audiencesOf).
 */
export function personAudience(state: OrganizationState, also: number[] = []): number[] {
  // Decided for every new user: a copy of the active ids kept ready, no pass over the
  // users (the sort has next to nothing to do: `also` is usually the new user, the last).
  const ids = state.activeUserIds.toArray();
  ids.push(...also);
  ids.sort((a, b) => a - b);
  let kept = 0;
  for (const id of ids) if (kept === 0 || ids[kept - 1] !== id) ids[kept++] = id;
  ids.length = kept;
  return ids;
}

/** A bot's `realm_bot` audience: active administrators and its owner. */
export function botAudience(state: OrganizationState, ownerId: number | null): number[] {
  const owner = ownerId === null ? undefined : state.usersById.get(ownerId);
  const admins = [...state.usersById.values()].filter((u) => u.is_active && isAdministrator(u.role)).map((u) => u.user_id);
  return sortedUnique([...admins, ...(owner?.is_active ? [owner.user_id] : [])]);
}

const sortedUnique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * The audiences of a change to `user`, as a fact carries them: every active user and the
 * user, named (nobody's access is restricted yet), so that the fact and its decision cost
 * the same at any size; a bot's administrators and owner, listed.
 */
export function audiencesOf(state: OrganizationState, user: Pick<RegisteredUser, 'user_id' | 'is_bot' | 'bot_owner_id'>) {
  return {
    audience: ACTIVE_USERS,
    ...(user.is_bot ? { bot_audience_user_ids: botAudience(state, user.bot_owner_id) } : {}),
  };
}

/** Key material made by the handler (random salt, derived key's hash). */
export interface NewCredentials {
  api_key_salt: string;
  api_key_hash: string;
}

export interface NewUser {
  email: string;
  full_name: string;
  role: number;
  is_bot?: boolean;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  timezone?: string;
  bot_settings?: BotSettings;
}

/**
 * Zulip's rules for a full name: trimmed, 1 to 100 code points, none of the characters
 * that mention syntax uses.
 */
export function checkFullName(name: string): string {
  const fullName = name.trim();
  if (fullName.length === 0) throw badRequest('Name too short!');
  if (codePointLength(fullName) > 100) throw badRequest('Name too long!');
  if (/[*`\\>"@]/.test(fullName) || /[\u0000-\u001f]/.test(fullName)) throw badRequest('Invalid characters in name!');
  return fullName;
}

// A deliberately loose check: one @, something on each side, no spaces. Deliverability
// is the invitation flow's business, not the registry's.
export const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function userCreated(state: OrganizationState, user: NewUser, credentials: NewCredentials, now: number, userId: number): FactOf<'UserCreated'> {
  const email = user.email.trim();
  if (!EMAIL.test(email)) throw badRequest(`Invalid email '${user.email}'`);
  if (state.usersByEmail.has(email.toLowerCase())) throw badRequest(`Email '${email}' already in use`);
  // The system bots' addresses are theirs in every organization (system-bots.ts).
  if (isSystemBotEmail(email)) throw badRequest(`Email '${email}' is reserved for system bots`);
  const fullName = user.full_name.trim();
  if (fullName.length === 0 || codePointLength(fullName) > 100) throw badRequest('Invalid full name');
  if (!ROLES.includes(user.role)) throw badRequest(`Invalid role ${user.role}`);
  const isBot = user.is_bot ?? false;
  const botOwnerId = isBot ? (user.bot_owner_id ?? null) : null;
  const audiences = audiencesOf(state, { user_id: userId, is_bot: isBot, bot_owner_id: botOwnerId });
  return {
    type: 'UserCreated',
    user_id: userId,
    email,
    full_name: fullName,
    role: user.role,
    is_bot: user.is_bot ?? false,
    bot_type: user.is_bot ? (user.bot_type ?? 1) : null,
    bot_owner_id: user.is_bot ? (user.bot_owner_id ?? null) : null,
    timezone: user.timezone ?? '',
    date_joined: Math.floor(now / 1000),
    ...credentials,
    ...audiences,
    ...(isBot && user.bot_settings ? { bot_settings: user.bot_settings } : {}),
  };
}

export interface CreateOrganization {
  name: string;
  host: string;
  owner: Omit<NewUser, 'role'>;
  credentials: NewCredentials;
  now: number;
}

export function decideCreateOrganization(state: OrganizationState, cmd: CreateOrganization): Fact[] {
  if (state.exists) throw badRequest('The organization already exists');
  if (cmd.name.trim().length === 0) throw badRequest('Organization name is required');
  const created: FactOf<'OrganizationCreated'> = {
    type: 'OrganizationCreated',
    name: cmd.name.trim(),
    host: cmd.host,
    date_created: Math.floor(cmd.now / 1000),
  };
  const owner = userCreated(initialOrganization(), { ...cmd.owner, role: ROLE.owner }, cmd.credentials, cmd.now, state.lastUserId + 1);
  return [created, owner];
}

export interface CreateUser {
  actor: Actor | undefined;
  user: NewUser;
  credentials: NewCredentials;
  now: number;
  /** The hash of the initial password, if one was given (the handler hashes it). */
  password_hash?: string;
  /** The organization's rules for a new address (POST /users applies them as invitations do). */
  rules?: AddressRules;
}

/** POST /users' refusal of an address the organization's rules exclude (Zulip's texts), or null. */
export function createUserAddressRefusal(email: string, rules: AddressRules): string | null {
  const address = email.trim();
  if (addressRefusal(address, { ...rules, emails_restricted_to_domains: false, disallow_disposable_email_addresses: false }) !== null) return null; // malformed: userCreated says so
  if (addressRefusal(address, { ...rules, disallow_disposable_email_addresses: false }) !== null) return `Email '${address}' not allowed in this organization`;
  if (addressRefusal(address, rules) !== null) return 'Disposable email addresses are not allowed in this organization';
  return null;
}

export function decideCreateUser(state: OrganizationState, cmd: CreateUser): [FactOf<'UserCreated'>, ...Fact[]] {
  if (!state.exists) throw badRequest('The organization does not exist yet');
  // No actor means a trusted internal caller (seeding, the command-line tool).
  if (cmd.actor && !isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  // As Zulip: an administrator also needs the server-level permission the operator gives.
  if (cmd.actor && !state.usersById.get(cmd.actor.user_id)?.can_create_users) throw badRequest('User not authorized to create users');
  const refusal = cmd.rules ? createUserAddressRefusal(cmd.user.email, cmd.rules) : null;
  if (refusal !== null) throw badRequest(refusal);
  const created = userCreated(state, cmd.user, cmd.credentials, cmd.now, state.lastUserId + 1);
  return [created, ...(cmd.password_hash ? [{ type: 'UserPasswordSet' as const, user_id: created.user_id, password_hash: cmd.password_hash }] : [])];
}

export function decideDeactivateUser(state: OrganizationState, cmd: { actor: Actor; user_id: number }): Fact[] {
  const target = state.usersById.get(cmd.user_id);
  if (!target) throw badRequest('No such user');
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Insufficient permission');
  if (!target.is_active) throw badRequest('User is already deactivated');
  if (isOwner(target.role)) {
    if (!isOwner(cmd.actor.role)) throw badRequest('Must be an organization owner');
    const activeOwners = [...state.usersById.values()].filter((u) => u.is_active && isOwner(u.role));
    if (activeOwners.length <= 1) throw badRequest('Cannot deactivate the only organization owner');
  }
  return deactivationFacts(state, target);
}

/** As in Zulip, a deactivated user's active bots are deactivated with them. */
export function deactivationFacts(state: OrganizationState, user: RegisteredUser): FactOf<'UserDeactivated'>[] {
  const bots = user.is_bot ? [] : [...state.usersById.values()].filter((u) => u.is_bot && u.is_active && u.bot_owner_id === user.user_id);
  return [user, ...bots.sort((a, b) => a.user_id - b.user_id)].map((u) => ({ type: 'UserDeactivated', user_id: u.user_id, ...audiencesOf(state, u) }));
}

/**
 * `group_ids`: the groups the user is a direct member of (custom ones from the group
 * projection), whose members they rejoin in clients' eyes.
 */
export function decideReactivateUser(state: OrganizationState, cmd: { actor: Actor; user_id: number; group_ids?: number[] }): Fact[] {
  const target = state.usersById.get(cmd.user_id);
  if (!target) throw badRequest('No such user');
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Insufficient permission');
  if (target.is_active) throw badRequest('User is already active');
  const reactivated = changeUser(state, target.user_id, { is_active: true });
  return [
    {
      type: 'UserReactivated',
      user_id: target.user_id,
      ...audiencesOf(reactivated, target),
      group_ids: sortedUnique([systemGroupOfRole(target.role), ...(cmd.group_ids ?? [])]),
    },
  ];
}
