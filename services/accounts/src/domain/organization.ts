/**
 * The organization decider: the organization itself and its user registry. One stream
 * holds both because user ids and email uniqueness need one consistency boundary.
 * Pure: the clock, ids and key material come in with the command.
 */
import { badRequest, ROLE, ROLES, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { codePointLength, isAdministrator, isOwner } from '@teamchat/policies';

export interface RegisteredUser {
  user_id: number;
  email: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  /** Seconds since the epoch (group membership: full members). */
  date_joined: number;
}

export interface OrganizationState {
  exists: boolean;
  /** By lower-cased email. */
  usersByEmail: Map<string, RegisteredUser>;
  usersById: Map<number, RegisteredUser>;
  lastUserId: number;
}

export const initialOrganization = (): OrganizationState => ({
  exists: false,
  usersByEmail: new Map(),
  usersById: new Map(),
  lastUserId: 0,
});

export function evolveOrganization(state: OrganizationState, fact: Fact): OrganizationState {
  switch (fact.type) {
    case 'OrganizationCreated':
      return { ...state, exists: true };
    case 'UserCreated': {
      const user: RegisteredUser = {
        user_id: fact.user_id,
        email: fact.email,
        role: fact.role,
        is_active: true,
        is_bot: fact.is_bot,
        date_joined: fact.date_joined,
      };
      const usersByEmail = new Map(state.usersByEmail).set(fact.email.toLowerCase(), user);
      const usersById = new Map(state.usersById).set(fact.user_id, user);
      return { ...state, usersByEmail, usersById, lastUserId: Math.max(state.lastUserId, fact.user_id) };
    }
    case 'UserDeactivated':
    case 'UserReactivated': {
      const user = state.usersById.get(fact.user_id);
      if (!user) return state;
      const updated = { ...user, is_active: fact.type === 'UserReactivated' };
      return {
        ...state,
        usersById: new Map(state.usersById).set(user.user_id, updated),
        usersByEmail: new Map(state.usersByEmail).set(user.email.toLowerCase(), updated),
      };
    }
    default:
      return state;
  }
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
}

// A deliberately loose check: one @, something on each side, no spaces. Deliverability
// is the invitation flow's business, not the registry's.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function userCreated(state: OrganizationState, user: NewUser, credentials: NewCredentials, now: number, userId: number): FactOf<'UserCreated'> {
  const email = user.email.trim();
  if (!EMAIL.test(email)) throw badRequest(`Invalid email '${user.email}'`);
  if (state.usersByEmail.has(email.toLowerCase())) throw badRequest(`Email '${email}' already in use`);
  const fullName = user.full_name.trim();
  if (fullName.length === 0 || codePointLength(fullName) > 100) throw badRequest('Invalid full name');
  if (!ROLES.includes(user.role)) throw badRequest(`Invalid role ${user.role}`);
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
}

export function decideCreateUser(state: OrganizationState, cmd: CreateUser): FactOf<'UserCreated'>[] {
  if (!state.exists) throw badRequest('The organization does not exist yet');
  // No actor means a trusted internal caller (seeding, the command-line tool).
  if (cmd.actor && !isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  return [userCreated(state, cmd.user, cmd.credentials, cmd.now, state.lastUserId + 1)];
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
  return [{ type: 'UserDeactivated', user_id: target.user_id }];
}

export function decideReactivateUser(state: OrganizationState, cmd: { actor: Actor; user_id: number }): Fact[] {
  const target = state.usersById.get(cmd.user_id);
  if (!target) throw badRequest('No such user');
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Insufficient permission');
  if (target.is_active) throw badRequest('User is already active');
  return [{ type: 'UserReactivated', user_id: target.user_id }];
}
