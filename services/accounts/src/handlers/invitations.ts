/**
 * Invitation and allowed-domain commands: read what the deciders need (the inviter, the
 * channels and groups an invitation names, the organization's address rules), decide on
 * the invitation or domain stream, append, then queue the emails in the mail outbox (a
 * mail server's outage never refuses a stored invitation: the reply says the mail is
 * pending, and the outbox keeps trying). Accepting a link makes
 * the account on the organization's stream (whose email uniqueness is what keeps a
 * single-use link to one account), marks the invitation, and asks channels and messaging
 * for the rest: subscriptions, the referrer's notice, the welcome text.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest, endpoints, streams, type Actor, type GroupMember, type StoredInvitation } from '@teamchat/contracts';
import type { Directory, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import { callContract, type AggregateRepository, type AppendResult, type Bus, type MailQueue, type MailState, type ServerConfig } from '@teamchat/platform';
import { canAddSubscribers, hasMetadataAccess, isAdministrator, isUserInGroupSetting } from '@teamchat/policies';
import type { Logger } from 'pino';
import { newCredentials } from '../domain/credentials';
import {
  checkAcceptable,
  decideAcceptInvitation,
  decideCreateMultiuseInvite,
  decideResendInvitation,
  decideRevokeInvitation,
  decideSendInvites,
  invitationStatus,
  visibleInvitations,
  type AddressRules,
  type InvitationChannel,
  type InvitationContext,
  type InvitationOptions,
  type InvitationsState,
} from '../domain/invitations';
import { checkFullName, decideCreateUser, type OrganizationState } from '../domain/organization';
import { hashPassword, MAX_PASSWORD_LENGTH } from '../domain/passwords';
import { decideAddRealmDomain, decideChangeRealmDomain, decideRemoveRealmDomain, type RealmDomainsState } from '../domain/realm-domains';
import { decideAddInvitee, mayAddMembers, type UserGroupsState } from '../domain/user-groups';
import { deliveryOf, queueMail } from './mail';
import { contextOf } from './user-groups';

export interface InvitationDeps {
  organization: AggregateRepository<OrganizationState>;
  invitations: AggregateRepository<InvitationsState>;
  realmDomains: AggregateRepository<RealmDomainsState>;
  userGroups: AggregateRepository<UserGroupsState>;
  groups: UserGroups;
  directory: Directory;
  realmSettings: RealmSettingsProjection;
  channelSettingGroupIds(): Promise<Set<number>>;
  /** The service's mail outbox: mail is queued after the facts, never sent inside the request. */
  mail: MailQueue;
  bus: Bus;
  config: ServerConfig;
  log: Logger;
  /** Server settings: the default validity and the organization's daily limit. */
  defaultValidityMinutes: number;
  dailyLimit: number;
}

const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);
const MIN_PASSWORD_LENGTH = 6;

// --- Keys ------------------------------------------------------------------------------

/** A link's key: the invitation's id and an HMAC of its salt under the server secret. */
export function invitationKey(secret: string, invitation: Pick<StoredInvitation, 'id' | 'key_salt'>): string {
  const mac = createHmac('sha256', secret).update(`invitation:${invitation.id}:${invitation.key_salt}`).digest('base64url').slice(0, 32);
  return `${invitation.id}-${mac}`;
}

/** The invitation a key names, if the key is genuine (compared in constant time). */
function invitationOfKey(state: InvitationsState, secret: string, key: string) {
  const match = /^(\d{1,10})-([A-Za-z0-9_-]{32})$/.exec(key);
  if (!match) return undefined;
  const record = state.invitations.get(Number(match[1]));
  if (!record) return undefined;
  const expected = Buffer.from(invitationKey(secret, record));
  const given = Buffer.from(key);
  return expected.length === given.length && timingSafeEqual(expected, given) ? record : undefined;
}

export const invitationLink = (config: ServerConfig, key: string) => `${config.realmUri}/join/${encodeURIComponent(key)}/`;

// --- Reading the world -----------------------------------------------------------------

async function inviterOf(deps: InvitationDeps, actor: Actor): Promise<GroupMember> {
  const user = await deps.directory.userById(actor.user_id);
  if (!user || !user.is_active) throw badRequest('Not an active user');
  return { user_id: user._id, role: user.role, date_joined: user.date_joined };
}

async function administratorIds(deps: InvitationDeps): Promise<number[]> {
  return (await deps.directory.activeUsers()).filter((u) => !u.is_bot && isAdministrator(u.role)).map((u) => u._id);
}

