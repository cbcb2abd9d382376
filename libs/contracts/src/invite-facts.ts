/**
 * Facts of invitations and allowed email domains (issue 16). Accounts appends them: the
 * organization's allowed domains on one stream (`realm_domains`: unique domains, ids),
 * every invitation on another (`invitations`: ids, and the daily limit counts them all).
 * No fact holds a link's key: the key is derived from the server secret and the
 * invitation's `key_salt`, as API keys are, so the store never holds a usable secret.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';

const int = () => z.number().int();

export const StoredRealmDomain = z.object({ id: int(), domain: z.string(), allow_subdomains: z.boolean() });
export type StoredRealmDomain = z.infer<typeof StoredRealmDomain>;

/** Everyone hears of an allowed domain (Zulip sends realm_domains to the whole organization). */
const Audience = { audience_user_ids: z.array(int()) };

export const RealmDomainAdded = z.object({ type: z.literal('RealmDomainAdded'), realm_domain: StoredRealmDomain, ...OrganizationAudience });
export const RealmDomainChanged = z.object({ type: z.literal('RealmDomainChanged'), realm_domain: StoredRealmDomain, ...OrganizationAudience });
export const RealmDomainRemoved = z.object({ type: z.literal('RealmDomainRemoved'), realm_domain: StoredRealmDomain, ...OrganizationAudience });

/** An invitation as stored: what POST /invites (or /invites/multiuse) decided. */
export const StoredInvitation = z.object({
  id: int(),
  /** Null for a reusable link (multiuse): whoever follows it gives an address. */
  email: z.string().nullable(),
  is_multiuse: z.boolean(),
  invited_by_user_id: int(),
  invite_as: int(),
  stream_ids: z.array(int()),
  group_ids: z.array(int()),
  include_realm_default_subscriptions: z.boolean(),
  notify_referrer_on_join: z.boolean(),
  /** Null: the organization's default welcome text; "": none. */
  welcome_message_custom_text: z.string().nullable(),
  /** Seconds since the epoch. */
  invited: int(),
  /** Seconds since the epoch; null never expires. */
  expiry_date: int().nullable(),
  /** Random; the link's key is an HMAC of it under the server secret. */
  key_salt: z.string(),
});
export type StoredInvitation = z.infer<typeof StoredInvitation>;

/**
 * Who is told that the invitation list changed (`invites_changed`, which carries nothing):
 * the active administrators, who see every invitation, and the inviter, who sees their own.
 */
export const InvitationCreated = z.object({ type: z.literal('InvitationCreated'), invitation: StoredInvitation, ...Audience });
export const InvitationResent = z.object({ type: z.literal('InvitationResent'), invitation_id: int(), invited: int(), ...Audience });
export const InvitationRevoked = z.object({ type: z.literal('InvitationRevoked'), invitation_id: int(), ...Audience });
/** A single-use invitation used: its account exists (`user_id`), and its link is refused from now on. */
export const InvitationAccepted = z.object({ type: z.literal('InvitationAccepted'), invitation_id: int(), user_id: int(), ...Audience });

export const INVITE_FACTS = [
  RealmDomainAdded,
  RealmDomainChanged,
  RealmDomainRemoved,
  InvitationCreated,
  InvitationResent,
  InvitationRevoked,
  InvitationAccepted,
] as const;
