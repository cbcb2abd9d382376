/**
 * Accounts' own read model of API key hashes: kept apart from the directory because
 * only this service may see key material.
 */
import type { BotSettings } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface CredentialDoc extends Doc {
  _id: number;
  api_key_salt: string;
  api_key_hash: string;
}

/** A password's scrypt hash, for POST /fetch_api_key. */
export interface PasswordDoc extends Doc {
  _id: number;
  password_hash: string;
}

/** A bot's own settings (default channels, service), for GET /bots and `realm_bots`. */
export interface BotSettingsDoc extends Doc, BotSettings {
  _id: number;
}

export interface Organization extends Doc {
  _id: 'organization';
  name: string;
  host: string;
  date_created: number;
}

const NO_SETTINGS: BotSettings = {
  default_sending_stream_id: null,
  default_sending_stream: null,
  default_events_register_stream_id: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  services: [],
};

export class AccountsReadModel {
  /** Every request authenticates: keep the hashes in memory (this projector is their only writer). */
  private readonly credentialCache = new Map<number, CredentialDoc>();
  private readonly credentials: Collection<CredentialDoc>;
  readonly organization: Collection<Organization>;
  readonly passwords: Collection<PasswordDoc>;
  readonly botSettings: Collection<BotSettingsDoc>;

  constructor(readModels: ReadModelStore) {
    this.credentials = readModels.collection<CredentialDoc>('credentials');
    this.organization = readModels.collection<Organization>('organization');
    this.passwords = readModels.collection<PasswordDoc>('passwords');
    this.botSettings = readModels.collection<BotSettingsDoc>('bot_settings');
  }

  private async putCredential(credential: CredentialDoc): Promise<void> {
    await this.credentials.put(credential);
    this.credentialCache.set(credential._id, credential);
  }

  readonly handlers = {
    UserCreated: async (fact) => {
      await this.putCredential({ _id: fact.user_id, api_key_salt: fact.api_key_salt, api_key_hash: fact.api_key_hash });
      if (fact.bot_settings) await this.botSettings.put({ _id: fact.user_id, ...fact.bot_settings });
    },
    BotApiKeyRegenerated: (fact) => this.putCredential({ _id: fact.user_id, api_key_salt: fact.api_key_salt, api_key_hash: fact.api_key_hash }),
    UserApiKeyRegenerated: (fact) => this.putCredential({ _id: fact.user_id, api_key_salt: fact.api_key_salt, api_key_hash: fact.api_key_hash }),
    UserPasswordSet: (fact) => this.passwords.put({ _id: fact.user_id, password_hash: fact.password_hash }),
    BotSettingsChanged: async (fact) => {
      const before = await this.botSettings.get(fact.user_id);
      await this.botSettings.put({ ...NO_SETTINGS, ...before, ...fact.changes, _id: fact.user_id });
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
