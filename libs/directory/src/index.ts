/**
 * The directory: who the users are, which channels exist and who is subscribed where.
 * Accounts and channels own these facts; every service that needs them (messaging to
 * address messages, events to format them, accounts to authenticate) keeps this
 * projection in its own read models rather than reading another service's.
 */
import { Fact, type FactOf } from '@teamchat/contracts';
import type { Collection, Doc, ReadModelStore, StoredFact } from '@teamchat/platform';

/** The facts the directory projection reads. */
export const DIRECTORY_FACT_TYPES: ReadonlySet<string> = new Set([
  'UserCreated',
  'UserDeactivated',
  'UserReactivated',
  'ChannelCreated',
  'SubscriptionsAdded',
  'SubscriptionsRemoved',
]);

export interface UserDoc extends Doc {
  _id: number;
  email: string;
  /** Lower-cased email: emails are matched case-insensitively. */
  email_lc: string;
  full_name: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  timezone: string;
  date_joined: number;
}

export type ChannelDoc = Omit<FactOf<'ChannelCreated'>, 'type' | 'channel_id'> & {
  _id: number;
  name_lc: string;
  is_archived: boolean;
};

export interface SubscriptionDoc extends Doc {
  /** `${channel_id}:${user_id}` */
  _id: string;
  channel_id: number;
  user_id: number;
  active: boolean;
}

export class Directory {
  readonly users: Collection<UserDoc>;
  readonly channels: Collection<ChannelDoc>;
  readonly subscriptions: Collection<SubscriptionDoc>;

  constructor(readModels: ReadModelStore) {
    this.users = readModels.collection<UserDoc>('dir_users', [{ fields: ['email_lc'], unique: true }]);
    this.channels = readModels.collection<ChannelDoc>('dir_channels', [{ fields: ['name_lc'], unique: true }]);
    this.subscriptions = readModels.collection<SubscriptionDoc>('dir_subscriptions', [
      { fields: ['channel_id', 'active'] },
      { fields: ['user_id', 'active'] },
    ]);
  }

  /** The projection: idempotent, since every write is a full put keyed by the fact's subject. */
  async apply(stored: StoredFact): Promise<void> {
    const parsed = Fact.safeParse(stored.data);
    if (!parsed.success) return;
    const fact = parsed.data;
    switch (fact.type) {
      case 'UserCreated': {
        // Credentials stay with accounts: the directory is copied into every service.
        const { type: _type, user_id, api_key_salt: _salt, api_key_hash: _hash, ...rest } = fact;
        await this.users.put({ _id: user_id, ...rest, email_lc: fact.email.toLowerCase(), is_active: true });
        return;
      }
      case 'UserDeactivated':
      case 'UserReactivated': {
        const user = await this.users.get(fact.user_id);
        if (user) await this.users.put({ ...user, is_active: fact.type === 'UserReactivated' });
        return;
      }
      case 'ChannelCreated': {
        const { type: _type, channel_id, ...rest } = fact;
        await this.channels.put({ _id: channel_id, ...rest, name_lc: fact.name.toLowerCase(), is_archived: false });
        return;
      }
      case 'SubscriptionsAdded':
      case 'SubscriptionsRemoved':
        for (const user_id of fact.user_ids) {
          await this.subscriptions.put({
            _id: `${fact.channel_id}:${user_id}`,
            channel_id: fact.channel_id,
            user_id,
            active: fact.type === 'SubscriptionsAdded',
          });
        }
        return;
      default:
        return;
    }
  }

  userById(id: number): Promise<UserDoc | undefined> {
    return this.users.get(id);
  }

  async userByEmail(email: string): Promise<UserDoc | undefined> {
    const [user] = await this.users.find({ email_lc: email.toLowerCase() }, { limit: 1 });
    return user;
  }

  usersByIds(ids: number[]): Promise<UserDoc[]> {
    return this.users.getMany(ids);
  }

  channelById(id: number): Promise<ChannelDoc | undefined> {
    return this.channels.get(id);
  }

  async channelByName(name: string): Promise<ChannelDoc | undefined> {
    const [channel] = await this.channels.find({ name_lc: name.toLowerCase() }, { limit: 1 });
    return channel;
  }

  async subscriberIds(channelId: number): Promise<number[]> {
    const subs = await this.subscriptions.find({ channel_id: channelId, active: true });
    return subs.map((s) => s.user_id);
  }

  async isSubscribed(channelId: number, userId: number): Promise<boolean> {
    const sub = await this.subscriptions.get(`${channelId}:${userId}`);
    return sub?.active === true;
  }

  async subscribedChannelIds(userId: number): Promise<number[]> {
    const subs = await this.subscriptions.find({ user_id: userId, active: true });
    return subs.map((s) => s.channel_id);
  }
}
