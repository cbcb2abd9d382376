import { describe, expect, it } from '@jest/globals';
import { isApiError, ROLE } from '@teamchat/contracts';
import { alreadySubscribed, evolveChannel, initialChannel } from '../src/domain/subscriptions';
import { activeActor, checkInitialSubscribers, principalIds, type KnownUser } from '../src/domain/users';

const user = (user_id: number, is_active = true): KnownUser => ({ user_id, role: ROLE.member, date_joined: 1_600_000_000, is_active });

function refusal(call: () => unknown): string | null {
  try {
    call();
    return null;
  } catch (err) {
    if (isApiError(err)) return err.msg;
    throw err;
  }
}

describe('activeActor', () => {
  it.each<[string, KnownUser | undefined, string | null]>([
    ['an active user', user(4), null],
    ['a deactivated user', user(4, false), 'Not an active user'],
    ['nobody', undefined, 'Not an active user'],
  ])('%s', (_, found, expected) => {
    expect(refusal(() => activeActor(found))).toBe(expected);
  });

  it('is the user as group membership sees them', () => {
    expect(activeActor(user(4))).toEqual({ user_id: 4, role: ROLE.member, date_joined: 1_600_000_000 });
  });
});

describe('principalIds', () => {
  it.each<[string, (KnownUser | undefined)[], number[] | string]>([
    ['each active user once, in the order named', [user(5), user(4), user(5)], [5, 4]],
    ['a user who does not exist', [user(4), undefined], 'No such user'],
    ['a deactivated user', [user(4), user(6, false)], 'User is deactivated'],
    ['the first problem in the order named', [user(6, false), undefined], 'User is deactivated'],
  ])('%s', (_, found, expected) => {
    if (typeof expected === 'string') expect(refusal(() => principalIds(found))).toBe(expected);
    else expect(principalIds(found)).toEqual(expected);
  });
});

describe('checkInitialSubscribers', () => {
  it.each<[string, number[], KnownUser[], string | null]>([
    ['all found and active', [4, 5, 4], [user(4), user(5)], null],
    ['one not found', [4, 5], [user(4)], 'Invalid user ID'],
    ['one deactivated', [4, 5], [user(4), user(5, false)], 'Invalid user ID'],
  ])('%s', (_, requested, known, expected) => {
    expect(refusal(() => checkInitialSubscribers(requested, known))).toBe(expected);
  });
});

describe('alreadySubscribed', () => {
  it('is the named users the channel has, in the order named', () => {
    const state = evolveChannel(initialChannel(), {
      type: 'SubscriptionsAdded',
      channel_id: 1,
      user_ids: [4, 6],
    });
    expect(alreadySubscribed(state, [6, 5, 4])).toEqual([6, 4]);
  });
});
