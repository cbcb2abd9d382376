/**
 * Password links and a user's own API key, given the organization's facts: who gets a
 * reset link (and that nobody can tell from the answer), the per-address budget, expiry,
 * single use, and a new key that replaces the old one.
 */
import { describe, it } from '@jest/globals';
import { ROLE, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import {
  decideIssuePasswordLink,
  decideRegenerateApiKey,
  decideRequestPasswordReset,
  decideSetPasswordWithLink,
  INITIAL_LINK_VALIDITY_MS,
  RESET_LINK_VALIDITY_MS,
  type RequestPasswordReset,
} from '../src/domain/password-links';

const NOW = 1_700_000_000_000;
const HOUR = 60 * 60 * 1000;

const spec = <C>(decide: (state: OrganizationState, cmd: C) => Fact[]) =>
  deciderSpec<OrganizationState, C>({ initial: initialOrganization, evolve: evolveOrganization, decide: (cmd, state) => decide(state, cmd) });

function user(user_id: number, email: string, extra: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> {
  return {
    type: 'UserCreated',
    user_id,
    email,
    full_name: email.split('@')[0]!,
    role: ROLE.member,
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

// 1 owner, 2 member, 3 a deactivated member, 4 a bot of 2
const acme: Fact[] = [
  { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1_600_000_000 },
  user(1, 'owner@acme.example', { role: ROLE.owner }),
  user(2, 'mary@acme.example'),
  user(3, 'gone@acme.example'),
  { type: 'UserDeactivated', user_id: 3 },
  user(4, 'helper-bot@acme.example', { is_bot: true, bot_type: 1, bot_owner_id: 2 }),
];

const requested = (user_id: number, token_hash: string, at = NOW, purpose: 'reset' | 'initial' = 'reset'): FactOf<'PasswordResetRequested'> => ({
  type: 'PasswordResetRequested',
  user_id,
  token_hash,
  purpose,
  requested_at: at,
  expires_at: at + (purpose === 'reset' ? RESET_LINK_VALIDITY_MS : INITIAL_LINK_VALIDITY_MS),
});

describe('decideRequestPasswordReset', () => {
  const reset = spec<RequestPasswordReset>(decideRequestPasswordReset);

  it('issues a link for an active user, found whatever the case of the address', () =>
    reset.given(acme).when({ email: ' Mary@ACME.example ', token_hash: 'h1', now: NOW }).then([requested(2, 'h1')]));

  it.each([
    ['an unknown address', 'nobody@acme.example'],
    ['a deactivated user', 'gone@acme.example'],
    ['a bot', 'helper-bot@acme.example'],
    ['a malformed address', 'not an address'],
  ])('issues nothing, and throws nothing, for %s', (_what, email) => reset.given(acme).when({ email, token_hash: 'h1', now: NOW }).then([]));

  it('allows two links an hour, then nothing until the hour has passed', () => {
    const two = [...acme, requested(2, 'h1', NOW - 30 * 60 * 1000), requested(2, 'h2', NOW - 10 * 60 * 1000)];
    reset.given(two).when({ email: 'mary@acme.example', token_hash: 'h3', now: NOW }).then([]);
    reset.given(two).when({ email: 'mary@acme.example', token_hash: 'h3', now: NOW + 31 * 60 * 1000 }).then([requested(2, 'h3', NOW + 31 * 60 * 1000)]);
  });

  it('allows five links a day', () => {
    const five = [...acme, ...[20, 16, 12, 8, 4].map((h, i) => requested(2, `h${i}`, NOW - h * HOUR))];
    reset.given(five).when({ email: 'mary@acme.example', token_hash: 'h9', now: NOW }).then([]);
    reset.given(five).when({ email: 'mary@acme.example', token_hash: 'h9', now: NOW + 5 * HOUR }).then([requested(2, 'h9', NOW + 5 * HOUR)]);
  });

  it("counts each address apart: another user's links spend nothing of Mary's", () =>
    reset
      .given([...acme, requested(1, 'a', NOW - 60_000), requested(1, 'b', NOW - 30_000)])
      .when({ email: 'mary@acme.example', token_hash: 'h1', now: NOW })
      .then([requested(2, 'h1')]));

  it("does not count the operator's first link against the budget", () =>
    reset
      .given([...acme, requested(2, 'a', NOW - 60_000, 'initial'), requested(2, 'b', NOW - 30_000, 'initial')])
      .when({ email: 'mary@acme.example', token_hash: 'h1', now: NOW })
      .then([requested(2, 'h1')]));
});

describe('decideIssuePasswordLink (the operator tool)', () => {
  const issue = spec<RequestPasswordReset>(decideIssuePasswordLink);
  it("issues an 'initial' link for a named user", () =>
    issue.given(acme).when({ email: 'owner@acme.example', token_hash: 'h1', now: NOW }).then([requested(1, 'h1', NOW, 'initial')]));
  it('refuses an unknown address', () =>
    issue.given(acme).when({ email: 'ghost@acme.example', token_hash: 'h1', now: NOW }).thenThrows({ code: 'BAD_REQUEST', msg: 'No user with the email ghost@acme.example' }));
  it.each(['gone@acme.example', 'helper-bot@acme.example'])('refuses %s, who cannot have a password', (email) =>
    issue.given(acme).when({ email, token_hash: 'h1', now: NOW }).thenThrows({ code: 'BAD_REQUEST', msg: /cannot have a password/ }));
});

describe('decideSetPasswordWithLink', () => {
  const set = spec<{ token_hash: string; now: number; password_hash: string }>(decideSetPasswordWithLink);
  const withLink = [...acme, requested(2, 'h1')];

  it("sets the link's user's password", () =>
    set.given(withLink).when({ token_hash: 'h1', now: NOW + HOUR, password_hash: 'scrypt$new' }).then([{ type: 'UserPasswordSet', user_id: 2, password_hash: 'scrypt$new' }]));

  it('refuses a second use of the same link', () =>
    set
      .given([...withLink, { type: 'UserPasswordSet', user_id: 2, password_hash: 'scrypt$new' }])
      .when({ token_hash: 'h1', now: NOW + HOUR, password_hash: 'scrypt$again' })
      .thenThrows({ code: 'BAD_REQUEST', msg: /not valid/ }));

  it('retires every older link of the user once a password is set another way', () =>
    set
      .given([...withLink, requested(2, 'h2'), { type: 'UserPasswordSet', user_id: 2, password_hash: 'scrypt$changed-in-settings' }])
      .when({ token_hash: 'h2', now: NOW + HOUR, password_hash: 'x' })
      .thenThrows({ msg: /not valid/ }));

  it("leaves other users' links alone", () =>
    set
      .given([...withLink, requested(1, 'o1'), { type: 'UserPasswordSet', user_id: 1, password_hash: 'scrypt$owner' }])
      .when({ token_hash: 'h1', now: NOW + HOUR, password_hash: 'scrypt$new' })
      .then([{ type: 'UserPasswordSet', user_id: 2, password_hash: 'scrypt$new' }]));

  it('refuses an expired link', () =>
    set.given(withLink).when({ token_hash: 'h1', now: NOW + RESET_LINK_VALIDITY_MS, password_hash: 'x' }).thenThrows({ code: 'BAD_REQUEST', msg: /expired/ }));

  it('refuses an unknown token', () => set.given(withLink).when({ token_hash: 'nope', now: NOW, password_hash: 'x' }).thenThrows({ msg: /not valid/ }));

  it('refuses the link of a user deactivated since', () =>
    set.given([...withLink, { type: 'UserDeactivated', user_id: 2 }]).when({ token_hash: 'h1', now: NOW, password_hash: 'x' }).thenThrows({ msg: /not valid/ }));
});

describe('decideRegenerateApiKey', () => {
  const regenerate = spec<{ actor: Actor; credentials: { api_key_salt: string; api_key_hash: string } }>(decideRegenerateApiKey);
  const as = (user_id: number, is_bot = false): Actor => ({ user_id, email: '', full_name: '', role: ROLE.member, is_bot, client: 'test' });
  const credentials = { api_key_salt: 'new-salt', api_key_hash: 'new-hash' };

  it("replaces a user's own key", () =>
    regenerate.given(acme).when({ actor: as(2), credentials }).then([{ type: 'UserApiKeyRegenerated', user_id: 2, ...credentials }]));

  it("replaces a bot's own key with the bot's fact, for its owner and the administrators", () =>
    regenerate.given(acme).when({ actor: as(4, true), credentials }).then([{ type: 'BotApiKeyRegenerated', user_id: 4, ...credentials, bot_audience_user_ids: [1, 2] }]));

  it('regenerates again from the new key (the state follows the fact)', () =>
    regenerate
      .given([...acme, { type: 'UserApiKeyRegenerated', user_id: 2, api_key_salt: 's2', api_key_hash: 'h2' }])
      .when({ actor: as(2), credentials })
      .then([{ type: 'UserApiKeyRegenerated', user_id: 2, ...credentials }]));

  it('refuses a deactivated user', () => regenerate.given(acme).when({ actor: as(3), credentials }).thenThrows({ code: 'BAD_REQUEST' }));
});