export async function addressRules(deps: Pick<InvitationDeps, 'realmSettings' | 'realmDomains'>): Promise<AddressRules> {
  const settings = await deps.realmSettings.current();
  const { state } = await deps.realmDomains.load(streams.realmDomains);
  return {
    emails_restricted_to_domains: settings.emails_restricted_to_domains,
    disallow_disposable_email_addresses: settings.disallow_disposable_email_addresses,
    domains: state.domains,
  };
}

async function invitationContext(deps: InvitationDeps, actor: Actor, opts: InvitationOptions, multiuse: boolean): Promise<InvitationContext> {
  const inviter = await inviterOf(deps, actor);
  const now = Date.now();
  const nowSeconds = Math.floor(now / 1000);
  const [settings, policy, groups] = await Promise.all([deps.realmSettings.current(), deps.realmSettings.policy(), deps.groups.snapshot()]);
  const channels = new Map<number, InvitationChannel>();
  for (const id of new Set(opts.stream_ids)) {
    const view = await deps.directory.channelViewById(id);
    if (!view) continue;
    const subscribed = await deps.directory.isSubscribed(id, inviter.user_id);
    channels.set(id, {
      accessible: !view.is_archived && hasMetadataAccess(view, inviter, subscribed, nowSeconds, groups),
      is_default: view.is_default,
      can_add_subscribers: canAddSubscribers(view, inviter, nowSeconds, groups, policy),
    });
  }
  const { state: groupState } = await deps.userGroups.load(streams.userGroups);
  const groupContext = await contextOf({ organization: deps.organization, userGroups: deps.userGroups, channelSettingGroupIds: deps.channelSettingGroupIds, policy: () => deps.realmSettings.policy() });
  const group_permissions = new Map((opts.group_ids ?? []).map((id) => [id, mayAddMembers(groupState, groupContext, actor, id)] as const));
  return {
    inviter,
    may_invite_group: multiuse ? settings.create_multiuse_invite_group : settings.can_invite_users_group,
    groups,
    may_subscribe_others: isUserInGroupSetting(policy.canAddSubscribersGroup, inviter, nowSeconds, groups) || isAdministrator(inviter.role),
    channels,
    group_permissions,
    default_validity_minutes: deps.defaultValidityMinutes,
    now,
    key_salt: () => randomBytes(16).toString('hex'),
  };
}

// --- Emails ----------------------------------------------------------------------------

/** Queues every invitation's email: the invitations are stored whatever becomes of the mail. */
async function sendInvitationEmails(deps: InvitationDeps, invitations: readonly StoredInvitation[], inviterName: string): Promise<MailState | undefined> {
  const states: MailState[] = [];
  for (const invitation of invitations) states.push(await sendInvitationEmail(deps, invitation, inviterName));
  return deliveryOf(states);
}

async function sendInvitationEmail(deps: InvitationDeps, invitation: StoredInvitation, inviterName: string): Promise<MailState> {
  const link = invitationLink(deps.config, invitationKey(deps.config.serverSecret, invitation));
  const realm = (await deps.realmSettings.current()).name || 'the organization';
  return queueMail(
    deps.mail,
    deps.log,
    {
      to: invitation.email!,
      subject: `${inviterName} invited you to join ${realm}`,
      text: `${inviterName} invited you to join ${realm}.\n\nSign up here: ${link}\n\n${invitation.expiry_date === null ? 'The invitation does not expire.' : `The invitation expires on ${new Date(invitation.expiry_date * 1000).toUTCString()}.`}\n`,
    },
    'invitation',
  );
}

/**
 * The welcome email a new account gets (as Zulip's followup_day1): where to log in and
 * with which address. Queued like every mail; the account exists whatever becomes of it.
 */
async function sendWelcomeEmail(deps: InvitationDeps, email: string, fullName: string): Promise<void> {
  const realm = (await deps.realmSettings.current()).name || 'the organization';
  await queueMail(
    deps.mail,
    deps.log,
    {
      to: email,
      subject: `Welcome to ${realm}`,
      text: `Welcome to ${realm}, ${fullName}!\n\nYour account is ready at ${deps.config.realmUri}\nLog in with your email address, ${email}, and the password you chose.\n`,
    },
    'welcome',
  );
}

// --- Commands --------------------------------------------------------------------------

export interface SendInvitesParams extends InvitationOptions {
  invitee_emails: string;
  notify_referrer_on_join?: boolean | undefined;
}

