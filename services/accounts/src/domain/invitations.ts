/**
 * Invitations (spec endpoint 8 and the Invitation state machine): every invitation of the
 * organization in one stream (`invitations`), so that ids and the daily limit have one
 * consistency boundary. An invitation is pending until accepted or revoked; it is expired
 * when its expiry date has passed, which is time, not a fact, so it is read, not stored.
 * Pure: the clock, the key material, who the inviter is and what they may do with channels
 * and groups come in with the command; the handler finds them.
 */
import { ApiError, badRequest, ROLES, type Fact, type GroupMember, type StoredInvitation, type StoredRealmDomain } from '@teamchat/contracts';
import { codePointLength, isAdministrator, isUserInGroupSetting, type GroupDirectory } from '@teamchat/policies';
import type { GroupSettingValue } from '@teamchat/contracts';
import { emailAllowedByDomains } from './realm-domains';

export type InvitationRecord = StoredInvitation & { status: 'pending' | 'revoked' | 'accepted'; accepted_user_ids: number[] };

export interface InvitationsState {
  invitations: ReadonlyMap<number, InvitationRecord>;
  lastId: number;
}

export const initialInvitations = (): InvitationsState => ({ invitations: new Map(), lastId: 0 });

function change(state: InvitationsState, id: number, update: (r: InvitationRecord) => InvitationRecord): InvitationsState {
  const record = state.invitations.get(id);
  return record ? { ...state, invitations: new Map(state.invitations).set(id, update(record)) } : state;
}

export function evolveInvitations(state: InvitationsState, fact: Fact): InvitationsState {
  switch (fact.type) {
    case 'InvitationCreated':
      return {
        invitations: new Map(state.invitations).set(fact.invitation.id, { ...fact.invitation, status: 'pending', accepted_user_ids: [] }),
        lastId: Math.max(state.lastId, fact.invitation.id),
      };
    case 'InvitationResent':
      return change(state, fact.invitation_id, (r) => ({ ...r, invited: fact.invited }));
    case 'InvitationRevoked':
      return change(state, fact.invitation_id, (r) => ({ ...r, status: 'revoked' }));
    case 'InvitationAccepted':
      // A reusable link stays pending: each use adds an account.
      return change(state, fact.invitation_id, (r) => ({ ...r, status: r.is_multiuse ? r.status : 'accepted', accepted_user_ids: [...r.accepted_user_ids, fact.user_id] }));
    default:
      return state;
  }
}

/** Zulip's limit on the custom welcome text. */
export const MAX_WELCOME_TEXT_LENGTH = 8000;
/** Zulip's default validity (a server setting): ten days. */
export const DEFAULT_INVITATION_VALIDITY_MINUTES = 14_400;
/** An expiry further than this is refused (Zulip caps invitations at 30 days, and allows never). */
export const MAX_INVITATION_VALIDITY_MINUTES = 30 * 24 * 60;

/** The state of an invitation at `nowSeconds`, as the registration page tells its visitor. */
export function invitationStatus(record: InvitationRecord | undefined, nowSeconds: number): 'pending' | 'expired' | 'revoked' | 'accepted' | 'invalid' {
  if (!record) return 'invalid';
  if (record.status !== 'pending') return record.status;
  if (record.expiry_date !== null && record.expiry_date <= nowSeconds) return 'expired';
  return 'pending';
}

// What Django's validator lets through, closely enough: a local part and a dotted domain,
// no spaces, nothing that breaks a mail header.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
export const MAX_EMAIL_LENGTH = 254;
export const isValidEmail = (email: string): boolean => email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email);

/**
 * Throwaway-mail providers refused while the organization disallows disposable addresses.
 * A short list of the best known; Zulip ships a long one (disposable_email_domains).
 */
export const DISPOSABLE_DOMAINS: ReadonlySet<string> = new Set([
  'mailinator.com',
  'guerrillamail.com',
  'guerrillamail.net',
  '10minutemail.com',
  'tempmail.com',
  'temp-mail.org',
  'yopmail.com',
  'trashmail.com',
  'sharklasers.com',
  'getnada.com',
  'throwawaymail.com',
  'maildrop.cc',
  'dispostable.com',
  'fakeinbox.com',
]);

/** The organization's rules for a new account's address (invitations and sign-up alike). */
export interface AddressRules {
  emails_restricted_to_domains: boolean;
  disallow_disposable_email_addresses: boolean;
  domains: readonly Pick<StoredRealmDomain, 'domain' | 'allow_subdomains'>[];
}

