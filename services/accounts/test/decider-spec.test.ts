/**
 * The given/when/then helper itself (libs/platform/src/testing/decider-spec.ts), exercised
 * on the organization decider: a helper that cannot fail would make every decider test pass.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { ApiError, ROLE, type Actor, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideDeactivateUser, evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';

type Deactivate = { actor: Actor; user_id: number };
const admin: Actor = { user_id: 2, email: 'admin@acme.example', full_name: 'Admin', role: ROLE.administrator, is_bot: false, client: 'website' };
const member = (user_id: number, role: number = ROLE.member): Fact => ({
  type: 'UserCreated',
  user_id,
  email: `user${user_id}@acme.example`,
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
const history: Fact[] = [{ type: 'OrganizationCreated', name: 'Acme', host: 'h', date_created: 0 }, member(1, ROLE.owner), member(2, ROLE.administrator), member(3)];

const spec = deciderSpec<OrganizationState, Deactivate>({
  initial: initialOrganization,
  evolve: evolveOrganization,
  decide: (cmd, state) => decideDeactivateUser(state, cmd),
});

describe('deciderSpec', () => {
  it('passes when the decided facts are the expected ones', () => {
    expect(() => spec.given(history).when({ actor: admin, user_id: 3 }).then([{ type: 'UserDeactivated', user_id: 3, audience: 'active_users' }])).not.toThrow();
  });

  it('folds the given facts through evolve before deciding', () => {
    expect(() =>
      spec.given([...history, { type: 'UserDeactivated', user_id: 3 }]).when({ actor: admin, user_id: 3 }).thenThrows({ msg: 'User is already deactivated' }),
    ).not.toThrow();
  });

  it('fails when the decided facts differ', () => {
    expect(() => spec.given(history).when({ actor: admin, user_id: 3 }).then([{ type: 'UserDeactivated', user_id: 4 }])).toThrow();
  });

  it('fails when an extra fact is decided', () => {
    expect(() => spec.given(history).when({ actor: admin, user_id: 3 }).then([])).toThrow();
  });

  it('fails, naming the error, when then() meets a throwing decide', () => {
    expect(() => spec.given(history).when({ actor: admin, user_id: 99 }).then([])).toThrow(/but decide threw[\s\S]*No such user/);
  });

  it('matches an error by code and by whole message or pattern', () => {
    const when = spec.given(history).when({ actor: admin, user_id: 99 });
    expect(() => when.thenThrows({ code: 'BAD_REQUEST', msg: 'No such user' })).not.toThrow();
    expect(() => when.thenThrows({ msg: /such/ })).not.toThrow();
    expect(() => when.thenThrows({})).not.toThrow();
  });

  it('fails thenThrows when nothing is thrown, showing the facts decided', () => {
    expect(() => spec.given(history).when({ actor: admin, user_id: 3 }).thenThrows({ code: 'BAD_REQUEST' })).toThrow(/but it decided[\s\S]*UserDeactivated/);
  });

  it('fails thenThrows on another code or message', () => {
    const when = spec.given(history).when({ actor: admin, user_id: 99 });
    expect(() => when.thenThrows({ code: 'PERMISSION_DENIED' })).toThrow(/code PERMISSION_DENIED/);
    expect(() => when.thenThrows({ msg: 'No such' })).toThrow(/No such user/);
    expect(() => when.thenThrows({ msg: /^such/ })).toThrow();
  });

  it('compares extra fields when asked', () => {
    const thrower = deciderSpec<null, void>({
      initial: () => null,
      evolve: (s) => s,
      decide: () => {
        throw new ApiError('STREAM_DOES_NOT_EXIST', "Channel 'x' does not exist", 400, { stream: 'x' });
      },
    });
    expect(() => thrower.given([]).when().thenThrows({ code: 'STREAM_DOES_NOT_EXIST', extra: { stream: 'x' } })).not.toThrow();
    expect(() => thrower.given([]).when().thenThrows({ extra: { stream: 'y' } })).toThrow();
  });

  it('recognises an API error by its shape, as it arrives over the bus', () => {
    const remote = deciderSpec<null, void>({
      initial: () => null,
      evolve: (s) => s,
      decide: () => {
        throw JSON.parse(JSON.stringify(new ApiError('BAD_REQUEST', 'nope')));
      },
    });
    expect(() => remote.given([]).when().thenThrows({ code: 'BAD_REQUEST', msg: 'nope' })).not.toThrow();
  });

  it('fails thenThrows on an error that is not an API error', () => {
    const broken = deciderSpec<null, void>({
      initial: () => null,
      evolve: (s) => s,
      decide: () => {
        throw new TypeError('boom');
      },
    });
    expect(() => broken.given([]).when().thenThrows({})).toThrow(/but decide threw TypeError: boom/);
  });

  describe('outside jest (no global expect)', () => {
    const saved = (globalThis as { expect?: unknown }).expect;
    afterEach(() => {
      (globalThis as { expect?: unknown }).expect = saved;
    });

    it('still passes and fails, through node:assert', () => {
      delete (globalThis as { expect?: unknown }).expect;
      const when = spec.given(history).when({ actor: admin, user_id: 3 });
      let passed: unknown = 'not run';
      let failed: unknown = null;
      try {
        when.then([{ type: 'UserDeactivated', user_id: 3, audience: 'active_users' }]);
        passed = null;
        when.then([{ type: 'UserDeactivated', user_id: 4 }]);
      } catch (err) {
        failed = err;
      }
      (globalThis as { expect?: unknown }).expect = saved;
      expect(passed).toBeNull();
      expect((failed as Error | null)?.name).toBe('AssertionError');
    });
  });
});
