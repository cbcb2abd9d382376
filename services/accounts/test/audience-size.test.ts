/**
 * What an organization's size costs each fact that announces a change to everyone: the
 * audience is named (`active_users`), so a new user's fact is as large at 10,000 users as
 * at 100, decided and stored (it grew by 49 KB when the audience was a list of ids, kept
 * in the store as runs, which facts stored then still read as).
 */
import { describe, expect, it } from '@jest/globals';
import { ROLE, storedFactData, upcast, type Fact } from '@teamchat/contracts';
import { decideCreateUser, decideDeactivateUser, evolveOrganization, initialOrganization, type OrganizationState, type RegisteredUser } from '../src/domain/organization';

const credentials = { api_key_salt: 'salt', api_key_hash: 'hash' };
const NOW = 1_700_000_000_000;

/** An organization of `size` users (the first its owner), built directly: folding 10,000 facts here would test nothing more. */
function organizationOf(size: number): OrganizationState {
  let state = initialOrganization();
  for (let id = 1; id <= size; id++) {
    const user: RegisteredUser = {
      user_id: id,
      email: `user${id}@example.com`,
      full_name: `User ${id}`,
      role: id === 1 ? ROLE.owner : ROLE.member,
      is_active: true,
      is_bot: false,
      bot_type: null,
      bot_owner_id: null,
      date_joined: 1_600_000_000,
      api_key_salt: 'salt',
      bot_settings: null,
      can_change_user_emails: false,
      can_create_users: false,
    };
    state = { ...state, usersById: state.usersById.with(id, user), usersByEmail: state.usersByEmail.with(user.email, user), activeUserIds: state.activeUserIds.with(id) };
  }
  return { ...state, exists: true, lastUserId: size };
}

const storedSize = (fact: Fact) => JSON.stringify(storedFactData(fact)).length;
const newUser = (state: OrganizationState) =>
  decideCreateUser(state, { actor: undefined, user: { email: 'new@example.com', full_name: 'New', role: ROLE.member }, credentials, now: NOW })[0];

describe('the size of a fact announced to everyone', () => {
  it('does not grow with the organization: the audience is named, decided and stored', () => {
    const small = newUser(organizationOf(100));
    const large = newUser(organizationOf(10_000));
    expect(large.audience).toBe('active_users');
    expect(large).not.toHaveProperty('audience_user_ids');
    // Only the new user's id differs (10001 against 101): 49 KB apart when the audience was listed.
    expect(JSON.stringify(large).length - JSON.stringify(small).length).toBe(2);
    expect(storedSize(large) - storedSize(small)).toBe(2);
    expect(storedSize(large)).toBeLessThan(400);
    expect(upcast(storedFactData(large))).toEqual(large);
  });

  it('stays the same size however many users are deactivated', () => {
    let state = organizationOf(10_000);
    const before = storedSize(newUser(state));
    const owner = { user_id: 1, email: 'user1@example.com', full_name: 'User 1', role: ROLE.owner, is_bot: false, client: 'test' };
    for (const user_id of [10, 20, 30]) {
      const [deactivated] = decideDeactivateUser(state, { actor: owner, user_id });
      expect(deactivated).toEqual({ type: 'UserDeactivated', user_id, audience: 'active_users' });
      state = evolveOrganization(state, deactivated!);
    }
    expect(storedSize(newUser(state))).toBe(before);
  });

  it('still reads a fact stored with a listed audience (as runs) as the list it was', () => {
    const listed = { ...newUser(organizationOf(100)), audience_user_ids: [...Array.from({ length: 9 }, (_, i) => i + 1), ...Array.from({ length: 92 }, (_, i) => i + 11)] };
    delete (listed as { audience?: unknown }).audience;
    expect(storedFactData(listed).audience_user_ids).toEqual({ id_runs: [1, 9, 11, 102] });
    expect(upcast(storedFactData(listed))).toEqual(listed);
  });
});
