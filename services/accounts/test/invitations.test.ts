/** Given facts / when command / then facts for invitations and allowed domains. */
import { describe, expect, it } from '@jest/globals';
import { ROLE, SYSTEM_GROUP, type Actor, type Fact, type StoredInvitation } from '@teamchat/contracts';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  addressRefusal,
  decideAcceptInvitation,
  decideCreateMultiuseInvite,
  decideResendInvitation,
  decideRevokeInvitation,
  decideSendInvites,
  evolveInvitations,
  initialInvitations,
  invitationStatus,
  parseInviteeEmails,
  visibleInvitations,
  type InvitationsState,
  type SendContext,
  type SendInvites,
} from '../src/domain/invitations';
import {
  decideAddRealmDomain,
  decideChangeRealmDomain,
  decideRemoveRealmDomain,
  emailAllowedByDomains,
  evolveRealmDomains,
  initialRealmDomains,
  normaliseDomain,
  type RealmDomainsState,
} from '../src/domain/realm-domains';

const NOW = 1_700_000_000_000;
const SECONDS = NOW / 1000;
const actor = (user_id: number, role: number): Actor => ({ user_id, role, email: `u${user_id}@example.com`, full_name: `U${user_id}`, is_bot: false, client: 'test' });
const owner = actor(1, ROLE.owner);
const admin = actor(2, ROLE.administrator);
const member = actor(4, ROLE.member);

