/**
 * Invitations (spec endpoint 8 and the management Zulip clients use), allowed email
 * domains (endpoint 17), and the internal contracts of accepting an invitation: the
 * gateway's registration page asks accounts about a link and accepts it; accounts then asks
 * channels to subscribe the new user and messaging to post the bots' messages.
 */
import { z } from 'zod';
import { EmailDelivery, EmailDeliveryReply, EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();
/** null: never expires (a JSON null on the wire); absent: the server's default. */
const Expiry = z.union([int(), z.null()]).optional();

/** The parameters POST /invites and POST /invites/multiuse share. */
const InvitationParams = {
  invite_expires_in_minutes: Expiry,
  invite_as: int().optional(),
  group_ids: z.array(int()).optional(),
  include_realm_default_subscriptions: z.boolean().optional(),
  welcome_message_custom_text: z.string().nullable().optional(),
};

/** An invitation as GET /invites lists it (Zulip's shape). */
export const ApiInvitation = z.object({
  id: int(),
  invited_by_user_id: int(),
  invited: int(),
  expiry_date: int().nullable(),
  email: z.string().optional(),
  invited_as: int(),
  is_multiuse: z.boolean(),
  notify_referrer_on_join: z.boolean(),
  stream_ids: z.array(int()),
  group_ids: z.array(int()),
  /** Reusable links only: anyone with it may sign up. */
  link_url: z.string().optional(),
});

export const ApiRealmDomain = z.object({ domain: z.string(), allow_subdomains: z.boolean() });

/** What the registration page learns of a link before showing its form. */
export const InvitationStatus = z.enum(['pending', 'expired', 'revoked', 'accepted', 'invalid']);
export type InvitationStatus = z.infer<typeof InvitationStatus>;

export const invitesEndpoints = {
  sendInvites: endpoint({
    service: 'accounts',
    subject: 'accounts.send_invites',
    http: { method: 'POST', path: '/invites' },
    auth: true,
    params: z.object({
      invitee_emails: z.string(),
      stream_ids: z.array(int()),
      notify_referrer_on_join: z.boolean().optional(),
      ...InvitationParams,
    }),
    reply: EmailDeliveryReply,
  }),
  listInvites: endpoint({
    service: 'accounts',
    subject: 'accounts.list_invites',
    http: { method: 'GET', path: '/invites' },
    auth: true,
    params: NoParams,
    reply: z.object({ invites: z.array(ApiInvitation) }),
  }),
  revokeInvite: endpoint({
    service: 'accounts',
    subject: 'accounts.revoke_invite',
    http: { method: 'DELETE', path: '/invites/{invite_id}' },
    auth: true,
    params: z.object({ invite_id: int() }),
    reply: EmptyReply,
  }),
  resendInvite: endpoint({
    service: 'accounts',
    subject: 'accounts.resend_invite',
    http: { method: 'POST', path: '/invites/{invite_id}/resend' },
    auth: true,
    params: z.object({ invite_id: int() }),
    reply: EmailDeliveryReply,
  }),
  createMultiuseInvite: endpoint({
    service: 'accounts',
    subject: 'accounts.create_multiuse_invite',
    http: { method: 'POST', path: '/invites/multiuse' },
    auth: true,
    params: z.object({ stream_ids: z.array(int()).optional(), ...InvitationParams }),
    reply: z.object({ invite_link: z.string() }),
  }),
  revokeMultiuseInvite: endpoint({
    service: 'accounts',
    subject: 'accounts.revoke_multiuse_invite',
    http: { method: 'DELETE', path: '/invites/multiuse/{invite_id}' },
    auth: true,
    params: z.object({ invite_id: int() }),
    reply: EmptyReply,
  }),
  listRealmDomains: endpoint({
    service: 'accounts',
    subject: 'accounts.list_realm_domains',
    http: { method: 'GET', path: '/realm/domains' },
    auth: true,
    params: NoParams,
    reply: z.object({ domains: z.array(ApiRealmDomain) }),
  }),
  addRealmDomain: endpoint({
    service: 'accounts',
    subject: 'accounts.add_realm_domain',
    http: { method: 'POST', path: '/realm/domains' },
    auth: true,
    params: z.object({ domain: z.string(), allow_subdomains: z.boolean() }),
    reply: z.object({ new_domain: z.tuple([int(), z.string()]) }),
  }),
  changeRealmDomain: endpoint({
    service: 'accounts',
    subject: 'accounts.change_realm_domain',
    http: { method: 'PATCH', path: '/realm/domains/{domain}' },
    auth: true,
    params: z.object({ domain: z.string(), allow_subdomains: z.boolean() }),
    reply: EmptyReply,
  }),
  removeRealmDomain: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_realm_domain',
    http: { method: 'DELETE', path: '/realm/domains/{domain}' },
    auth: true,
    params: z.object({ domain: z.string() }),
    reply: EmptyReply,
  }),
  /** Internal (the registration page): what a link is, without accepting it. */
  invitationStatus: endpoint({
    service: 'accounts',
    subject: 'accounts.invitation_status',
    auth: false,
    params: z.object({ key: z.string() }),
    reply: z.object({ status: InvitationStatus, email: z.string().nullable(), is_multiuse: z.boolean(), realm_name: z.string() }),
  }),
  /** Internal (the registration page's form): creates the account the link invites. */
  acceptInvitation: endpoint({
    service: 'accounts',
    subject: 'accounts.accept_invitation',
    auth: false,
    params: z.object({ key: z.string(), email: z.string().optional(), full_name: z.string(), password: z.string() }),
    reply: z.object({ user_id: int(), email: z.string() }),
  }),
};

/** A queued mail as operators see it (MailOutbox's record without its body). */
export const MailOutboxEntry = z.object({
  _id: z.string(),
  purpose: z.string(),
  to: z.string(),
  subject: z.string(),
  state: EmailDelivery,
  attempts: int(),
  due_at: z.number(),
  lease_until: z.number(),
  last_error: z.string().nullable(),
  response_code: int().nullable(),
  created_at: z.number(),
  finished_at: z.number().nullable(),
});

export const mailOutboxEndpoints = {
  /** Internal (operators, tests): the accounts service's mail outbox, newest first, without bodies. */
  mailOutbox: endpoint({
    service: 'accounts',
    subject: 'accounts.mail_outbox',
    auth: false,
    params: z.object({ state: EmailDelivery.optional(), limit: int().optional() }),
    reply: z.object({ mails: z.array(MailOutboxEntry) }),
  }),
};

export const invitesChannelsEndpoints = {
  /**
   * Internal: subscribes a user who just accepted an invitation to the channels it named
   * (those still existing and not archived) and, when asked, the default channels. The
   * inviter's right to add subscribers was checked when inviting, as in Zulip.
   */
  subscribeNewUser: endpoint({
    service: 'channels',
    subject: 'channels.subscribe_new_user',
    auth: false,
    params: z.object({ user_id: int(), channel_ids: z.array(int()), include_default_channels: z.boolean() }),
    reply: z.object({ channel_ids: z.array(int()) }),
  }),
};