export async function sendInvites(deps: InvitationDeps, actor: Actor, params: SendInvitesParams) {
  const ctx = await invitationContext(deps, actor, params, false);
  const { state: org } = await deps.organization.load(streams.organization);
  const accounts = new Map([...org.usersByEmail].map(([email, user]) => [email, { is_active: user.is_active }]));
  const rules = await addressRules(deps);
  const administrator_ids = await administratorIds(deps);
  const { result, append } = await deps.invitations.execute(streams.invitations, (state) => {
    const decided = decideSendInvites(state, { ...ctx, rules, accounts, daily_limit: deps.dailyLimit, administrator_ids }, { ...params, notify_referrer_on_join: params.notify_referrer_on_join });
    return { facts: decided.facts, result: decided };
  });
  const inviter = org.usersById.get(actor.user_id);
  const email_delivery = await sendInvitationEmails(deps, result.invitations, inviter?.full_name ?? 'Someone');
  if (result.skipped.length > 0) {
    throw new ApiError('INVITATION_FAILED', "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!", 400, {
      errors: result.skipped,
      sent_invitations: true,
      daily_limit_reached: false,
      license_limit_reached: false,
      ...(email_delivery ? { email_delivery } : {}),
    });
  }
  return { email_delivery, position: positionOf(append) };
}

export async function createMultiuseInvite(deps: InvitationDeps, actor: Actor, params: InvitationOptions) {
  const ctx = await invitationContext(deps, actor, params, true);
  const administrator_ids = await administratorIds(deps);
  const { result, append } = await deps.invitations.execute(streams.invitations, (state) => {
    const decided = decideCreateMultiuseInvite(state, { ...ctx, administrator_ids }, params);
    return { facts: decided.facts, result: decided.invitation };
  });
  return { invite_link: invitationLink(deps.config, invitationKey(deps.config.serverSecret, result)), position: positionOf(append) };
}

export async function listInvites(deps: InvitationDeps, actor: Actor) {
  const viewer = await inviterOf(deps, actor);
  const { state } = await deps.invitations.load(streams.invitations);
  return visibleInvitations(state, viewer, Math.floor(Date.now() / 1000)).map((r) => ({
    id: r.id,
    invited_by_user_id: r.invited_by_user_id,
    invited: r.invited,
    expiry_date: r.expiry_date,
    ...(r.email !== null ? { email: r.email } : {}),
    invited_as: r.invite_as,
    is_multiuse: r.is_multiuse,
    notify_referrer_on_join: r.notify_referrer_on_join,
    stream_ids: r.stream_ids,
    group_ids: r.group_ids,
    ...(r.is_multiuse ? { link_url: invitationLink(deps.config, invitationKey(deps.config.serverSecret, r)) } : {}),
  }));
}