/** Why an address may not join (Zulip's texts), or null. */
export function addressRefusal(email: string, rules: AddressRules): string | null {
  if (!isValidEmail(email)) return 'Invalid address.';
  if (rules.emails_restricted_to_domains && !emailAllowedByDomains(email, rules.domains)) return 'Outside your domain.';
  if (rules.disallow_disposable_email_addresses && DISPOSABLE_DOMAINS.has(email.slice(email.lastIndexOf('@') + 1).toLowerCase())) {
    return 'Please use your real email address.';
  }
  return null;
}

/** A channel an invitation names, as the inviter may use it (the handler reads the rules). */
export interface InvitationChannel {
  /** Exists, is not archived, and the inviter may see it. */
  accessible: boolean;
  is_default: boolean;
  /** The inviter may add subscribers to it. */
  can_add_subscribers: boolean;
}

export interface InvitationOptions {
  invite_as?: number | undefined;
  stream_ids: number[];
  group_ids?: number[] | undefined;
  include_realm_default_subscriptions?: boolean | undefined;
  welcome_message_custom_text?: string | null | undefined;
  /** undefined: the server's default; null: never. */
  invite_expires_in_minutes?: number | null | undefined;
}

export interface InvitationContext {
  inviter: GroupMember;
  /** The organization's can_invite_users_group (or, for reusable links, create_multiuse_invite_group). */
  may_invite_group: GroupSettingValue;
  groups: GroupDirectory;
  /** Whether the inviter may subscribe others to any channel (the organization's can_add_subscribers_group). */
  may_subscribe_others: boolean;
  channels: ReadonlyMap<number, InvitationChannel>;
  /** Groups the inviter may add members to (existing, active, custom). */
  group_permissions: ReadonlyMap<number, 'ok' | 'invalid' | 'insufficient'>;
  default_validity_minutes: number;
  now: number;
  key_salt: () => string;
}

