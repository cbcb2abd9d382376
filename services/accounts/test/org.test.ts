/**
 * The organization settings, user status and custom profile field deciders, given/when/then.
 * The history holds the organization's users and the feature's facts; both are folded, as
 * the handlers read both streams.
 */
import { describe, expect, it } from '@jest/globals';
import { PROFILE_FIELD_TYPE, ROLE, SYSTEM_GROUP, type Actor, type ApiProfileField, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { NO_CUSTOM_GROUPS, organizationPolicyOf, type GroupDirectory } from '@teamchat/policies';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import { currentSettings, decideUpdateRealm, evolveRealmSettings, initialRealmSettings, type RealmSettingsState } from '../src/domain/realm-settings';
import { decideUpdateStatus, evolveUserStatus, initialUserStatus, type UpdateStatus, type UserStatusState } from '../src/domain/user-status';
import {
  decideCreateField,
  decideDeleteField,
  decideRemoveProfileData,
  decideReorderFields,
  decideUpdateField,
  decideUpdateProfileData,
  evolveProfileFields,
  initialProfileFields,
  type ProfileFieldsState,
} from '../src/domain/profile-fields';

const OWNER = 1;
const ADMIN = 2;
const MODERATOR = 3;
const MEMBER = 4;
const GUEST = 5;
const BOT = 6;
const GONE = 7;

const userCreated = (user_id: number, role: number, is_bot = false): Fact => ({
  type: 'UserCreated',
  user_id,
  email: `u${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot,
  bot_type: is_bot ? 1 : null,
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
  userCreated(GUEST, ROLE.guest),
  userCreated(BOT, ROLE.administrator, true),
  userCreated(GONE, ROLE.member),
  { type: 'UserDeactivated', user_id: GONE },
];

const actor = (user_id: number, role: number, is_bot = false): Actor => ({ user_id, email: `u${user_id}@acme.example`, full_name: '', role, is_bot, client: 'test' });
const owner = actor(OWNER, ROLE.owner);
const admin = actor(ADMIN, ROLE.administrator);
const moderator = actor(MODERATOR, ROLE.moderator);
const member = actor(MEMBER, ROLE.member);
const guest = actor(GUEST, ROLE.guest);
const bot = actor(BOT, ROLE.administrator, true);

/** One custom group, 9, with the member in it. */
const GROUPS: GroupDirectory = { group: (id) => (id === 9 ? { direct_members: [MEMBER], direct_subgroups: [], deactivated: false } : undefined) };

describe('organization settings (PATCH /realm)', () => {
  const spec = deciderSpec<{ org: OrganizationState; realm: RealmSettingsState }, { actor: Actor; params: Record<string, unknown> }>({
    initial: () => ({ org: initialOrganization(), realm: initialRealmSettings() }),
    evolve: (state, fact) => ({ org: evolveOrganization(state.org, fact), realm: evolveRealmSettings(state.realm, fact) }),
    decide: (cmd, state) => decideUpdateRealm(state.realm, { organizationName: 'Acme', users: state.org.usersById, groups: GROUPS }, cmd),
  });
  const changed = (changes: Record<string, unknown>, actor_id = ADMIN): Fact => ({
    type: 'RealmSettingsChanged',
    changes: changes as never,
    actor_id,
    audience: 'active_users',
  });

  it('records only the settings whose value changes, in stored form', () =>
    spec
      .given(organization)
      .when({
        actor: admin,
        params: {
          name: '  Acme Corp ',
          description: '',
          message_content_edit_limit_seconds: 'unlimited',
          can_create_groups: { new: { direct_members: [], direct_subgroups: [SYSTEM_GROUP.moderators] } },
          can_mention_many_users_group: { new: { direct_members: [MEMBER, MEMBER], direct_subgroups: [9] } },
        },
      })
      .then([
        changed({
          name: 'Acme Corp',
          message_content_edit_limit_seconds: null,
          can_create_groups: SYSTEM_GROUP.moderators,
          can_mention_many_users_group: { direct_members: [MEMBER], direct_subgroups: [9] },
        }),
      ]));

  it('records nothing when every value is already the current one', () =>
    spec.given([...organization, changed({ name: 'Acme Corp' })]).when({ actor: admin, params: { name: 'Acme Corp', allow_message_editing: true } }).then([]));

  it.each([
    ['a moderator', moderator],
    ['a member', member],
    ['a guest', guest],
  ])('refuses %s', (_, who) =>
    spec.given(organization).when({ actor: who, params: { description: 'x' } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Must be an organization administrator' }));

  it('lets an administrator bot change what administrators may', () =>
    spec.given(organization).when({ actor: bot, params: { description: 'bots' } }).then([changed({ description: 'bots' }, BOT)]));

  it.each(['invite_required', 'emails_restricted_to_domains', 'disallow_disposable_email_addresses', 'enable_spectator_access'])(
    'keeps %s for owners',
    (name) => spec.given(organization).when({ actor: admin, params: { [name]: false } }).thenThrows({ msg: 'Must be an organization owner' }),
  );

  it.each([
    ['waiting_period_threshold', 3],
    ['can_invite_users_group', { new: SYSTEM_GROUP.members }],
    ['create_multiuse_invite_group', { new: SYSTEM_GROUP.members }],
    ['can_create_web_public_channel_group', { new: SYSTEM_GROUP.administrators }],
    ['can_manage_all_groups', { new: SYSTEM_GROUP.administrators }],
  ])('refuses an administrator %s even with other settings, and lets an owner change it', (name, value) => {
    spec.given(organization).when({ actor: admin, params: { description: 'x', [name]: value } }).thenThrows({ msg: 'Must be an organization owner' });
    const stored = typeof value === 'object' ? value.new : value;
    spec.given(organization).when({ actor: owner, params: { [name]: value } }).then([changed({ [name]: stored }, OWNER)]);
  });

  it.each([
    ['an empty name', { name: '  ' }, "Organization name can't be empty."],
    ['a long name', { name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    ['a long description', { description: '😀'.repeat(1001) }, 'description is too long (limit: 1000 characters)'],
    ['a negative waiting period', { waiting_period_threshold: -1 }, 'Invalid waiting_period_threshold: -1'],
    ['a zero time limit', { move_messages_within_stream_limit_seconds: 0 }, 'Invalid move_messages_within_stream_limit_seconds: 0'],
    ['a limit as other text', { message_content_delete_limit_seconds: 'forever' }, 'Invalid message_content_delete_limit_seconds: "forever"'],
    ['an unknown video chat provider', { video_chat_provider: 7 }, 'Invalid video_chat_provider: 7'],
    ['an unknown group', { can_create_groups: { new: 99 } }, 'Invalid user group ID: 99'],
    ['role:internet', { can_create_groups: { new: SYSTEM_GROUP.internet } }, "'can_create_groups' setting cannot be set to 'role:internet' group."],
    ['role:everyone where guests may not hold it', { can_create_groups: { new: SYSTEM_GROUP.everyone } }, "'can_create_groups' setting cannot be set to 'role:everyone' group."],
    ['a deactivated member', { can_create_groups: { new: { direct_members: [GONE], direct_subgroups: [] } } }, `Invalid user ID ${GONE} in 'can_create_groups'`],
    ['a stale old value', { can_create_groups: { new: SYSTEM_GROUP.moderators, old: SYSTEM_GROUP.administrators } }, "'old' value for can_create_groups does not match expected value."],
  ])('refuses %s, whole', (_, params, msg) =>
    spec.given(organization).when({ actor: owner, params: { description: 'changed too', ...params } }).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('accepts a matching old value', () =>
    spec
      .given(organization)
      .when({ actor: admin, params: { can_create_groups: { new: SYSTEM_GROUP.moderators, old: SYSTEM_GROUP.members } } })
      .then([changed({ can_create_groups: SYSTEM_GROUP.moderators })]));

  it('gives the policy deciders take: the defaults until changed, then the new values', () => {
    const state = [changed({ can_create_public_channel_group: SYSTEM_GROUP.administrators, move_messages_within_stream_limit_seconds: null, allow_message_editing: false })].reduce(
      evolveRealmSettings,
      initialRealmSettings(),
    );
    const before = organizationPolicyOf(currentSettings(initialRealmSettings(), { organizationName: 'Acme' }));
    expect(before).toMatchObject({ canCreatePublicChannelGroup: SYSTEM_GROUP.members, messageContentEditLimitSeconds: 600, allowMessageEditing: true });
    const after = organizationPolicyOf(currentSettings(state, { organizationName: 'Acme' }));
    expect(after).toMatchObject({
      canCreatePublicChannelGroup: SYSTEM_GROUP.administrators,
      moveMessagesWithinChannelLimitSeconds: Number.MAX_SAFE_INTEGER,
      allowMessageEditing: false,
    });
  });

  it('without custom groups, a custom group is unknown', () =>
    deciderSpec<OrganizationState, { actor: Actor; params: Record<string, unknown> }>({
      initial: initialOrganization,
      evolve: evolveOrganization,
      decide: (cmd, org) => decideUpdateRealm(initialRealmSettings(), { organizationName: 'Acme', users: org.usersById, groups: NO_CUSTOM_GROUPS }, cmd),
    })
      .given(organization)
      .when({ actor: admin, params: { can_create_groups: { new: 9 } } })
      .thenThrows({ msg: 'Invalid user group ID: 9' }));
});

describe('user status', () => {
  const spec = deciderSpec<{ org: OrganizationState; status: UserStatusState }, UpdateStatus>({
    initial: () => ({ org: initialOrganization(), status: initialUserStatus() }),
    evolve: (state, fact) => ({ org: evolveOrganization(state.org, fact), status: evolveUserStatus(state.status, fact) }),
    decide: (cmd, state) => decideUpdateStatus(state.status, { users: state.org.usersById }, cmd),
  });
  const status = (user_id: number, values: Partial<UserStatusState>, changed: ('status_text' | 'emoji')[]): Fact => ({
    type: 'UserStatusChanged',
    user_id,
    ...initialUserStatus(),
    ...values,
    changed,
    audience: 'active_users',
  });
  const own = (who: Actor, params: UpdateStatus['params']): UpdateStatus => ({ actor: who, user_id: who.user_id, params });

  it('sets the text, trimmed, keeping the emoji', () =>
    spec
      .given([...organization, status(MEMBER, { emoji_name: 'car', emoji_code: '1f697' }, ['emoji'])])
      .when(own(member, { status_text: '  on the road ' }))
      .then([status(MEMBER, { status_text: 'on the road', emoji_name: 'car', emoji_code: '1f697' }, ['status_text'])]));

  it('takes an emoji by name, by name and code, and a service extra emoji', () => {
    spec.given(organization).when(own(member, { emoji_name: 'car' })).then([status(MEMBER, { emoji_name: 'car', emoji_code: '1f697' }, ['emoji'])]);
    spec
      .given(organization)
      .when(own(member, { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' }))
      .then([status(MEMBER, { emoji_name: 'car', emoji_code: '1f697' }, ['emoji'])]);
    spec
      .given(organization)
      .when(own(guest, { emoji_name: 'zulip', reaction_type: 'service_extra_emoji' }))
      .then([status(GUEST, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }, ['emoji'])]);
  });

  it('clears with empty values', () =>
    spec
      .given([...organization, status(MEMBER, { status_text: 'busy', emoji_name: 'car', emoji_code: '1f697' }, ['status_text', 'emoji'])])
      .when(own(member, { status_text: '', emoji_name: '' }))
      .then([status(MEMBER, {}, ['status_text', 'emoji'])]));

  it('counts astral characters once: 60 of them fit', () =>
    spec.given(organization).when(own(member, { status_text: '😀'.repeat(60) })).then([status(MEMBER, { status_text: '😀'.repeat(60) }, ['status_text'])]));

  it.each([
    ['no new values', {}, 'Client did not pass any new values.'],
    ['a text over 60 code points', { status_text: '😀'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
    ['emoji_code without emoji_name', { emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    ['reaction_type without emoji_name', { status_text: 'x', reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    ['an unknown emoji', { emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist"],
    ['a code of another emoji', { emoji_name: 'car', emoji_code: '1f600' }, 'Invalid emoji name.'],
    ['an unknown code', { emoji_name: 'car', emoji_code: 'zzzz' }, 'Invalid emoji code.'],
    ['a custom emoji', { emoji_name: 'party', reaction_type: 'realm_emoji', emoji_code: '1' }, 'Invalid custom emoji.'],
    ['an unknown reaction type', { emoji_name: 'car', reaction_type: 'sticker' }, "Invalid reaction_type 'sticker'"],
  ])('refuses %s', (_, params, msg) => spec.given(organization).when(own(member, params)).thenThrows({ code: 'BAD_REQUEST', msg }));

  it("lets an administrator set another user's status", () =>
    spec.given(organization).when({ actor: admin, user_id: MEMBER, params: { status_text: 'away' } }).then([status(MEMBER, { status_text: 'away' }, ['status_text'])]));

  it.each([
    ['a moderator', moderator],
    ['a member', member],
    ['an administrator bot', bot],
  ])("refuses %s setting another user's status", (_, who) =>
    spec.given(organization).when({ actor: who, user_id: OWNER, params: { status_text: 'x' } }).thenThrows({ msg: 'Insufficient permission' }));

  it.each([
    ['an unknown user', 99],
    ['a deactivated user', GONE],
  ])('refuses %s as the target', (_, user_id) =>
    spec.given(organization).when({ actor: admin, user_id, params: { status_text: 'x' } }).thenThrows({ msg: 'No such user' }));
});

describe('custom profile fields', () => {
  type Cmd = (state: ProfileFieldsState, users: OrganizationState['usersById']) => Fact[];
  const spec = deciderSpec<{ org: OrganizationState; fields: ProfileFieldsState }, Cmd>({
    initial: () => ({ org: initialOrganization(), fields: initialProfileFields() }),
    evolve: (state, fact) => ({ org: evolveOrganization(state.org, fact), fields: evolveProfileFields(state.fields, fact) }),
    decide: (cmd, state) => cmd(state.fields, state.org.usersById),
  });
  const field = (id: number, type: number, extra: Partial<ApiProfileField> = {}): ApiProfileField => ({
    id,
    type,
    order: id - 1,
    name: `Field ${id}`,
    hint: '',
    field_data: '',
    display_in_profile_summary: false,
    required: false,
    editable_by_user: true,
    ...extra,
  });
  const fieldsChanged = (fields: ApiProfileField[], deleted?: number): Fact => ({
    type: 'CustomProfileFieldsChanged',
    fields,
    ...(deleted !== undefined ? { deleted_field_id: deleted } : {}),
    audience: 'active_users',
  });
  const dataChanged = (user_id: number, changes: { id: number; value: string | null }[]): Fact => ({
    type: 'CustomProfileDataChanged',
    user_id,
    changes,
    audience: 'active_users',
  });
  const choices = { a: { text: 'Alpha', order: '1' }, b: { text: 'Beta', order: '2' } };
  const SHORT = field(1, PROFILE_FIELD_TYPE.short_text);
  const CHOICE = field(2, PROFILE_FIELD_TYPE.choice, { field_data: JSON.stringify(choices) });
  const USERS = field(3, PROFILE_FIELD_TYPE.users);
  const DATE = field(4, PROFILE_FIELD_TYPE.date);
  const LINK = field(5, PROFILE_FIELD_TYPE.link);
  const LOCKED = field(6, PROFILE_FIELD_TYPE.long_text, { editable_by_user: false });
  const withFields = [...organization, fieldsChanged([SHORT, CHOICE, USERS, DATE, LINK, LOCKED])];
  const create = (who: Actor, params: Parameters<typeof decideCreateField>[2]['params']): Cmd => (state, users) => decideCreateField(state, { users }, { actor: who, params });
  const setData = (who: Actor, items: { id: number; value: string | number[] | null }[], user_id = who.user_id): Cmd => (state, users) =>
    decideUpdateProfileData(state, { users }, { actor: who, user_id, items });

  it('creates a field after the others, with Zulip defaults', () =>
    spec
      .given(organization)
      .when(create(admin, { field_type: PROFILE_FIELD_TYPE.short_text, name: ' Field 1 ' }))
      .then([fieldsChanged([SHORT])]));

  it('creates a choice field and a preset external account named after its service', () => {
    spec
      .given(organization)
      .when(create(admin, { field_type: PROFILE_FIELD_TYPE.choice, name: 'Field 1', field_data: choices }))
      .then([fieldsChanged([field(1, PROFILE_FIELD_TYPE.choice, { field_data: JSON.stringify(choices) })])]);
    spec
      .given(organization)
      .when(create(admin, { field_type: PROFILE_FIELD_TYPE.external_account, field_data: { subtype: 'github' } }))
      .then([fieldsChanged([field(1, PROFILE_FIELD_TYPE.external_account, { name: 'GitHub', field_data: '{"subtype":"github"}' })])]);
  });

  it.each([
    ['a moderator', moderator],
    ['a member', member],
    ['a guest', guest],
  ])('refuses %s creating a field', (_, who) =>
    spec.given(organization).when(create(who, { field_type: 1, name: 'x' })).thenThrows({ msg: 'Must be an organization administrator' }));

  it.each([
    ['an unknown type', { field_type: 9, name: 'x' }, 'Invalid field type.'],
    ['a blank name', { field_type: 1, name: ' ' }, 'Label cannot be blank.'],
    ['a long name', { field_type: 1, name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    ['a long hint', { field_type: 1, name: 'x', hint: 'h'.repeat(81) }, 'hint is too long (limit: 80 characters)'],
    ['a taken name', { field_type: 1, name: 'Field 1' }, 'A field with that label already exists.'],
    ['a choice field without choices', { field_type: 3, name: 'x', field_data: {} }, 'Field must have at least one choice.'],
    ['a malformed choice', { field_type: 3, name: 'x', field_data: { a: { text: 'A' } } }, 'field_data["a"] must have a "text" and an "order", both strings'],
    ['duplicate choices', { field_type: 3, name: 'x', field_data: { a: { text: 'A', order: '1' }, b: { text: 'A', order: '2' } } }, 'Field must not have duplicate choices.'],
    ['an unknown external account', { field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type'],
    ['a custom account without pattern', { field_type: 7, name: 'x', field_data: { subtype: 'custom' } }, 'Custom external account must define URL pattern'],
    ['a malformed pattern', { field_type: 7, name: 'x', field_data: { subtype: 'custom', url_pattern: 'https://x.example/' } }, 'Malformed URL pattern.'],
    ['a summary long text', { field_type: 2, name: 'x', display_in_profile_summary: true }, 'Field type not supported for display in profile summary.'],
  ])('refuses %s', (_, params, msg) => spec.given([...organization, fieldsChanged([SHORT])]).when(create(admin, params)).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('shows at most two fields in the profile summary', () =>
    spec
      .given([...organization, fieldsChanged([field(1, 1, { display_in_profile_summary: true }), field(2, 1, { display_in_profile_summary: true })])])
      .when(create(admin, { field_type: 1, name: 'x', display_in_profile_summary: true }))
      .thenThrows({ msg: 'Only 2 custom profile fields can be displayed in the profile summary.' }));

  it('updates, reorders and deletes; deleting drops the values', () => {
    spec
      .given(withFields)
      .when((state, users) => decideUpdateField(state, { users }, { actor: admin, params: { field_id: 1, name: 'Nickname', hint: 'What we call you' } }))
      .then([fieldsChanged([{ ...SHORT, name: 'Nickname', hint: 'What we call you' }, CHOICE, USERS, DATE, LINK, LOCKED])]);
    spec
      .given(withFields)
      .when((state, users) => decideReorderFields(state, { users }, { actor: admin, order: [6, 5, 4, 3, 2, 1] }))
      .then([fieldsChanged([LOCKED, LINK, DATE, USERS, CHOICE, SHORT].map((f, order) => ({ ...f, order })))]);
    spec
      .given([...withFields, dataChanged(MEMBER, [{ id: 1, value: 'Marky' }])])
      .when((state, users) => decideDeleteField(state, { users }, { actor: admin, field_id: 1 }))
      .then([fieldsChanged([CHOICE, USERS, DATE, LINK, LOCKED], 1)]);
    // The value went with the field: a new field 7 starts empty, and setting field 1 is refused.
    const state = [...withFields, dataChanged(MEMBER, [{ id: 1, value: 'Marky' }]), fieldsChanged([CHOICE, USERS, DATE, LINK, LOCKED], 1)].reduce(
      evolveProfileFields,
      initialProfileFields(),
    );
    expect(state.values.get(MEMBER)?.has(1)).toBe(false);
  });

  it.each([
    ['an unknown field', (s: ProfileFieldsState, users: OrganizationState['usersById']) => decideDeleteField(s, { users }, { actor: admin, field_id: 99 }), 'Field id 99 not found.'],
    ['an update of an unknown field', (s: ProfileFieldsState, users: OrganizationState['usersById']) => decideUpdateField(s, { users }, { actor: admin, params: { field_id: 99, name: 'x' } }), 'Field id 99 not found.'],
    ['a partial order', (s: ProfileFieldsState, users: OrganizationState['usersById']) => decideReorderFields(s, { users }, { actor: admin, order: [1, 2, 3] }), 'Invalid order mapping.'],
    ['a repeated order', (s: ProfileFieldsState, users: OrganizationState['usersById']) => decideReorderFields(s, { users }, { actor: admin, order: [1, 1, 2, 3, 4, 5] }), 'Invalid order mapping.'],
    ['a member reordering', (s: ProfileFieldsState, users: OrganizationState['usersById']) => decideReorderFields(s, { users }, { actor: member, order: [1, 2, 3, 4, 5, 6] }), 'Must be an organization administrator'],
  ])('refuses %s', (_, cmd, msg) => spec.given(withFields).when(cmd).thenThrows({ msg }));

  it('sets values of every type in stored form; a users field keeps sorted unique ids', () =>
    spec
      .given(withFields)
      .when(
        setData(member, [
          { id: 1, value: ' Marky ' },
          { id: 2, value: 'b' },
          { id: 3, value: [GUEST, OWNER, GUEST] },
          { id: 4, value: '2024-02-29' },
          { id: 5, value: 'https://example.com/me' },
        ]),
      )
      .then([
        dataChanged(MEMBER, [
          { id: 1, value: 'Marky' },
          { id: 2, value: 'b' },
          { id: 3, value: JSON.stringify([OWNER, GUEST]) },
          { id: 4, value: '2024-02-29' },
          { id: 5, value: 'https://example.com/me' },
        ]),
      ]));

  it('removes values with null, an empty text or list, and DELETE; unchanged values make no fact', () => {
    const given = [...withFields, dataChanged(MEMBER, [{ id: 1, value: 'Marky' }, { id: 3, value: '[1]' }])];
    spec.given(given).when(setData(member, [{ id: 1, value: null }, { id: 3, value: [] }])).then([dataChanged(MEMBER, [{ id: 1, value: null }, { id: 3, value: null }])]);
    spec.given(given).when(setData(member, [{ id: 1, value: 'Marky' }, { id: 2, value: '' }])).then([]);
    spec
      .given(given)
      .when((state, users) => decideRemoveProfileData(state, { users }, { actor: member, field_ids: [1] }))
      .then([dataChanged(MEMBER, [{ id: 1, value: null }])]);
  });

  it.each([
    ['an unknown field', { id: 99, value: 'x' }, 'Field id 99 not found.'],
    ['a long short text', { id: 1, value: 'x'.repeat(51) }, 'Field 1 is too long (limit: 50 characters)'],
    ['a list for a text', { id: 1, value: [1] }, 'Field 1 is not a string'],
    ['an unknown choice', { id: 2, value: 'z' }, "'z' is not a valid choice for 'Field 2'."],
    ['text for a users field', { id: 3, value: '1' }, 'Field 3 is not a list'],
    ['an unknown user', { id: 3, value: [99] }, 'Invalid user ID: 99'],
    ['a deactivated user', { id: 3, value: [GONE] }, `Invalid user ID: ${GONE}`],
    ['an impossible date', { id: 4, value: '2023-02-29' }, 'Field 4 is not a date'],
    ['another date form', { id: 4, value: '29/02/2024' }, 'Field 4 is not a date'],
    ['a link that is not a URL', { id: 5, value: 'javascript:alert(1)' }, 'Field 5 is not a URL'],
    ['a field only administrators may change', { id: 6, value: 'x' }, 'You are not allowed to change this field. Contact an administrator to update it.'],
  ])('refuses %s', (_, item, msg) => spec.given(withFields).when(setData(member, [item])).thenThrows({ code: 'BAD_REQUEST', msg }));

  it("lets administrators change fields not editable by users, and other users' values", () => {
    spec.given(withFields).when(setData(admin, [{ id: 6, value: 'notes' }])).then([dataChanged(ADMIN, [{ id: 6, value: 'notes' }])]);
    spec.given(withFields).when(setData(admin, [{ id: 1, value: 'M' }], MEMBER)).then([dataChanged(MEMBER, [{ id: 1, value: 'M' }])]);
    spec.given(withFields).when(setData(member, [{ id: 1, value: 'M' }], GUEST)).thenThrows({ msg: 'Insufficient permission' });
  });
});