export async function revokeInvite(deps: InvitationDeps, actor: Actor, invitationId: number, isMultiuse: boolean) {
  const viewer = await inviterOf(deps, actor);
  const administrator_ids = await administratorIds(deps);
  const { append } = await deps.invitations.execute(streams.invitations, (state) => ({
    facts: decideRevokeInvitation(state, { actor: viewer, invitation_id: invitationId, is_multiuse: isMultiuse, administrator_ids, now: Date.now() }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function resendInvite(deps: InvitationDeps, actor: Actor, invitationId: number) {
  const viewer = await inviterOf(deps, actor);
  const administrator_ids = await administratorIds(deps);
  const { result, append } = await deps.invitations.execute(streams.invitations, (state) => {
    const decided = decideResendInvitation(state, { actor: viewer, invitation_id: invitationId, is_multiuse: false, administrator_ids, now: Date.now(), daily_limit: deps.dailyLimit });
    return { facts: decided.facts, result: decided.invitation };
  });
  const inviter = await deps.directory.userById(result.invited_by_user_id);
  const email_delivery = await sendInvitationEmail(deps, result, inviter?.full_name ?? 'Someone');
  return { email_delivery, position: positionOf(append) };
}

// --- The registration page ---------------------------------------------------------------

export async function statusOfKey(deps: InvitationDeps, key: string) {
  const { state } = await deps.invitations.load(streams.invitations);
  const record = invitationOfKey(state, deps.config.serverSecret, key);
  const realm_name = (await deps.realmSettings.current()).name;
  return { status: invitationStatus(record, Math.floor(Date.now() / 1000)), email: record?.email ?? null, is_multiuse: record?.is_multiuse ?? false, realm_name };
}

/** The organization's welcome text (Zulip's realm default); none is configured on this server yet. */
const ORGANIZATION_WELCOME_TEXT = '';

export async function acceptInvitation(deps: InvitationDeps, params: { key: string; email?: string | undefined; full_name: string; password: string }) {
  const { state } = await deps.invitations.load(streams.invitations);
  const found = invitationOfKey(state, deps.config.serverSecret, params.key);
  if (!found) throw badRequest('Invalid invitation link.');
  const email = (found.email ?? params.email ?? '').trim();
  const rules = await addressRules(deps);
  // Refuse before hashing: a refused request costs no scrypt.
  checkAcceptable(state, { invitation_id: found.id, email, rules, now: Date.now() });
  const full_name = checkFullName(params.full_name);
  if (params.password.length < MIN_PASSWORD_LENGTH) throw badRequest(`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  if (params.password.length > MAX_PASSWORD_LENGTH) throw badRequest('Password is too long');
  const password_hash = await hashPassword(params.password);
  const { result: userId, append: created } = await deps.organization.execute(streams.organization, (org) => {
    const facts = decideCreateUser(org, { actor: undefined, user: { email, full_name, role: found.invite_as }, credentials: newCredentials(deps.config.serverSecret), now: Date.now(), password_hash });
    return { facts, result: facts[0].user_id };
  });
  const administrator_ids = await administratorIds(deps);
  const { append: accepted } = await deps.invitations.execute(streams.invitations, (current) => ({
    facts: decideAcceptInvitation(current, { invitation_id: found.id, email, rules, administrator_ids, now: Date.now(), user_id: userId }),
    result: undefined,
  }));
  let position = positionOf(accepted) ?? positionOf(created);
  // The account exists from here on; what follows is best effort, each part logged if it fails.
  const groupContext = () => contextOf({ organization: deps.organization, userGroups: deps.userGroups, channelSettingGroupIds: deps.channelSettingGroupIds });
  try {
    const { append } = await deps.userGroups.executeWith(streams.userGroups, groupContext, (groups, ctx) => ({ facts: decideAddInvitee(groups, ctx, { user_id: userId, group_ids: found.group_ids }), result: undefined }));
    position = positionOf(append) ?? position;
  } catch (err) {
    deps.log.warn({ err, user_id: userId }, 'new user not added to the invitation’s groups');
  }
  const call = async <R>(what: string, run: () => Promise<{ position?: number | undefined; value: R }>) => {
    try {
      const reply = await run();
      position = reply.position ?? position;
    } catch (err) {
      deps.log.warn({ err, user_id: userId }, what);
    }
  };
  await call('new user not subscribed', () =>
    callContract(deps.bus, endpoints.channels.subscribeNewUser, {
      params: { user_id: userId, channel_ids: found.stream_ids, include_default_channels: found.include_realm_default_subscriptions },
      ...(position ? { after: position } : {}),
    }),
  );
  if (found.notify_referrer_on_join) {
    const referrer = await deps.directory.userById(found.invited_by_user_id);
    if (referrer?.is_active) {
      const realmName = (await deps.realmSettings.current()).name || 'the organization';
      await call('referrer not notified', () =>
        callContract(deps.bus, endpoints.messaging.sendSystemBotMessage, {
          params: { bot: 'notification', to: [referrer._id], content: `@_**${full_name}|${userId}** accepted your invitation to join ${realmName}!` },
          ...(position ? { after: position } : {}),
        }),
      );
    }
  }
  const welcome = found.welcome_message_custom_text ?? ORGANIZATION_WELCOME_TEXT;
  if (welcome.trim() !== '') {
    await call('welcome text not sent', () =>
      callContract(deps.bus, endpoints.messaging.sendSystemBotMessage, { params: { bot: 'welcome', to: [userId], content: welcome }, ...(position ? { after: position } : {}) }),
    );
  }
  await sendWelcomeEmail(deps, email, full_name);
  return { value: { user_id: userId, email }, position };
}

// --- Allowed domains -------------------------------------------------------------------

export async function addRealmDomain(deps: InvitationDeps, actor: Actor, params: { domain: string; allow_subdomains: boolean }) {
  const { result, append } = await deps.realmDomains.execute(streams.realmDomains, (state) => {
      const { facts, id, domain } = decideAddRealmDomain(state, { actor, ...params });
      return { facts, result: [id, domain] as [number, string] };
    },
  );
  return { new_domain: result, position: positionOf(append) };
}

export async function changeRealmDomain(deps: InvitationDeps, actor: Actor, params: { domain: string; allow_subdomains: boolean }) {
  const { append } = await deps.realmDomains.execute(streams.realmDomains, (state) => ({ facts: decideChangeRealmDomain(state, { actor, ...params }), result: undefined }),
  );
  return positionOf(append);
}

/** `last`: no domain is left (decideRemoveRealmDomain). */
export async function removeRealmDomain(deps: InvitationDeps, actor: Actor, domain: string) {
  const { append, result } = await deps.realmDomains.execute(streams.realmDomains, (state) => {
      const { facts, last } = decideRemoveRealmDomain(state, { actor, domain });
      return { facts, result: last };
    },
  );
  return { position: positionOf(append), last: result };
}