/** The checks POST /invites and POST /invites/multiuse share; what an invitation will carry. */
function checkOptions(ctx: InvitationContext, opts: InvitationOptions) {
  const nowSeconds = Math.floor(ctx.now / 1000);
  if (!isUserInGroupSetting(ctx.may_invite_group, ctx.inviter, nowSeconds, ctx.groups)) throw badRequest('Insufficient permission');
  const invite_as = opts.invite_as ?? 400;
  if (!ROLES.includes(invite_as)) throw badRequest(`Invalid invite_as ${invite_as}`);
  // Roles are ordered by number: a larger one is stricter.
  if (invite_as < ctx.inviter.role) throw badRequest('Insufficient permission');
  const minutes = opts.invite_expires_in_minutes === undefined ? ctx.default_validity_minutes : opts.invite_expires_in_minutes;
  if (minutes !== null && (minutes <= 0 || minutes > MAX_INVITATION_VALIDITY_MINUTES)) throw badRequest('Invalid invite_expires_in_minutes');
  const stream_ids = [...new Set(opts.stream_ids)];
  if (stream_ids.length > 0 && !ctx.may_subscribe_others) throw badRequest('You do not have permission to subscribe other users to channels.');
  for (const id of stream_ids) {
    const channel = ctx.channels.get(id);
    if (!channel || !channel.accessible) throw badRequest('Invalid channel ID');
    if (!channel.is_default && !channel.can_add_subscribers) throw badRequest('Insufficient permission');
  }
  const group_ids = [...new Set(opts.group_ids ?? [])];
  for (const id of group_ids) {
    const permission = ctx.group_permissions.get(id) ?? 'invalid';
    if (permission === 'invalid') throw badRequest('Invalid user group');
    if (permission === 'insufficient') throw badRequest('Insufficient permission');
  }
  let welcome = opts.welcome_message_custom_text ?? null;
  if (welcome !== null && codePointLength(welcome) > MAX_WELCOME_TEXT_LENGTH) {
    throw badRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_TEXT_LENGTH} characters)`);
  }
  // The spec: for anyone but administrators the organization's default applies.
  if (!isAdministrator(ctx.inviter.role)) welcome = null;
  return {
    invited_by_user_id: ctx.inviter.user_id,
    invite_as,
    stream_ids,
    group_ids,
    include_realm_default_subscriptions: opts.include_realm_default_subscriptions ?? false,
    welcome_message_custom_text: welcome,
    invited: nowSeconds,
    expiry_date: minutes === null ? null : nowSeconds + minutes * 60,
  };
}

export interface SendInvites extends InvitationOptions {
  invitee_emails: string;
  notify_referrer_on_join?: boolean | undefined;
}

export interface SendContext extends InvitationContext {
  rules: AddressRules;
  /** Existing accounts by lower-cased address: whether each is deactivated. */
  accounts: ReadonlyMap<string, { is_active: boolean }>;
  daily_limit: number;
  /** Active administrators, who see every invitation. */
  administrator_ids: number[];
}

const invitationFailed = (msg: string, errors: [string, string, boolean][], extra: { sent_invitations: boolean; daily_limit_reached?: boolean }) =>
  new ApiError('INVITATION_FAILED', msg, 400, {
    errors,
    sent_invitations: extra.sent_invitations,
    daily_limit_reached: extra.daily_limit_reached ?? false,
    license_limit_reached: false,
  });

/** Addresses separated by commas or newlines, trimmed, each once. */
export function parseInviteeEmails(text: string): string[] {
  const seen = new Set<string>();
  const emails: string[] = [];
  for (const part of text.split(/[,\n]/)) {
    const email = part.trim();
    if (email === '' || seen.has(email.toLowerCase())) continue;
    seen.add(email.toLowerCase());
    emails.push(email);
  }
  return emails;
}

export const audienceOfInvitation = (administratorIds: readonly number[], inviterId: number): number[] =>
  [...new Set([...administratorIds, inviterId])].sort((a, b) => a - b);

const invitedToday = (state: InvitationsState, nowSeconds: number) =>
  [...state.invitations.values()].filter((r) => !r.is_multiuse && r.invited > nowSeconds - 86_400).length;

/**
 * POST /invites. Like Zulip: an address that does not validate (malformed, outside the
 * allowed domains, disposable) refuses the whole request; addresses that already have
 * accounts are skipped and the rest invited, and the error says so (`sent_invitations`).
 */
export function decideSendInvites(state: InvitationsState, ctx: SendContext, cmd: SendInvites): { facts: Fact[]; invitations: StoredInvitation[]; skipped: [string, string, boolean][] } {
  const emails = parseInviteeEmails(cmd.invitee_emails);
  if (emails.length === 0) throw badRequest('You must specify at least one email address.');
  const common = checkOptions(ctx, cmd);
  const invalid: [string, string, boolean][] = [];
  for (const email of emails) {
    const refusal = addressRefusal(email, ctx.rules);
    if (refusal) invalid.push([email, refusal, false]);
  }
  if (invalid.length > 0) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", invalid, { sent_invitations: false });
  const skipped: [string, string, boolean][] = [];
  const toInvite: string[] = [];
  for (const email of emails) {
    const account = ctx.accounts.get(email.toLowerCase());
    if (account) skipped.push([email, account.is_active ? 'Already has an account.' : 'Account has been deactivated.', !account.is_active]);
    else toInvite.push(email);
  }
  if (toInvite.length === 0) throw invitationFailed("We weren't able to invite anyone.", skipped, { sent_invitations: false });
  if (invitedToday(state, common.invited) + toInvite.length > ctx.daily_limit) {
    throw invitationFailed(
      'To protect users, this organization has a limit on invitations per day. Please try again tomorrow or invite fewer people.',
      [],
      { sent_invitations: false, daily_limit_reached: true },
    );
  }
  const audience_user_ids = audienceOfInvitation(ctx.administrator_ids, ctx.inviter.user_id);
  const invitations = toInvite.map(
    (email, i): StoredInvitation => ({
      id: state.lastId + 1 + i,
      email,
      is_multiuse: false,
      ...common,
      notify_referrer_on_join: cmd.notify_referrer_on_join ?? true,
      key_salt: ctx.key_salt(),
    }),
  );
  return { facts: invitations.map((invitation) => ({ type: 'InvitationCreated', invitation, audience_user_ids })), invitations, skipped };
}

/** POST /invites/multiuse: a reusable link; its referrer is never notified (Zulip's). */
export function decideCreateMultiuseInvite(state: InvitationsState, ctx: InvitationContext & { administrator_ids: number[] }, cmd: InvitationOptions): { facts: Fact[]; invitation: StoredInvitation } {
  const common = checkOptions(ctx, cmd);
  const invitation: StoredInvitation = { id: state.lastId + 1, email: null, is_multiuse: true, ...common, notify_referrer_on_join: false, key_salt: ctx.key_salt() };
  return { facts: [{ type: 'InvitationCreated', invitation, audience_user_ids: audienceOfInvitation(ctx.administrator_ids, ctx.inviter.user_id) }], invitation };
}

export interface ManageInvitation {
  actor: GroupMember;
  invitation_id: number;
  is_multiuse: boolean;
  administrator_ids: number[];
  now: number;
}

/** The invitation an administrator or its inviter may revoke or resend: pending and not expired. */
function manageable(state: InvitationsState, cmd: ManageInvitation): InvitationRecord {
  const record = state.invitations.get(cmd.invitation_id);
  if (!record || record.is_multiuse !== cmd.is_multiuse || invitationStatus(record, Math.floor(cmd.now / 1000)) !== 'pending') {
    throw badRequest(cmd.is_multiuse ? 'Invalid invitation ID.' : 'No such invitation');
  }
  if (!isAdministrator(cmd.actor.role) && record.invited_by_user_id !== cmd.actor.user_id) throw badRequest('Must be an organization administrator');
  return record;
}

export function decideRevokeInvitation(state: InvitationsState, cmd: ManageInvitation): Fact[] {
  const record = manageable(state, cmd);
  return [{ type: 'InvitationRevoked', invitation_id: record.id, audience_user_ids: audienceOfInvitation(cmd.administrator_ids, record.invited_by_user_id) }];
}

/**
 * POST /invites/{id}/resend mails the invitation again, so it counts against the daily
 * limit as a new one would (Zulip's): refused when the organization's count of invitations
 * sent in the last 24 hours is already at the limit. The resent invitation is then counted
 * once, at its new time.
 */
export function decideResendInvitation(state: InvitationsState, cmd: ManageInvitation & { daily_limit: number }): { facts: Fact[]; invitation: InvitationRecord } {
  const record = manageable(state, { ...cmd, is_multiuse: false });
  const invited = Math.floor(cmd.now / 1000);
  if (invitedToday(state, invited) + 1 > cmd.daily_limit) {
    throw invitationFailed('To protect users, this organization has a limit on invitations per day. Please try again tomorrow or invite fewer people.', [], {
      sent_invitations: false,
      daily_limit_reached: true,
    });
  }
  return {
    facts: [{ type: 'InvitationResent', invitation_id: record.id, invited, audience_user_ids: audienceOfInvitation(cmd.administrator_ids, record.invited_by_user_id) }],
    invitation: record,
  };
}

/** The invitations a user may see: administrators all, others their own; pending and not expired (Zulip's list). */
export function visibleInvitations(state: InvitationsState, viewer: GroupMember, nowSeconds: number): InvitationRecord[] {
  return [...state.invitations.values()]
    .filter((r) => invitationStatus(r, nowSeconds) === 'pending')
    .filter((r) => isAdministrator(viewer.role) || r.invited_by_user_id === viewer.user_id)
    .sort((a, b) => a.id - b.id);
}

export interface AcceptInvitation {
  invitation_id: number;
  /** The address the account is made for: the invitation's, or the visitor's for a reusable link. */
  email: string;
  rules: AddressRules;
  administrator_ids: number[];
  now: number;
}

/**
 * Whether an invitation may be used now, for this address; the facts once the account
 * exists (`user_id`). The organization's stream refuses an address already in use, so a
 * single-use link cannot make two accounts even when two visitors race.
 */
export function checkAcceptable(state: InvitationsState, cmd: Omit<AcceptInvitation, 'administrator_ids'>): InvitationRecord {
  const record = state.invitations.get(cmd.invitation_id);
  const status = invitationStatus(record, Math.floor(cmd.now / 1000));
  if (status === 'expired') throw badRequest('The invitation has expired.');
  if (status === 'revoked') throw badRequest('The invitation has been revoked.');
  if (status === 'accepted') throw badRequest('The invitation has already been used.');
  if (status === 'invalid' || !record) throw badRequest('Invalid invitation link.');
  if (record.email === null) {
    const refusal = addressRefusal(cmd.email, cmd.rules);
    if (refusal) throw badRequest(refusal === 'Invalid address.' ? `Invalid email '${cmd.email}'` : refusal);
  }
  return record;
}

export function decideAcceptInvitation(state: InvitationsState, cmd: AcceptInvitation & { user_id: number }): Fact[] {
  const record = checkAcceptable(state, cmd);
  return [{ type: 'InvitationAccepted', invitation_id: record.id, user_id: cmd.user_id, audience_user_ids: audienceOfInvitation(cmd.administrator_ids, record.invited_by_user_id) }];
}
