import { describe, expect, it } from '@jest/globals';
import { ROLE, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideCreateOrganization,
  decideCreateUser,
  decideDeactivateUser,
  decideReactivateUser,
  evolveOrganization,
  initialOrganization,
  type CreateOrganization,
  type CreateUser,
  type OrganizationState,
} from '../src/domain/organization';

const NOW = 1_700_000_000_999;
const credentials = { api_key_salt: 'salt', api_key_hash: 'hash' };

const organization = <C>(decide: (state: OrganizationState, cmd: C) => Fact[]) =>
  deciderSpec<OrganizationState, C>({
    initial: initialOrganization,
    evolve: evolveOrganization,
    decide: (cmd, state) => decide(state, cmd),
  });

const createOrganization = organization<CreateOrganization>(decideCreateOrganization);
const createUser = organization<CreateUser>(decideCreateUser);
const deactivate = organization<{ actor: Actor; user_id: number }>(decideDeactivateUser);
const reactivate = organization<{ actor: Actor; user_id: number; group_ids?: number[] }>(decideReactivateUser);

const orgCreated: FactOf<'OrganizationCreated'> = {
  type: 'OrganizationCreated',
  name: 'Acme',
  host: 'acme.example',
  date_created: 1_600_000_000,
};

function userCreated(user_id: number, email: string, role: number): FactOf<'UserCreated'> {
  return {
    type: 'UserCreated',
    user_id,
    email,
    full_name: email.split('@')[0]!,
    role,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    timezone: '',
    date_joined: 1_600_000_000,
    ...credentials,
  };
}

