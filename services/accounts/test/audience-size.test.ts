/**
 * What an organization's size costs each fact that announces a change to everyone: the
 * audience is decided as a full list of ids, and the store keeps it as runs, so a new
 * user's fact is as large at 10,000 users as at 100 (it grew by 49 KB before).
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

describe('the stored size of an audience of everyone', () => {
  it('does not grow with the organization', () => {
    const small = newUser(organizationOf(100));
    const large = newUser(organizationOf(10_000));
    // The decision is the full list, exactly as before.
    expect(large.audience_user_ids).toHaveLength(10_001);
    expect(JSON.stringify(large).length - JSON.stringify(small).length).toBeGreaterThan(40_000);
    // Stored, only the ids' digits differ (10001 against 101).
    expect(Math.abs(storedSize(large) - storedSize(small))).toBeLessThanOrEqual(8);
    expect(storedSize(large)).toBeLessThan(600);
    expect(upcast(storedFactData(large))).toEqual(large);
  });

  it('grows by one run for each deactivated user in the middle, not with the organization', () => {
    let state = organizationOf(10_000);
    const owner = { user_id: 1, email: 'user1@example.com', full_name: 'User 1', role: ROLE.owner, is_bot: false, client: 'test' };
    for (const user_id of [10, 20, 30]) {
      const [deactivated] = decideDeactivateUser(state, { actor: owner, user_id });
      expect(upcast(storedFactData(deactivated!))).toEqual(deactivated);
      state = evolveOrganization(state, deactivated!);
    }
    const fact = newUser(state);
    expect(fact.audience_user_ids).toHaveLength(10_001 - 3);
    expect(storedFactData(fact).audience_user_ids).toEqual({ id_runs: [1, 9, 11, 19, 21, 29, 31, 10_001] });
  });
});
