/**
 * Allowed email domains (spec endpoint 17): the organization's list, in one stream
 * (`realm_domains`: unique domains, ids). Owners manage it. When the organization
 * restricts emails to its domains, invitations and sign-up check addresses against it
 * (`emailAllowedByDomains`), subdomains only where the entry allows them.
 */
import { ACTIVE_USERS, badRequest, type Actor, type Fact, type StoredRealmDomain } from '@teamchat/contracts';
import { isOwner } from '@teamchat/policies';

export interface RealmDomainsState {
  domains: readonly StoredRealmDomain[];
  lastId: number;
}

export const initialRealmDomains = (): RealmDomainsState => ({ domains: [], lastId: 0 });

export function evolveRealmDomains(state: RealmDomainsState, fact: Fact): RealmDomainsState {
  switch (fact.type) {
    case 'RealmDomainAdded':
      return { domains: [...state.domains, fact.realm_domain], lastId: Math.max(state.lastId, fact.realm_domain.id) };
    case 'RealmDomainChanged':
      return { ...state, domains: state.domains.map((d) => (d.id === fact.realm_domain.id ? fact.realm_domain : d)) };
    case 'RealmDomainRemoved':
      return { ...state, domains: state.domains.filter((d) => d.id !== fact.realm_domain.id) };
    default:
      return state;
  }
}

/** Zulip's limit on a domain's length (RealmDomain.domain). */
export const MAX_DOMAIN_LENGTH = 80;
const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

/** Zulip's rules (validate_domain): lower case, at least one dot, labels of letters, digits, '-' and '_'. */
export function normaliseDomain(text: string): string {
  const domain = text.trim().toLowerCase();
  if (domain.length === 0) throw badRequest("Domain can't be empty.");
  if (domain.length > MAX_DOMAIN_LENGTH) throw badRequest(`Domain is too long (limit: ${MAX_DOMAIN_LENGTH} characters)`);
  if (!domain.includes('.')) throw badRequest('Domain must have at least one dot (.)');
  if (domain.startsWith('.') || domain.endsWith('.')) throw badRequest("Domain can't start or end with a dot (.)");
  for (const label of domain.split('.')) {
    if (label.length === 0) throw badRequest("Consecutive '.' is not allowed.");
    if (label.startsWith('-') || label.endsWith('-')) throw badRequest("Subdomain can't start or end with a '-'.");
    if (!LABEL.test(label)) throw badRequest('Domain can only have letters, numbers, \'.\', \'-\'s and \'_\'s.');
  }
  return domain;
}

const mustBeOwner = (actor: Actor) => {
  if (!isOwner(actor.role)) throw badRequest('Must be an organization owner');
};

function entryOf(state: RealmDomainsState, text: string): StoredRealmDomain {
  const domain = text.trim().toLowerCase();
  const entry = state.domains.find((d) => d.domain === domain);
  if (!entry) throw badRequest(`No entry found for domain: ${domain}.`);
  return entry;
}

export interface ChangeRealmDomain {
  actor: Actor;
  domain: string;
  allow_subdomains: boolean;
}

export function decideAddRealmDomain(state: RealmDomainsState, cmd: ChangeRealmDomain): { facts: Fact[]; id: number; domain: string } {
  mustBeOwner(cmd.actor);
  const domain = normaliseDomain(cmd.domain);
  if (state.domains.some((d) => d.domain === domain)) throw badRequest(`The domain ${domain} is already a part of your organization.`);
  const realm_domain = { id: state.lastId + 1, domain, allow_subdomains: cmd.allow_subdomains };
  return { facts: [{ type: 'RealmDomainAdded', realm_domain, audience: ACTIVE_USERS }], id: realm_domain.id, domain };
}

export function decideChangeRealmDomain(state: RealmDomainsState, cmd: ChangeRealmDomain): Fact[] {
  mustBeOwner(cmd.actor);
  const entry = entryOf(state, cmd.domain);
  if (entry.allow_subdomains === cmd.allow_subdomains) return [];
  return [{ type: 'RealmDomainChanged', realm_domain: { ...entry, allow_subdomains: cmd.allow_subdomains }, audience: ACTIVE_USERS }];
}

/**
 * `last`: the removal empties the list. As in Zulip, that lifts the organization's
 * restriction to its domains (which would otherwise refuse every address); it is told from
 * the state the removal was decided on, so no second read can see another writer's domain.
 */
export function decideRemoveRealmDomain(state: RealmDomainsState, cmd: Omit<ChangeRealmDomain, 'allow_subdomains'>): { facts: Fact[]; last: boolean } {
  mustBeOwner(cmd.actor);
  const entry = entryOf(state, cmd.domain);
  return {
    facts: [{ type: 'RealmDomainRemoved', realm_domain: entry, audience: ACTIVE_USERS }],
    last: state.domains.every((d) => d.id === entry.id),
  };
}

/** Whether an address's domain is one of the list's, or a subdomain of an entry that allows them. */
export function emailAllowedByDomains(email: string, domains: readonly Pick<StoredRealmDomain, 'domain' | 'allow_subdomains'>[]): boolean {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  return domains.some((d) => domain === d.domain || (d.allow_subdomains && domain.endsWith(`.${d.domain}`)));
}
