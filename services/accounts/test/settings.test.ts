/** Given facts / when command / then facts for PATCH /settings: personal settings, and the account changes. */
import { describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT, ROLE, SYSTEM_GROUP, USER_SETTING_NAMES, USER_SETTINGS, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { groupSnapshotOf } from '@teamchat/directory';
import { deciderSpec } from '@teamchat/platform/testing';
import { isUserInGroupSetting } from '@teamchat/policies';
import { decideAccountChanges, decideConfirmEmailChange, EMAIL_CHANGE_LINK_VALIDITY_MS, type AccountChanges } from '../src/domain/account-settings';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import { evolveUserData, initialUserData, type UserDataState } from '../src/domain/user-data';
import { checkSetting, decideUpdateSettings, type UpdateSettings } from '../src/domain/user-settings';
import { maySeeEmailOf } from '../src/queries/people';

const NOW = 1_700_000_000_000;

const userData = deciderSpec<UserDataState, UpdateSettings>({ initial: initialUserData, evolve: evolveUserData, decide: (cmd, state) => decideUpdateSettings(state, cmd) });
const changed = (property: string, value: boolean | number | string, extra: Partial<FactOf<'UserSettingChanged'>> = {}): FactOf<'UserSettingChanged'> => ({
  type: 'UserSettingChanged',
  user_id: 1,
  property,
  value,
  ...extra,
});

describe('checkSetting: every setting of the spec, by kind', () => {
  it.each([
    ['color_scheme', 7],
    ['color_scheme', 0],
    ['web_channel_default_view', 5],
    ['demote_inactive_streams', 4],
    ['user_list_style', 0],
    ['web_stream_unreads_count_display_policy', 9],
    ['web_home_view', 'home'],
    ['emojiset', 'apple'],
    ['web_animate_image_previews', 'sometimes'],
    ['default_language', 'xx'],
    ['timezone', 'Mars/Olympus_Mons'],
    ['notification_sound', 'klaxon'],
    ['web_font_size_px', 500],
    ['web_line_height_percent', 10],
    ['email_notifications_batching_period_seconds', 0],
    ['email_notifications_batching_period_seconds', 8 * 24 * 3600],
    ['email_address_visibility', 6],
    ['twenty_four_hour_time', 'yes'],
  ] as const)('refuses %s = %j, naming the parameter and the value', (name, value) => {
    expect(() => checkSetting(name, value)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', msg: `Invalid ${name}: ${JSON.stringify(value)}` }));
  });

  it.each([
    ['color_scheme', 2],
    ['web_channel_default_view', 3],
    ['web_home_view', 'all_messages'],
    ['emojiset', 'text'],
    ['default_language', 'de'],
    ['timezone', 'Europe/Berlin'],
    ['timezone', ''],
    ['notification_sound', 'none'],
    ['web_font_size_px', 16],
    ['email_notifications_batching_period_seconds', 300],
  ] as const)('accepts %s = %j', (name, value) => expect(checkSetting(name, value)).toBe(value));

  it('reads the pre-454 name of the recent conversations view', () => expect(checkSetting('web_home_view', 'recent_topics')).toBe('recent'));

  it('accepts every default (the table is consistent)', () => {
    for (const name of USER_SETTING_NAMES) expect(checkSetting(name, USER_SETTINGS[name].default)).toBe(USER_SETTINGS[name].default);
  });
});

describe('decideUpdateSettings', () => {
  it('records each changed setting as its own fact', () =>
    userData.given([]).when({ user_id: 1, changes: { color_scheme: 2, enter_sends: true, default_language: 'fr' } }).then([
      changed('color_scheme', 2),
      changed('enter_sends', true),
      changed('default_language', 'fr'),
    ]));

  it('records nothing for values that do not change', () =>
    userData.given([changed('color_scheme', 2)]).when({ user_id: 1, changes: { color_scheme: 2, enter_sends: false } }).then([]));

  it('refuses the whole request when one value is bad', () =>
    userData.given([]).when({ user_id: 1, changes: { enter_sends: true, emojiset: 'apple' } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid emojiset: "apple"' }));

  it('carries the profile audience and shown email with a time zone', () =>
    userData
      .given([])
      .when({ user_id: 1, changes: { timezone: 'Asia/Tokyo' }, profile: { email: 'user1@acme.test' } })
      .then([changed('timezone', 'Asia/Tokyo', { audience: 'active_users', email: 'user1@acme.test' })]));

  it('records who changed it when an administrator did', () =>
    userData.given([]).when({ user_id: 1, changes: { enter_sends: true }, acting_user_id: 9 }).then([changed('enter_sends', true, { acting_user_id: 9 })]));

  it("skip_if_already_edited leaves the settings the user changed themselves, not those an administrator set", () =>
    userData
      .given([changed('enter_sends', true), changed('color_scheme', 2, { acting_user_id: 9 })])
      .when({ user_id: 1, changes: { enter_sends: false, color_scheme: 3 }, acting_user_id: 9, skip_if_already_edited: true })
      .then([changed('color_scheme', 3, { acting_user_id: 9 })]));

  it('a change of the own email visibility tells the viewers who gain or lose sight of the address', () => {
    // Viewer 2 an administrator, 3 a member; visibility 3 is administrators only.
    const maySee = (viewer: number, own: number) => own === 1 || (own === 3 && viewer === 2);
    const emailViewers = { viewer_ids: [2, 3], email: 'u1@acme.test', dummy: 'user1@acme.test', maySee };
    userData.given([]).when({ user_id: 1, changes: { email_address_visibility: 3 }, emailViewers }).then([
      changed('email_address_visibility', 3, { email_views: [{ user_ids: [3], email: 'user1@acme.test', delivery_email: null }] }),
    ]);
    userData.given([changed('email_address_visibility', 4)]).when({ user_id: 1, changes: { email_address_visibility: 3 }, emailViewers }).then([
      changed('email_address_visibility', 3, { email_views: [{ user_ids: [2], email: 'u1@acme.test', delivery_email: 'u1@acme.test' }] }),
    ]);
  });

  it('without skip_if_already_edited an administrator overrides the user', () =>
    userData
      .given([changed('enter_sends', true)])
      .when({ user_id: 1, changes: { enter_sends: false }, acting_user_id: 9 })
      .then([changed('enter_sends', false, { acting_user_id: 9 })]));
});

// --- Account changes on the organization's stream ---------------------------------------

const org = <C>(decide: (state: OrganizationState, cmd: C) => Fact[]) =>
  deciderSpec<OrganizationState, C>({ initial: initialOrganization, evolve: evolveOrganization, decide: (cmd, state) => decide(state, cmd) });

function userCreated(user_id: number, role: number, extra: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> {
  return {
    type: 'UserCreated',
    user_id,
    email: `user${user_id}@acme.example`,
    full_name: `User ${user_id}`,
    role,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    timezone: '',
    date_joined: 1_600_000_000,
    api_key_salt: `salt-${user_id}`,
    api_key_hash: `hash-${user_id}`,
    ...extra,
  };
}
const actor = (user_id: number, role: number): Actor => ({ user_id, email: `user${user_id}@acme.example`, full_name: `User ${user_id}`, role, is_bot: false, client: 'test' });
const USERS = [userCreated(1, ROLE.owner), userCreated(2, ROLE.administrator), userCreated(3, ROLE.member), userCreated(4, ROLE.guest)];
const member = actor(3, ROLE.member);
const admin = actor(2, ROLE.administrator);

const account = org((state, cmd: Partial<AccountChanges> & { actor: Actor }) =>
  decideAccountChanges(state, { nameChangesDisabled: false, emailChangesDisabled: false, ...cmd }),
);

describe('decideAccountChanges', () => {
  it('changes the own name, told to everyone', () =>
    account.given(USERS).when({ actor: member, full_name: '  Marge ' }).then([{ type: 'UserFullNameChanged', user_id: 3, full_name: 'Marge', audience: 'active_users' }]));

  it('refuses a name change the organization forbids, and changes nothing else of the request', () =>
    account
      .given(USERS)
      .when({ actor: member, full_name: 'Marge', nameChangesDisabled: true, password: { old_given: true, old_matches: true, new_hash: 'h' } })
      .thenThrows({ msg: 'Name changes are disabled in this organization. Contact an administrator to change your name.' }));

  it('lets administrators change their name when the organization forbids it', () =>
    account.given(USERS).when({ actor: admin, full_name: 'Ada', nameChangesDisabled: true }).then([{ type: 'UserFullNameChanged', user_id: 2, full_name: 'Ada', audience: 'active_users' }]));

  it.each([
    ['', 'Name too short!'],
    ['a@b', 'Invalid characters in name!'],
    ['x'.repeat(101), 'Name too long!'],
  ])('refuses the name %j', (full_name, msg) => account.given(USERS).when({ actor: member, full_name }).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('sets a new password when the old one matches', () =>
    account.given(USERS).when({ actor: member, password: { old_given: true, old_matches: true, new_hash: 'scrypt$new' } }).then([
      { type: 'UserPasswordSet', user_id: 3, password_hash: 'scrypt$new' },
    ]));

  it('keeps the web session a new password was set from, and only that one (kept_session_hash)', () =>
    account.given(USERS).when({ actor: member, password: { old_given: true, old_matches: true, new_hash: 'scrypt$new', kept_session_hash: 'h1' } }).then([
      { type: 'UserPasswordSet', user_id: 3, password_hash: 'scrypt$new', kept_session_hash: 'h1' },
    ]));

  it('refuses a new password without the old one', () =>
    account.given(USERS).when({ actor: member, password: { old_given: false, old_matches: false, new_hash: 'h' } }).thenThrows({ msg: "Missing 'old_password' argument" }));

  it('refuses a new password when the old one does not match', () =>
    account.given(USERS).when({ actor: member, password: { old_given: true, old_matches: false, new_hash: 'h' } }).thenThrows({ msg: 'Wrong password!' }));

  it('starts an email change with the hash of the link key', () =>
    account.given(USERS).when({ actor: member, email: { new_email: ' new@acme.example ', key_hash: 'kh', now: NOW } }).then([
      { type: 'EmailChangeRequested', user_id: 3, new_email: 'new@acme.example', key_hash: 'kh', requested_at: NOW },
    ]));

  it('does nothing for the current address', () =>
    account.given(USERS).when({ actor: member, email: { new_email: 'USER3@acme.example', key_hash: 'kh', now: NOW } }).then([]));

  it.each([
    ['not-an-address', "Invalid email 'not-an-address'"],
    ['user1@acme.example', "Email 'user1@acme.example' already in use"],
    // A system bot's address (any case) is taken in every organization.
    ['Welcome-Bot@zulip.com', "Email 'Welcome-Bot@zulip.com' already in use"],
    [NOTIFICATION_BOT.email, `Email '${NOTIFICATION_BOT.email}' already in use`],
  ])('refuses the email %j', (new_email, msg) => account.given(USERS).when({ actor: member, email: { new_email, key_hash: 'kh', now: NOW } }).thenThrows({ msg }));

  it('refuses an email change the organization forbids, except to administrators', () => {
    account.given(USERS).when({ actor: member, emailChangesDisabled: true, email: { new_email: 'n@acme.example', key_hash: 'k', now: NOW } }).thenThrows({
      msg: 'Email address changes are disabled in this organization.',
    });
    account.given(USERS).when({ actor: admin, emailChangesDisabled: true, email: { new_email: 'n@acme.example', key_hash: 'k', now: NOW } }).then([
      { type: 'EmailChangeRequested', user_id: 2, new_email: 'n@acme.example', key_hash: 'k', requested_at: NOW },
    ]);
  });
});

describe('decideConfirmEmailChange', () => {
  const requested = (key_hash: string, new_email = 'new@acme.example', requested_at = NOW): FactOf<'EmailChangeRequested'> => ({
    type: 'EmailChangeRequested',
    user_id: 3,
    new_email,
    key_hash,
    requested_at,
  });
  const confirm = org((state, cmd: { key_hash: string; now: number }) =>
    // Guests may not see addresses in this organization.
    decideConfirmEmailChange(state, { ...cmd, maySeeRealEmail: (viewer, subject) => viewer.user_id === subject.user_id || viewer.role !== ROLE.guest }),
  );

  it('changes the address, told to those who may see it', () =>
    confirm.given([...USERS, requested('kh')]).when({ key_hash: 'kh', now: NOW + 1000 }).then([
      { type: 'UserEmailChanged', user_id: 3, old_email: 'user3@acme.example', new_email: 'new@acme.example', audience_user_ids: [1, 2, 3] },
    ]));

  it('refuses an unknown key', () => confirm.given([...USERS, requested('kh')]).when({ key_hash: 'other', now: NOW }).thenThrows({ msg: 'Invalid or expired confirmation link' }));

  it('refuses an expired link', () =>
    confirm.given([...USERS, requested('kh')]).when({ key_hash: 'kh', now: NOW + EMAIL_CHANGE_LINK_VALIDITY_MS + 1 }).thenThrows({ msg: 'Invalid or expired confirmation link' }));

  it('only the latest request of a user works', () =>
    confirm.given([...USERS, requested('old'), requested('new', 'newer@acme.example')]).when({ key_hash: 'old', now: NOW }).thenThrows({ msg: 'Invalid or expired confirmation link' }));

  it('a used link does not work twice', () =>
    confirm
      .given([...USERS, requested('kh'), { type: 'UserEmailChanged', user_id: 3, old_email: 'user3@acme.example', new_email: 'new@acme.example' }])
      .when({ key_hash: 'kh', now: NOW })
      .thenThrows({ msg: 'Invalid or expired confirmation link' }));

  it('refuses an address someone took meanwhile', () =>
    confirm.given([...USERS, requested('kh'), userCreated(5, ROLE.member, { email: 'new@acme.example' })]).when({ key_hash: 'kh', now: NOW }).thenThrows({
      msg: "Email 'new@acme.example' already in use",
    }));

  it('after the change the old address is free and the new one taken', () => {
    const state = [...USERS, requested('kh'), { type: 'UserEmailChanged', user_id: 3, old_email: 'user3@acme.example', new_email: 'new@acme.example' } as Fact].reduce(
      evolveOrganization,
      initialOrganization(),
    );
    expect(state.usersByEmail.has('user3@acme.example')).toBe(false);
    expect(state.usersByEmail.get('new@acme.example')?.user_id).toBe(3);
    expect(state.usersById.get(3)?.email).toBe('new@acme.example');
  });
});

describe('email visibility: the organization and the user must both allow it', () => {
  const viewer = (role: number) => ({ _id: 9, role });
  const subject = { _id: 3, is_bot: false };
  it.each([
    [1, 1, ROLE.guest, true],
    [2, 1, ROLE.guest, false],
    [2, 1, ROLE.member, true],
    [1, 3, ROLE.moderator, false],
    [1, 3, ROLE.administrator, true],
    [1, 4, ROLE.owner, false],
    [3, 2, ROLE.administrator, true],
  ])('organization %i, user %i, viewer role %i → %s', (realm, own, role, visible) =>
    expect(maySeeEmailOf(viewer(role), subject, { realm, own: new Map([[3, own]]) })).toBe(visible));

  it('a user always sees their own address, and bots are always shown', () => {
    expect(maySeeEmailOf({ _id: 3, role: ROLE.guest }, subject, { realm: 4, own: new Map([[3, 4]]) })).toBe(true);
    expect(maySeeEmailOf(viewer(ROLE.guest), { _id: 7, is_bot: true }, { realm: 4, own: new Map() })).toBe(true);
  });
});

describe('full members follow the organization waiting period', () => {
  const member = { user_id: 3, role: ROLE.member, date_joined: NOW / 1000 - 5 * 24 * 3600 };
  it.each([
    [0, true],
    [5, true],
    [6, false],
  ])('waiting period %i days, joined 5 days ago → full member %s', (days, full) =>
    expect(isUserInGroupSetting(SYSTEM_GROUP.fullmembers, member, NOW / 1000, groupSnapshotOf([], days))).toBe(full));

  it('moderators are full members whatever their age', () =>
    expect(isUserInGroupSetting(SYSTEM_GROUP.fullmembers, { ...member, role: ROLE.moderator }, NOW / 1000, groupSnapshotOf([], 100))).toBe(true));
});
