/**
 * Accounts' own read model of API key hashes: kept apart from the directory because
 * only this service may see key material.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface CredentialDoc extends Doc {
  _id: number;
  api_key_salt: string;
  api_key_hash: string;
}

export interface Organization extends Doc {
  _id: 'organization';
  name: string;
  host: string;
  date_created: number;
}

export class AccountsReadModel {
  /** Every request authenticates: keep the hashes in memory (this projector is their only writer). */
  private readonly credentialCache = new Map<number, CredentialDoc>();
  private readonly credentials: Collection<CredentialDoc>;
  readonly organization: Collection<Organization>;

  constructor(readModels: ReadModelStore) {
    this.credentials = readModels.collection<CredentialDoc>('credentials');
    this.organization = readModels.collection<Organization>('organization');
  }

  readonly handlers = {
    UserCreated: async (fact) => {
      const credential = { _id: fact.user_id, api_key_salt: fact.api_key_salt, api_key_hash: fact.api_key_hash };
      await this.credentials.put(credential);
      this.credentialCache.set(credential._id, credential);
    },
    OrganizationCreated: async (fact) => {
      await this.organization.put({ _id: 'organization', name: fact.name, host: fact.host, date_created: fact.date_created });
    },
  } satisfies FactHandlers;

  async credentialOf(userId: number): Promise<CredentialDoc | undefined> {
    const cached = this.credentialCache.get(userId);
    if (cached) return cached;
    const credential = await this.credentials.get(userId);
    if (credential) this.credentialCache.set(userId, credential);
    return credential;
  }
}
