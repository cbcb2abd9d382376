/**
 * Accounts' read model of the allowed email domains (register's `realm_domains`, GET
 * /realm/domains): the list as one document. Each case replaces the entry its fact names
 * by id, so a replayed fact changes nothing.
 */
import type { StoredRealmDomain } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface RealmDomainsDoc extends Doc {
  _id: 'realm_domains';
  domains: StoredRealmDomain[];
}

export class RealmDomainsReadModel {
  private readonly list: Collection<RealmDomainsDoc>;

  constructor(readModels: ReadModelStore) {
    this.list = readModels.collection<RealmDomainsDoc>('realm_domains');
  }

  private async change(update: (domains: StoredRealmDomain[]) => StoredRealmDomain[]): Promise<void> {
    const doc = await this.list.get('realm_domains');
    await this.list.put({ _id: 'realm_domains', domains: update([...(doc?.domains ?? [])]) });
  }

  readonly handlers = {
    RealmDomainAdded: (fact) => this.change((domains) => [...domains.filter((d) => d.id !== fact.realm_domain.id), fact.realm_domain].sort((a, b) => a.id - b.id)),
    RealmDomainChanged: (fact) => this.change((domains) => domains.map((d) => (d.id === fact.realm_domain.id ? fact.realm_domain : d))),
    RealmDomainRemoved: (fact) => this.change((domains) => domains.filter((d) => d.id !== fact.realm_domain.id)),
  } satisfies FactHandlers;

  /** As Zulip lists them: domain and whether subdomains are allowed, in the order added. */
  async domains(): Promise<{ domain: string; allow_subdomains: boolean }[]> {
    return ((await this.list.get('realm_domains'))?.domains ?? []).map((d) => ({ domain: d.domain, allow_subdomains: d.allow_subdomains }));
  }
}
