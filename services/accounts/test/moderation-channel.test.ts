/**
 * The moderation-request channel (organization setting `moderation_request_channel_id`,
 * PATCH /realm), given/when/then: administrators choose a private channel that exists and
 * is not archived, or -1 for none.
 */
import { describe, it } from '@jest/globals';
import { NO_CHANNEL, ROLE, type Actor, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import { decideUpdateRealm, evolveRealmSettings, initialRealmSettings, type RealmSettingsState } from '../src/domain/realm-settings';

const OWNER = 1;
const ADMIN = 2;
const MODERATOR = 3;
const MEMBER = 4;
const PRIVATE = 10;
const PUBLIC = 11;
const ARCHIVED = 12;
const CHANNELS = new Map([
  [PRIVATE, { invite_only: true, is_archived: false }],
  [PUBLIC, { invite_only: false, is_archived: false }],
  [ARCHIVED, { invite_only: true, is_archived: true }],
]);

const userCreated = (user_id: number, role: number): Fact => ({
  type: 'UserCreated',
  user_id,
  email: `u${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  timezone: '',
  date_joined: 0,
  api_key_salt: 's',
  api_key_hash: 'h',
});
const organization: Fact[] = [
  { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 0 },
  userCreated(OWNER, ROLE.owner),
  userCreated(ADMIN, ROLE.administrator),
  userCreated(MODERATOR, ROLE.moderator),
  userCreated(MEMBER, ROLE.member),
];
const actor = (user_id: number, role: number): Actor => ({ user_id, email: `u${user_id}@acme.example`, full_name: '', role, is_bot: false, client: 'test' });
const admin = actor(ADMIN, ROLE.administrator);
const changed = (id: number): Fact => ({ type: 'RealmSettingsChanged', changes: { moderation_request_channel_id: id }, actor_id: ADMIN, audience: 'active_users' });

describe('moderation_request_channel_id (PATCH /realm)', () => {
  const spec = deciderSpec<{ org: OrganizationState; realm: RealmSettingsState }, { actor: Actor; params: Record<string, unknown> }>({
    initial: () => ({ org: initialOrganization(), realm: initialRealmSettings() }),
    evolve: (state, fact) => ({ org: evolveOrganization(state.org, fact), realm: evolveRealmSettings(state.realm, fact) }),
    decide: (cmd, state) => decideUpdateRealm(state.realm, { organizationName: 'Acme', users: state.org.usersById, groups: NO_CUSTOM_GROUPS, channels: CHANNELS }, cmd),
  });

  it('sets a private channel', () => spec.given(organization).when({ actor: admin, params: { moderation_request_channel_id: PRIVATE } }).then([changed(PRIVATE)]));

  it('turns reporting off with -1, and records nothing when already off', () => {
    spec.given([...organization, changed(PRIVATE)]).when({ actor: admin, params: { moderation_request_channel_id: NO_CHANNEL } }).then([changed(NO_CHANNEL)]);
    spec.given(organization).when({ actor: admin, params: { moderation_request_channel_id: NO_CHANNEL } }).then([]);
  });

  it('refuses a public channel, as Zulip', () =>
    spec.given(organization).when({ actor: admin, params: { moderation_request_channel_id: PUBLIC } }).thenThrows({ msg: 'Moderation request channel must be private.' }));

  it.each([
    ['an unknown channel', 999],
    ['an archived channel', ARCHIVED],
  ])('refuses %s', (_, id) => spec.given(organization).when({ actor: admin, params: { moderation_request_channel_id: id } }).thenThrows({ msg: 'Invalid channel ID' }));

  it('refuses a negative id other than -1', () =>
    spec.given(organization).when({ actor: admin, params: { moderation_request_channel_id: -2 } }).thenThrows({ msg: 'Invalid moderation_request_channel_id: -2' }));

  it.each([
    ['a moderator', actor(MODERATOR, ROLE.moderator)],
    ['a member', actor(MEMBER, ROLE.member)],
  ])('refuses %s', (_, who) =>
    spec.given(organization).when({ actor: who, params: { moderation_request_channel_id: PRIVATE } }).thenThrows({ msg: 'Must be an organization administrator' }));
});
