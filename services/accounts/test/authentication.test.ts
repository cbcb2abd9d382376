import { describe, expect, it } from '@jest/globals';
import { isApiError, ROLE } from '@teamchat/contracts';
import { authenticatedActor, emailClaim, keyHolder, loginAddress, type AccountHolder } from '../src/domain/authentication';
import { deriveApiKey, hashApiKey } from '../src/domain/credentials';

const KEY = deriveApiKey('server-secret', 'salt');
const credential = { api_key_hash: hashApiKey(KEY) };
const mark: AccountHolder = { _id: 4, email: 'mark@example.com', full_name: 'Mark', role: ROLE.member, is_bot: false, is_active: true };
const gone: AccountHolder = { ...mark, _id: 5, is_active: false };

function refusal(call: () => unknown): string | null {
  try {
    call();
    return null;
  } catch (err) {
    if (isApiError(err)) return `${err.code} ${err.status}: ${err.msg}`;
    throw err;
  }
}

describe('authenticatedActor', () => {
  it.each<[string, AccountHolder | undefined, { api_key_hash: string } | undefined, string, string | null]>([
    ['the right key', mark, credential, KEY, null],
    ['a wrong key', mark, credential, `${KEY}x`, 'INVALID_API_KEY 401: Invalid API key'],
    ['an unknown email', undefined, undefined, KEY, 'INVALID_API_KEY 401: Invalid API key'],
    ['a user without credentials', mark, undefined, KEY, 'INVALID_API_KEY 401: Invalid API key'],
    ['a deactivated user with the right key', gone, credential, KEY, 'USER_DEACTIVATED 401: Account is deactivated'],
    ['a deactivated user with a wrong key', gone, credential, 'nope', 'INVALID_API_KEY 401: Invalid API key'],
  ])('%s', (_, user, held, key, expected) => {
    expect(refusal(() => authenticatedActor(user, held, key, 'test'))).toBe(expected);
  });

  it('is the user as services see the caller, with the client named', () => {
    expect(authenticatedActor(mark, credential, KEY, 'ZulipMobile')).toEqual({
      user_id: 4,
      email: 'mark@example.com',
      full_name: 'Mark',
      role: ROLE.member,
      is_bot: false,
      client: 'ZulipMobile',
    });
  });
});

describe('keyHolder', () => {
  it.each<[string, AccountHolder | undefined, string | null]>([
    ['an active user', mark, null],
    ['nobody', undefined, 'BAD_REQUEST 400: This user does not exist.'],
    ['a deactivated user', gone, 'USER_DEACTIVATED 401: Account is deactivated'],
  ])('%s', (_, user, expected) => {
    expect(refusal(() => keyHolder(user, 'This user does not exist.'))).toBe(expected);
  });
});

describe('emailClaim', () => {
  it.each<[string, unknown, string | null]>([
    ['an email', 'mark@example.com', null],
    ['an empty claim', '', 'BAD_REQUEST 400: No email specified in JSON web token claims'],
    ['no claim', undefined, 'BAD_REQUEST 400: No email specified in JSON web token claims'],
    ['a number', 4, 'BAD_REQUEST 400: No email specified in JSON web token claims'],
  ])('%s', (_, claim, expected) => {
    expect(refusal(() => emailClaim(claim))).toBe(expected);
  });
});

describe('loginAddress', () => {
  it('passes any address but a system bot\'s, which names no account to log into', () => {
    expect(loginAddress('mark@example.com')).toBe('mark@example.com');
    expect(loginAddress('notification-bot@zulip.com')).toBeUndefined();
    expect(loginAddress(' Welcome-Bot@Zulip.COM ')).toBeUndefined();
  });
});
