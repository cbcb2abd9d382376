/**
 * What clients see of invitations and allowed domains (issue 16): a domain change goes to
 * the active users its fact names (`realm_domains`, as Zulip sends to everyone); any change
 * to the invitation list tells its viewers (administrators, and the inviter) to fetch it
 * again (`invites_changed`, which carries nothing).
 */
import type { FactOf, StoredRealmDomain } from '@teamchat/contracts';
import { toOrganization, type AudienceContext, type Delivery } from './delivery';

const apiDomain = (d: StoredRealmDomain) => ({ domain: d.domain, allow_subdomains: d.allow_subdomains });
const invitesChanged = (fact: { audience_user_ids: number[] }): Delivery[] => [{ user_ids: fact.audience_user_ids, eventFor: () => ({ type: 'invites_changed' }) }];

export const inviteFanOut = {
  RealmDomainAdded: (fact: FactOf<'RealmDomainAdded'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, () => ({ type: 'realm_domains', op: 'add', realm_domain: apiDomain(fact.realm_domain) })),
  RealmDomainChanged: (fact: FactOf<'RealmDomainChanged'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, () => ({ type: 'realm_domains', op: 'change', realm_domain: apiDomain(fact.realm_domain) })),
  RealmDomainRemoved: (fact: FactOf<'RealmDomainRemoved'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, () => ({ type: 'realm_domains', op: 'remove', domain: fact.realm_domain.domain })),
  InvitationCreated: invitesChanged,
  InvitationResent: invitesChanged,
  InvitationRevoked: invitesChanged,
  InvitationAccepted: invitesChanged,
};