describe('allowed domains', () => {
  const spec = <C>(decide: (state: RealmDomainsState, cmd: C) => Fact[]) =>
    deciderSpec<RealmDomainsState, C>({ initial: initialRealmDomains, evolve: evolveRealmDomains, decide: (cmd, state) => decide(state, cmd) });
  const add = spec((state, cmd: { actor: Actor; domain: string; allow_subdomains?: boolean }) =>
    decideAddRealmDomain(state, { allow_subdomains: false, ...cmd }).facts,
  );
  const acme = { id: 1, domain: 'acme.example', allow_subdomains: false };
  const added: Fact = { type: 'RealmDomainAdded', realm_domain: acme, audience: 'active_users' };

  it('adds a normalised domain with the next id; refuses duplicates and non-owners', () => {
    add.given([]).when({ actor: owner, domain: ' ACME.Example ' }).then([added]);
    add.given([added]).when({ actor: owner, domain: 'acme.example' }).thenThrows({ code: 'BAD_REQUEST', msg: /already a part/ });
    add.given([]).when({ actor: admin, domain: 'acme.example' }).thenThrows({ msg: 'Must be an organization owner' });
    add.given([added]).when({ actor: owner, domain: 'b.example', allow_subdomains: true }).then([
      { type: 'RealmDomainAdded', realm_domain: { id: 2, domain: 'b.example', allow_subdomains: true }, audience: 'active_users' },
    ]);
  });

  it('changes and removes known domains only, owners only', () => {
    const change = spec((state, cmd: { actor: Actor; domain: string }) => decideChangeRealmDomain(state, { ...cmd, allow_subdomains: true }));
    change.given([added]).when({ actor: owner, domain: 'ACME.example' }).then([{ type: 'RealmDomainChanged', realm_domain: { ...acme, allow_subdomains: true }, audience: 'active_users' }]);
    change.given([added]).when({ actor: owner, domain: 'x.example' }).thenThrows({ msg: 'No entry found for domain: x.example.' });
    change.given([added]).when({ actor: member, domain: 'acme.example' }).thenThrows({ msg: 'Must be an organization owner' });
    const remove = spec((state, cmd: { actor: Actor; domain: string }) => decideRemoveRealmDomain(state, { ...cmd }).facts);
    remove.given([added]).when({ actor: owner, domain: 'acme.example' }).then([{ type: 'RealmDomainRemoved', realm_domain: acme, audience: 'active_users' }]);
    remove.given([added, { type: 'RealmDomainRemoved', realm_domain: acme, audience: 'active_users' }]).when({ actor: owner, domain: 'acme.example' }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('tells whether a removal empties the list (which lifts the restriction to the domains)', () => {
    const stateOf = (facts: Fact[]) => facts.reduce(evolveRealmDomains, initialRealmDomains());
    const other: Fact = { type: 'RealmDomainAdded', realm_domain: { id: 2, domain: 'other.example', allow_subdomains: false }, audience: 'active_users' };
    expect(decideRemoveRealmDomain(stateOf([added]), { actor: owner, domain: 'acme.example' }).last).toBe(true);
    expect(decideRemoveRealmDomain(stateOf([added, other]), { actor: owner, domain: 'acme.example' }).last).toBe(false);
  });

  it('validates domains as Zulip does', () => {
    expect(normaliseDomain('Sub.Example.ORG')).toBe('sub.example.org');
    for (const bad of ['', ' ', 'nodot', '.a.example', 'a.example.', 'a..example', '-a.example', 'a b.example', 'ä.example', 'x'.repeat(81)]) {
      expect(() => normaliseDomain(bad)).toThrow();
    }
  });

  it('matches addresses: the domain itself, and subdomains only where allowed', () => {
    const domains = [
      { domain: 'acme.example', allow_subdomains: false },
      { domain: 'corp.example', allow_subdomains: true },
    ];
    expect(emailAllowedByDomains('a@ACME.example', domains)).toBe(true);
    expect(emailAllowedByDomains('a@eu.acme.example', domains)).toBe(false);
    expect(emailAllowedByDomains('a@eu.corp.example', domains)).toBe(true);
    expect(emailAllowedByDomains('a@notcorp.example', domains)).toBe(false);
  });
});

describe('invitations', () => {
  const groups = NO_CUSTOM_GROUPS;
  const ctx = (over: Partial<SendContext> = {}): SendContext => ({
    inviter: { user_id: admin.user_id, role: admin.role, date_joined: 0 },
    may_invite_group: SYSTEM_GROUP.administrators,
    groups,
    may_subscribe_others: true,
    channels: new Map([
      [10, { accessible: true, is_default: false, can_add_subscribers: true }],
      [11, { accessible: true, is_default: true, can_add_subscribers: false }],
      [12, { accessible: true, is_default: false, can_add_subscribers: false }],
      [13, { accessible: false, is_default: false, can_add_subscribers: false }],
    ]),
    group_permissions: new Map([
      [20, 'ok'],
      [21, 'insufficient'],
    ]),
    default_validity_minutes: 14_400,
    now: NOW,
    key_salt: () => 'salt',
    rules: { emails_restricted_to_domains: false, disallow_disposable_email_addresses: true, domains: [] },
    accounts: new Map([
      ['member@example.com', { is_active: true }],
      ['gone@example.com', { is_active: false }],
    ]),
    daily_limit: 3,
    administrator_ids: [1, 2],
    ...over,
  });
  const invitation = (id: number, email: string | null, over: Partial<StoredInvitation> = {}): StoredInvitation => ({
    id,
    email,
    is_multiuse: email === null,
    invited_by_user_id: admin.user_id,
    invite_as: 400,
    stream_ids: [],
    group_ids: [],
    include_realm_default_subscriptions: false,
    notify_referrer_on_join: email !== null,
    welcome_message_custom_text: null,
    invited: SECONDS,
    expiry_date: SECONDS + 14_400 * 60,
    key_salt: 'salt',
    ...over,
  });
  const created = (inv: StoredInvitation, audience = [1, 2]): Fact => ({ type: 'InvitationCreated', invitation: inv, audience_user_ids: audience });
  const send = (over: Partial<SendContext> = {}) =>
    deciderSpec<InvitationsState, Partial<SendInvites>>({
      initial: initialInvitations,
      evolve: evolveInvitations,
      decide: (cmd, state) => decideSendInvites(state, ctx(over), { invitee_emails: 'ann@example.org', stream_ids: [], ...cmd }).facts,
    });

  it('parses addresses separated by commas or newlines, trimmed, each once', () => {
    expect(parseInviteeEmails(' a@x.org,\nb@x.org ,, A@x.org\n')).toEqual(['a@x.org', 'b@x.org']);
  });

  it('invites each address with the defaults: member, referrer notified, ten days, the organization welcome text', () => {
    send().given([]).when({ invitee_emails: 'ann@example.org\nbob@example.org' }).then([created(invitation(1, 'ann@example.org')), created(invitation(2, 'bob@example.org'))]);
  });

  it('keeps the options; null never expires; a welcome text only from administrators', () => {
    send()
      .given([])
      .when({ invite_as: 600, stream_ids: [10, 11, 10], group_ids: [20], include_realm_default_subscriptions: true, notify_referrer_on_join: false, invite_expires_in_minutes: null, welcome_message_custom_text: '' })
      .then([created(invitation(1, 'ann@example.org', { invite_as: 600, stream_ids: [10, 11], group_ids: [20], include_realm_default_subscriptions: true, notify_referrer_on_join: false, expiry_date: null, welcome_message_custom_text: '' }))]);
    const asMember = { inviter: { user_id: 4, role: ROLE.member, date_joined: 0 }, may_invite_group: SYSTEM_GROUP.members };
    send(asMember).given([]).when({ welcome_message_custom_text: 'hi' }).then([created(invitation(1, 'ann@example.org', { invited_by_user_id: 4 }), [1, 2, 4])]);
  });

  it('refuses what the inviter may not do', () => {
    send({ may_invite_group: SYSTEM_GROUP.owners }).given([]).when({}).thenThrows({ msg: 'Insufficient permission' });
    send().given([]).when({ invite_as: ROLE.owner }).thenThrows({ msg: 'Insufficient permission' });
    send().given([]).when({ invite_as: 500 }).thenThrows({ code: 'BAD_REQUEST' });
    send().given([]).when({ stream_ids: [12] }).thenThrows({ msg: 'Insufficient permission' });
    send().given([]).when({ stream_ids: [13] }).thenThrows({ msg: 'Invalid channel ID' });
    send().given([]).when({ stream_ids: [99] }).thenThrows({ msg: 'Invalid channel ID' });
    send({ may_subscribe_others: false }).given([]).when({ stream_ids: [11] }).thenThrows({ msg: /permission to subscribe/ });
    send().given([]).when({ group_ids: [21] }).thenThrows({ msg: 'Insufficient permission' });
    send().given([]).when({ group_ids: [22] }).thenThrows({ msg: 'Invalid user group' });
    send().given([]).when({ invitee_emails: ' ,\n' }).thenThrows({ msg: /at least one email/ });
    send().given([]).when({ invite_expires_in_minutes: 0 }).thenThrows({ code: 'BAD_REQUEST' });
    send().given([]).when({ welcome_message_custom_text: '😀'.repeat(8001) }).thenThrows({ msg: /too long/ });
    // 8000 astral characters are 8000 code points (16000 UTF-16 units): allowed.
    expect(() => decideSendInvites(initialInvitations(), ctx(), { invitee_emails: 'a@b.org', stream_ids: [], welcome_message_custom_text: '😀'.repeat(8000) })).not.toThrow();
  });

  it('INVITATION_FAILED: invalid addresses stop everything; existing accounts are skipped, the rest invited', () => {
    send().given([]).when({ invitee_emails: 'ann@example.org, nope' }).thenThrows({
      code: 'INVITATION_FAILED',
      extra: { errors: [['nope', 'Invalid address.', false]], sent_invitations: false, daily_limit_reached: false, license_limit_reached: false },
    });
    send().given([]).when({ invitee_emails: 'member@example.com, gone@example.com' }).thenThrows({
      code: 'INVITATION_FAILED',
      extra: { errors: [['member@example.com', 'Already has an account.', false], ['gone@example.com', 'Account has been deactivated.', true]], sent_invitations: false, daily_limit_reached: false, license_limit_reached: false },
    });
    const { facts, skipped } = decideSendInvites(initialInvitations(), ctx(), { invitee_emails: 'Member@example.com, ann@example.org', stream_ids: [] });
    expect(facts).toHaveLength(1);
    expect(skipped).toEqual([['Member@example.com', 'Already has an account.', false]]);
  });

  it('the daily limit counts the last 24 hours', () => {
    const old = created(invitation(1, 'a@example.org', { invited: SECONDS - 90_000 }));
    const recent = [created(invitation(2, 'b@example.org')), created(invitation(3, 'c@example.org'))];
    send().given([old, ...recent]).when({}).then([created(invitation(4, 'ann@example.org'))]);
    send().given([old, ...recent]).when({ invitee_emails: 'x@example.org, y@example.org' }).thenThrows({
      code: 'INVITATION_FAILED',
      extra: { errors: [], sent_invitations: false, daily_limit_reached: true, license_limit_reached: false },
    });
  });

  it('addresses outside the allowed domains, and disposable ones, are refused', () => {
    const rules = { emails_restricted_to_domains: true, disallow_disposable_email_addresses: true, domains: [{ domain: 'example.org', allow_subdomains: false }] };
    expect(addressRefusal('a@example.org', rules)).toBeNull();
    expect(addressRefusal('a@sub.example.org', rules)).toBe('Outside your domain.');
    expect(addressRefusal('a@mailinator.com', { ...rules, emails_restricted_to_domains: false })).toBe('Please use your real email address.');
    expect(addressRefusal('a@mailinator.com', { ...rules, emails_restricted_to_domains: false, disallow_disposable_email_addresses: false })).toBeNull();
  });

  it('reusable links: the create_multiuse_invite_group decides; the referrer is never notified', () => {
    const { facts } = decideCreateMultiuseInvite(initialInvitations(), ctx(), { stream_ids: [10], invite_as: 600 });
    expect(facts).toEqual([created(invitation(1, null, { stream_ids: [10], invite_as: 600 }))]);
    expect(() => decideCreateMultiuseInvite(initialInvitations(), ctx({ may_invite_group: SYSTEM_GROUP.owners }), { stream_ids: [] })).toThrow('Insufficient permission');
  });

  describe('the state machine', () => {
    const pending = created(invitation(1, 'ann@example.org', { invited_by_user_id: 4 }), [1, 2, 4]);
    const manage = (actor: { user_id: number; role: number }, over: { now?: number; is_multiuse?: boolean; daily_limit?: number } = {}) => ({
      actor: { ...actor, date_joined: 0 },
      invitation_id: 1,
      is_multiuse: false,
      administrator_ids: [1, 2],
      now: NOW,
      daily_limit: 100,
      ...over,
    });
    const fold = (facts: Fact[]) => facts.reduce(evolveInvitations, initialInvitations());

    it('pending → expired by time, never when the expiry is null', () => {
      const record = fold([pending]).invitations.get(1);
      expect(invitationStatus(record, SECONDS)).toBe('pending');
      expect(invitationStatus(record, SECONDS + 14_400 * 60)).toBe('expired');
      const forever = fold([created(invitation(1, 'a@b.org', { expiry_date: null }))]).invitations.get(1);
      expect(invitationStatus(forever, SECONDS + 10 ** 9)).toBe('pending');
      expect(invitationStatus(undefined, SECONDS)).toBe('invalid');
    });

    it('pending → revoked by an administrator or the inviter; not twice, not another member', () => {
      expect(decideRevokeInvitation(fold([pending]), manage(member))).toEqual([{ type: 'InvitationRevoked', invitation_id: 1, audience_user_ids: [1, 2, 4] }]);
      expect(decideRevokeInvitation(fold([pending]), manage(admin))).toHaveLength(1);
      expect(() => decideRevokeInvitation(fold([pending]), manage({ user_id: 5, role: ROLE.member }))).toThrow('Must be an organization administrator');
      const revoked = fold([pending, { type: 'InvitationRevoked', invitation_id: 1, audience_user_ids: [1] }]);
      expect(invitationStatus(revoked.invitations.get(1), SECONDS)).toBe('revoked');
      expect(() => decideRevokeInvitation(revoked, manage(admin))).toThrow('No such invitation');
      expect(() => decideRevokeInvitation(fold([pending]), manage(admin, { is_multiuse: true }))).toThrow('Invalid invitation ID.');
      expect(() => decideResendInvitation(fold([pending]), manage(admin, { now: NOW + 14_400 * 60_000 }))).toThrow('No such invitation');
    });

    it('resending records the new time; the expiry stays', () => {
      const { facts } = decideResendInvitation(fold([pending]), manage(admin, { now: NOW + 60_000 }));
      expect(facts).toEqual([{ type: 'InvitationResent', invitation_id: 1, invited: SECONDS + 60, audience_user_ids: [1, 2, 4] }]);
      expect(fold([pending, ...facts]).invitations.get(1)).toMatchObject({ invited: SECONDS + 60, expiry_date: SECONDS + 14_400 * 60 });
    });

    it('resending counts against the daily limit: refused when the last 24 hours already reach it, counted once at its new time', () => {
      const second = created(invitation(2, 'bob@example.org', { invited_by_user_id: 4 }), [1, 2, 4]);
      // Two sent now, limit 2: a resend would be a third email today.
      expect(() => decideResendInvitation(fold([pending, second]), manage(admin, { now: NOW + 60_000, daily_limit: 2 }))).toThrow(
        expect.objectContaining({ code: 'INVITATION_FAILED', extra: expect.objectContaining({ daily_limit_reached: true, sent_invitations: false }) }),
      );
      expect(decideResendInvitation(fold([pending, second]), manage(admin, { now: NOW + 60_000, daily_limit: 3 })).facts).toHaveLength(1);
      // A day later the first two no longer count: resending one makes it the only one today.
      const later = NOW + 86_401_000;
      const { facts } = decideResendInvitation(fold([pending, second]), manage(admin, { now: later, daily_limit: 1 }));
      expect(() => decideResendInvitation(fold([pending, second, ...facts]), { ...manage(admin, { now: later, daily_limit: 1 }), invitation_id: 2 })).toThrow('limit on invitations per day');
    });

    it('pending → accepted once; a reusable link stays pending; expired and revoked links are refused', () => {
      const rules = { emails_restricted_to_domains: false, disallow_disposable_email_addresses: true, domains: [] };
      const accept = (facts: Fact[], over: { now?: number; email?: string; invitation_id?: number } = {}) =>
        decideAcceptInvitation(fold(facts), { invitation_id: 1, email: 'ann@example.org', rules, administrator_ids: [1, 2], now: NOW, user_id: 9, ...over });
      const accepted = accept([pending]);
      expect(accepted).toEqual([{ type: 'InvitationAccepted', invitation_id: 1, user_id: 9, audience_user_ids: [1, 2, 4] }]);
      expect(() => accept([pending, ...accepted])).toThrow('already been used');
      expect(() => accept([pending], { now: NOW + 14_400 * 60_000 })).toThrow('expired');
      expect(() => accept([pending, { type: 'InvitationRevoked', invitation_id: 1, audience_user_ids: [] }])).toThrow('revoked');
      expect(() => accept([pending], { invitation_id: 2 })).toThrow('Invalid invitation link.');
      const link = created(invitation(1, null));
      const first = accept([link], { email: 'x@example.org' });
      expect(() => accept([link, ...first], { email: 'y@example.org' })).not.toThrow();
      expect(() => accept([link], { email: 'not an email' })).toThrow();
      expect(() => accept([link], { email: 'x@mailinator.com' })).toThrow('Please use your real email address.');
    });

    it('administrators see every pending invitation, others their own', () => {
      const state = fold([pending, created(invitation(2, 'b@example.org')), created(invitation(3, 'c@example.org', { expiry_date: SECONDS - 1 }))]);
      expect(visibleInvitations(state, { user_id: 2, role: ROLE.administrator, date_joined: 0 }, SECONDS).map((r) => r.id)).toEqual([1, 2]);
      expect(visibleInvitations(state, { user_id: 4, role: ROLE.member, date_joined: 0 }, SECONDS).map((r) => r.id)).toEqual([1]);
      expect(visibleInvitations(state, { user_id: 6, role: ROLE.guest, date_joined: 0 }, SECONDS)).toEqual([]);
    });
  });
});