const actor = (user_id: number, role: number): Actor => ({
  user_id,
  email: `user${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot: false,
  client: 'website',
});

// user ids: 1 owner, 2 administrator, 3 moderator, 4 member, 5 guest
const owner = actor(1, ROLE.owner);
const admin = actor(2, ROLE.administrator);
const moderator = actor(3, ROLE.moderator);
const member = actor(4, ROLE.member);
const guest = actor(5, ROLE.guest);
const acme: Fact[] = [
  orgCreated,
  userCreated(1, 'owner@acme.example', ROLE.owner),
  userCreated(2, 'admin@acme.example', ROLE.administrator),
  userCreated(3, 'moderator@acme.example', ROLE.moderator),
  userCreated(4, 'member@acme.example', ROLE.member),
  userCreated(5, 'guest@acme.example', ROLE.guest),
];

describe('decideCreateOrganization', () => {
  const cmd: CreateOrganization = {
    name: '  Acme  ',
    host: 'acme.example',
    owner: { email: ' olivia@acme.example ', full_name: ' Olivia Owner ', timezone: 'Europe/Paris' },
    credentials,
    now: NOW,
  };

  it('creates the organization and its owner as user 1 with role 100', () =>
    createOrganization
      .given([])
      .when(cmd)
      .then([
        { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1_700_000_000 },
        {
          type: 'UserCreated',
          user_id: 1,
          email: 'olivia@acme.example',
          full_name: 'Olivia Owner',
          role: 100,
          is_bot: false,
          bot_type: null,
          bot_owner_id: null,
          timezone: 'Europe/Paris',
          date_joined: 1_700_000_000,
          api_key_salt: 'salt',
          api_key_hash: 'hash',
          // Everyone active is told of a new user, named: the events service resolves it.
          audience: 'active_users',
        },
      ]));

  it('refuses a second time', () =>
    createOrganization.given(acme).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg: 'The organization already exists' }));

  it('refuses an empty name', () =>
    createOrganization.given([]).when({ ...cmd, name: '   ' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Organization name is required' }));

  it("refuses an invalid owner's email", () =>
    createOrganization
      .given([])
      .when({ ...cmd, owner: { ...cmd.owner, email: 'olivia' } })
      .thenThrows({ code: 'BAD_REQUEST', msg: "Invalid email 'olivia'" }));
});

describe('decideCreateUser', () => {
  const newMember = { email: 'mary@acme.example', full_name: 'Mary Member', role: ROLE.member };
  const created = (user_id: number, overrides: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> => ({
    type: 'UserCreated',
    user_id,
    email: 'mary@acme.example',
    full_name: 'Mary Member',
    role: 400,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    timezone: '',
    date_joined: 1_700_000_000,
    ...credentials,
    // Every active user, the new one included: named, the same at any size.
    audience: 'active_users',
    ...overrides,
  });
  // The operator gave the owner and the administrator can_create_users (POST /users needs it).
  const grants: Fact[] = [1, 2].map((user_id) => ({ type: 'ServerPermissionChanged', user_id, permission: 'can_create_users', granted: true }));
  const when = (given: Fact[], user: CreateUser['user'], by: Actor | undefined = admin, rules?: CreateUser['rules']) =>
    createUser.given([...given, ...grants]).when({ actor: by, user, credentials, now: NOW, ...(rules ? { rules } : {}) });
  const noRules = { emails_restricted_to_domains: false, disallow_disposable_email_addresses: false, domains: [] };

  it('refuses an administrator without the server-level can_create_users, as Zulip', () =>
    createUser.given(acme).when({ actor: admin, user: newMember, credentials, now: NOW }).thenThrows({ code: 'BAD_REQUEST', msg: 'User not authorized to create users' }));

  it('refuses an administrator whose can_create_users was taken back', () =>
    createUser
      .given([...acme, ...grants, { type: 'ServerPermissionChanged', user_id: 2, permission: 'can_create_users', granted: false }])
      .when({ actor: admin, user: newMember, credentials, now: NOW })
      .thenThrows({ msg: 'User not authorized to create users' }));

  it('refuses an address outside the allowed domains when the organization restricts them', () =>
    when(acme, { ...newMember, email: 'mary@elsewhere.example' }, admin, { ...noRules, emails_restricted_to_domains: true, domains: [{ domain: 'acme.example', allow_subdomains: false }] }).thenThrows({
      code: 'BAD_REQUEST',
      msg: "Email 'mary@elsewhere.example' not allowed in this organization",
    }));

  it('accepts an address of an allowed domain', () =>
    when(acme, newMember, admin, { ...noRules, emails_restricted_to_domains: true, domains: [{ domain: 'acme.example', allow_subdomains: false }] }).then([created(6)]));

  it('refuses a disposable address when the organization disallows them', () =>
    when(acme, { ...newMember, email: 'mary@mailinator.com' }, admin, { ...noRules, disallow_disposable_email_addresses: true }).thenThrows({
      msg: 'Disposable email addresses are not allowed in this organization',
    }));

  it('still says a malformed address is invalid under the rules', () =>
    when(acme, { ...newMember, email: 'mary' }, admin, { ...noRules, emails_restricted_to_domains: true }).thenThrows({ msg: "Invalid email 'mary'" }));

  it('gives the next user id', () => when(acme, newMember).then([created(6)]));

  it('gives ids above the highest one seen', () =>
    when([orgCreated, userCreated(1, 'owner@acme.example', ROLE.owner), userCreated(9, 'late@acme.example', ROLE.member)], newMember, owner).then([
      created(10),
    ]));

  it('gives increasing ids to successive users', () =>
    when([...acme, created(6)], { ...newMember, email: 'max@acme.example' }).then([created(7, { email: 'max@acme.example' })]));

  it('lets an owner create users', () => when(acme, newMember, owner).then([created(6)]));

  it('lets a trusted internal caller (no actor) create users', () => when(acme, newMember, undefined).then([created(6)]));

  it('trims the email and the full name', () =>
    when(acme, { ...newMember, email: '  mary@acme.example ', full_name: '  Mary Member ' }).then([created(6)]));

  it('creates a bot with its type and owner', () =>
    when(acme, { ...newMember, is_bot: true, bot_owner_id: 2 }).then([created(6, { is_bot: true, bot_type: 1, bot_owner_id: 2, bot_audience_user_ids: [1, 2] })]));

  it('ignores bot fields for a human', () =>
    when(acme, { ...newMember, is_bot: false, bot_type: 4, bot_owner_id: 2 }).then([created(6)]));

  it('refuses an email already in use, whatever its case', () =>
    when(acme, { ...newMember, email: 'MEMBER@Acme.Example' }).thenThrows({
      code: 'BAD_REQUEST',
      msg: "Email 'MEMBER@Acme.Example' already in use",
    }));

  it.each(['welcome-bot@zulip.com', 'Notification-Bot@Zulip.com'])('refuses %j, a system bot\'s address', (email) =>
    when(acme, { ...newMember, email }).thenThrows({ code: 'BAD_REQUEST', msg: `Email '${email}' is reserved for system bots` }));

  it('refuses the email of a deactivated user', () =>
    when([...acme, { type: 'UserDeactivated', user_id: 4 }], { ...newMember, email: 'member@acme.example' }).thenThrows({
      msg: /already in use/,
    }));

  it.each(['mary', 'mary@', '@acme.example', 'mary smith@acme.example', 'a@b@c', ''])('refuses the invalid email %j', (email) =>
    when(acme, { ...newMember, email }).thenThrows({ code: 'BAD_REQUEST', msg: `Invalid email '${email}'` }));

  it.each([0, 250, 500, 1000])('refuses the invalid role %d', (role) =>
    when(acme, { ...newMember, role }).thenThrows({ code: 'BAD_REQUEST', msg: `Invalid role ${role}` }));

  it.each(['', '   ', 'x'.repeat(101)])('refuses the invalid full name %j', (full_name) =>
    when(acme, { ...newMember, full_name }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid full name' }));

  it('accepts a full name of 100 characters', () =>
    when(acme, { ...newMember, full_name: 'x'.repeat(100) }).then([created(6, { full_name: 'x'.repeat(100) })]));

  it.each([
    ['moderator', moderator],
    ['member', member],
    ['guest', guest],
  ])('refuses a %s as actor', (_, by) =>
    when(acme, newMember, by).thenThrows({ code: 'BAD_REQUEST', msg: 'Must be an organization administrator' }));

  it('refuses before the organization exists', () =>
    when([], newMember, undefined).thenThrows({ code: 'BAD_REQUEST', msg: 'The organization does not exist yet' }));
});

describe('decideDeactivateUser', () => {
  const deactivated = (user_id: number): Fact => ({ type: 'UserDeactivated', user_id, audience: 'active_users' });

  it('lets an administrator deactivate a member', () =>
    deactivate.given(acme).when({ actor: admin, user_id: 4 }).then([deactivated(4)]));

  it('lets an administrator deactivate another administrator', () =>
    deactivate
      .given([...acme, userCreated(6, 'admin2@acme.example', ROLE.administrator)])
      .when({ actor: admin, user_id: 6 })
      .then([deactivated(6)]));

  it.each([
    ['moderator', moderator],
    ['member', member],
    ['guest', guest],
  ])('refuses a %s', (_, by) =>
    deactivate.given(acme).when({ actor: by, user_id: 4 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('refuses to deactivate the only owner', () =>
    deactivate
      .given(acme)
      .when({ actor: owner, user_id: 1 })
      .thenThrows({ code: 'BAD_REQUEST', msg: 'Cannot deactivate the only organization owner' }));

  it('refuses to deactivate the only active owner when another owner is deactivated', () =>
    deactivate
      .given([...acme, userCreated(6, 'owner2@acme.example', ROLE.owner), deactivated(6)])
      .when({ actor: owner, user_id: 1 })
      .thenThrows({ msg: 'Cannot deactivate the only organization owner' }));

  it('lets an owner deactivate another owner', () =>
    deactivate
      .given([...acme, userCreated(6, 'owner2@acme.example', ROLE.owner)])
      .when({ actor: owner, user_id: 6 })
      .then([deactivated(6)]));

  it('refuses an administrator deactivating an owner', () =>
    deactivate
      .given([...acme, userCreated(6, 'owner2@acme.example', ROLE.owner)])
      .when({ actor: admin, user_id: 6 })
      .thenThrows({ code: 'BAD_REQUEST', msg: 'Must be an organization owner' }));

  it('refuses a user already deactivated', () =>
    deactivate
      .given([...acme, deactivated(4)])
      .when({ actor: admin, user_id: 4 })
      .thenThrows({ code: 'BAD_REQUEST', msg: 'User is already deactivated' }));

  it('deactivates again after a reactivation', () =>
    deactivate
      .given([...acme, deactivated(4), { type: 'UserReactivated', user_id: 4 }])
      .when({ actor: admin, user_id: 4 })
      .then([deactivated(4)]));

  it('refuses an unknown user', () =>
    deactivate.given(acme).when({ actor: admin, user_id: 99 }).thenThrows({ code: 'BAD_REQUEST', msg: 'No such user' }));
});

describe('decideReactivateUser', () => {
  const given = [...acme, { type: 'UserDeactivated', user_id: 4 } as Fact];

  // The user rejoins the members' system group and the custom groups they were in, in everyone's eyes, theirs included.
  const reactivated: Fact = { type: 'UserReactivated', user_id: 4, audience: 'active_users', group_ids: [4, 9] };

  it('lets an administrator reactivate a deactivated user', () =>
    reactivate.given(given).when({ actor: admin, user_id: 4, group_ids: [9] }).then([reactivated]));

  it('lets an owner reactivate a deactivated user', () =>
    reactivate.given(given).when({ actor: owner, user_id: 4, group_ids: [9] }).then([reactivated]));

  it.each([
    ['moderator', moderator],
    ['member', member],
    ['guest', guest],
  ])('refuses a %s', (_, by) =>
    reactivate.given(given).when({ actor: by, user_id: 4 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('refuses a user who is active', () =>
    reactivate.given(acme).when({ actor: admin, user_id: 4 }).thenThrows({ code: 'BAD_REQUEST', msg: 'User is already active' }));

  it('refuses an unknown user', () =>
    reactivate.given(given).when({ actor: admin, user_id: 99 }).thenThrows({ code: 'BAD_REQUEST', msg: 'No such user' }));
});

describe('evolveOrganization', () => {
  it('keeps both indexes of a user in step across deactivation', () => {
    const state = [...acme, { type: 'UserDeactivated', user_id: 4 } as Fact].reduce(evolveOrganization, initialOrganization());
    expect(state.usersById.get(4)).toEqual({
      user_id: 4,
      email: 'member@acme.example',
      full_name: 'member',
      role: 400,
      is_active: false,
      is_bot: false,
      bot_type: null,
      bot_owner_id: null,
      date_joined: expect.any(Number),
      api_key_salt: 'salt',
      bot_settings: null,
      can_change_user_emails: false,
      can_create_users: false,
    });
    expect(state.usersByEmail.get('member@acme.example')).toEqual(state.usersById.get(4));
    expect(state.lastUserId).toBe(5);
    expect(state.exists).toBe(true);
  });

  it('does not change the state it is given', () => {
    const before = acme.reduce(evolveOrganization, initialOrganization());
    evolveOrganization(before, { type: 'UserDeactivated', user_id: 4 });
    expect(before.usersById.get(4)?.is_active).toBe(true);
  });
});
