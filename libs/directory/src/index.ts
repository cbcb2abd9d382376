/**
 * The directory: who the users are, which channels exist and who is subscribed where.
 * Accounts and channels own these facts; every service that needs them (messaging to
 * address messages, events to format them, accounts to authenticate) keeps this
 * projection in its own read models rather than reading another service's.
 */
import {
  avatarStateOf,
  channelFromCreated,
  groupSettingsOf,
  type ChannelGroupSettingName,
  type ChannelGroupSettings,
  type AvatarState,
  type ChannelView,
  type FactOf,
} from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import { evolveChannelView } from '@teamchat/policies';

export interface UserDoc extends Doc {
  _id: number;
  email: string;
  /** Lower-cased email: emails are matched case-insensitively. */
  email_lc: string;
  full_name: string;
  /** Lower-cased full name, for mentions by name. */
  full_name_lc: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  timezone: string;
  date_joined: number;
  /** Absent: never changed (the provider's avatar, version 1). */
  avatar?: AvatarState;
}

/**
 * A channel as it stands. Documents written before group-settings existed hold none:
 * read them with `channelGroupSettings`, which fills in the defaults.
 */
export type ChannelDoc = Omit<ChannelView, 'channel_id' | ChannelGroupSettingName | 'folder_id'> &
  Partial<ChannelGroupSettings> & {
    _id: number;
    name_lc: string;
    /** Absent from documents written before channel folders existed. */
    folder_id?: number | null;
  };

export const channelGroupSettings = (channel: ChannelDoc): ChannelGroupSettings => groupSettingsOf(channel);

const viewOf = ({ _id, name_lc: _lc, ...rest }: ChannelDoc): ChannelView => ({ ...rest, folder_id: rest.folder_id ?? null, ...groupSettingsOf(rest), channel_id: _id });
const docOf = ({ channel_id, ...rest }: ChannelView): ChannelDoc => ({ ...rest, _id: channel_id, name_lc: rest.name.toLowerCase() });

export interface SubscriptionDoc extends Doc {
  /** `${channel_id}:${user_id}` */
  _id: string;
  channel_id: number;
  user_id: number;
  active: boolean;
}

/**
 * A user document without what directories written before kept of the creating fact
 * (its audiences, as large as the organization; bot settings).
 */
function profileOf(user: UserDoc): UserDoc {
  if (!('audience_user_ids' in user) && !('bot_audience_user_ids' in user) && !('bot_settings' in user)) return user;
  const { audience_user_ids: _a, bot_audience_user_ids: _b, bot_settings: _s, ...profile } = user as UserDoc & Record<string, unknown>;
  return profile as UserDoc;
}

/**
 * Lookups go through in-memory caches: this process's projector is the only writer of
 * these collections, so the caches are updated as it writes and never go stale. Only
 * what was asked for is cached; misses read the collection.
 */
export class Directory {
  private readonly userCache = new Map<number, UserDoc>();
  private readonly userIdByEmail = new Map<string, number>();
  private readonly channelCache = new Map<number, ChannelDoc>();
  private readonly channelIdByName = new Map<string, number>();
  private readonly subscriberCache = new Map<number, Set<number>>();
  private readonly sortedSubscribers = new Map<number, number[]>();
  /**
   * Set once every user (channel) has been read into the cache: from then on the lists
   * are served from memory (register lists every user and channel; 10,000 documents read
   * and parsed per registration otherwise). The sorted list is rebuilt after a write.
   */
  private everyUserCached = false;
  private everyUser: UserDoc[] | undefined;
  private everyChannelCached = false;
  private everyChannel: ChannelView[] | undefined;
  private readonly users: Collection<UserDoc>;
  private readonly channels: Collection<ChannelDoc>;
  private readonly subscriptions: Collection<SubscriptionDoc>;

  constructor(readModels: ReadModelStore) {
    this.users = readModels.collection<UserDoc>('dir_users', [{ fields: ['email_lc'], unique: true }, { fields: ['full_name_lc'] }]);
    this.channels = readModels.collection<ChannelDoc>('dir_channels', [{ fields: ['name_lc'], unique: true }]);
    this.subscriptions = readModels.collection<SubscriptionDoc>('dir_subscriptions', [
      { fields: ['channel_id', 'active'] },
      { fields: ['user_id', 'active'] },
    ]);
  }

  /** The projection: idempotent, since every write is a full put keyed by the fact's subject. */
  readonly handlers = {
    UserCreated: async (fact) => {
      // Only the profile: credentials stay with accounts, and the fact's audiences (every
      // active user) would make each document as large as the organization, in every
      // service's directory and its cache.
      const user: UserDoc = {
        _id: fact.user_id,
        email: fact.email,
        email_lc: fact.email.toLowerCase(),
        full_name: fact.full_name,
        full_name_lc: fact.full_name.toLowerCase(),
        role: fact.role,
        is_active: true,
        is_bot: fact.is_bot,
        bot_type: fact.bot_type,
        bot_owner_id: fact.bot_owner_id,
        timezone: fact.timezone,
        date_joined: fact.date_joined,
      };
      await this.users.put(user);
      this.rememberUser(user);
    },
    UserDeactivated: (fact) => this.changeUser(fact.user_id, { is_active: false }),
    UserReactivated: (fact) => this.changeUser(fact.user_id, { is_active: true }),
    UserRoleChanged: (fact) => this.changeUser(fact.user_id, { role: fact.role }),
    UserFullNameChanged: (fact) => this.changeUser(fact.user_id, { full_name: fact.full_name, full_name_lc: fact.full_name.toLowerCase() }),
    BotOwnerChanged: (fact) => this.changeUser(fact.user_id, { bot_owner_id: fact.bot_owner_id }),
    // The time zone is a setting (PATCH /settings) that is also part of the profile.
    UserSettingChanged: async (fact) => {
      if (fact.property === 'timezone' && typeof fact.value === 'string') await this.changeUser(fact.user_id, { timezone: fact.value });
    },
    UserAvatarChanged: (fact) => this.changeUser(fact.user_id, { avatar: avatarStateOf(fact) }),
    UserEmailChanged: async (fact) => {
      // The old address no longer finds the user.
      if (this.userIdByEmail.get(fact.old_email.toLowerCase()) === fact.user_id) this.userIdByEmail.delete(fact.old_email.toLowerCase());
      await this.changeUser(fact.user_id, { email: fact.new_email, email_lc: fact.new_email.toLowerCase() });
    },
    ChannelCreated: async (fact) => {
      const channel = docOf(channelFromCreated(fact));
      await this.channels.put(channel);
      this.rememberChannel(channel);
    },
    ChannelUpdated: (fact) => this.evolveChannel(fact),
    ChannelArchived: (fact) => this.evolveChannel(fact),
    ChannelUnarchived: (fact) => this.evolveChannel(fact),
    SubscriptionsAdded: (fact) => this.setSubscribed(fact, true),
    SubscriptionsRemoved: (fact) => this.setSubscribed(fact, false),
  } satisfies FactHandlers;

  private async changeUser(userId: number, change: Partial<UserDoc>): Promise<void> {
    const user = await this.users.get(userId);
    if (!user) return;
    const updated = { ...profileOf(user), ...change };
    await this.users.put(updated);
    this.rememberUser(updated);
  }

  private async evolveChannel(fact: FactOf<'ChannelUpdated' | 'ChannelArchived' | 'ChannelUnarchived'>): Promise<void> {
    const before = await this.channelById(fact.channel_id);
    if (!before) return;
    const channel = docOf(evolveChannelView(viewOf(before), fact));
    await this.channels.put(channel);
    // A renamed channel no longer answers to its old name.
    if (this.channelIdByName.get(before.name_lc) === before._id) this.channelIdByName.delete(before.name_lc);
    this.rememberChannel(channel);
  }

  private async setSubscribed(fact: { channel_id: number; user_ids: number[] }, active: boolean): Promise<void> {
    for (const user_id of fact.user_ids) {
      await this.subscriptions.put({ _id: `${fact.channel_id}:${user_id}`, channel_id: fact.channel_id, user_id, active });
      this.sortedSubscribers.delete(fact.channel_id);
      const cached = this.subscriberCache.get(fact.channel_id);
      if (active) cached?.add(user_id);
      else cached?.delete(user_id);
    }
  }

  async userById(id: number): Promise<UserDoc | undefined> {
    return this.userCache.get(id) ?? this.rememberUser(await this.users.get(id));
  }

  /**
   * Whether the user is known and deactivated: the check every request of a caller goes
   * through (ContractServerOptions.deactivated). Synchronous for a user already in memory,
   * as nearly every caller is, so that the request path spends no microtask turn on it.
   */
  isDeactivated(id: number): boolean | Promise<boolean> {
    const cached = this.userCache.get(id);
    if (cached) return !cached.is_active;
    return this.userById(id).then((user) => user !== undefined && !user.is_active);
  }

  async userByEmail(email: string): Promise<UserDoc | undefined> {
    const key = email.toLowerCase();
    const id = this.userIdByEmail.get(key);
    if (id !== undefined) return this.userById(id);
    const [user] = await this.users.find({ email_lc: key }, { limit: 1 });
    return this.rememberUser(user);
  }

  /** Everyone with this full name (case-insensitive): names are not unique. */
  async usersByFullName(name: string): Promise<UserDoc[]> {
    const users = await this.users.find({ full_name_lc: name.toLowerCase() }, { limit: 50 });
    for (const user of users) this.rememberUser(user);
    return users;
  }

  async usersByIds(ids: number[]): Promise<UserDoc[]> {
    const missing = ids.filter((id) => !this.userCache.has(id));
    if (missing.length) for (const user of await this.users.getMany(missing)) this.rememberUser(user);
    return ids.flatMap((id) => this.userCache.get(id) ?? []);
  }

  async channelById(id: number): Promise<ChannelDoc | undefined> {
    return this.channelCache.get(id) ?? this.rememberChannel(await this.channels.get(id));
  }

  /** The channel as every reader holds it (group-settings and folder filled in). */
  async channelViewById(id: number): Promise<ChannelView | undefined> {
    const doc = await this.channelById(id);
    return doc && viewOf(doc);
  }

  async channelByName(name: string): Promise<ChannelDoc | undefined> {
    const key = name.toLowerCase();
    const id = this.channelIdByName.get(key);
    if (id !== undefined) return this.channelById(id);
    const [channel] = await this.channels.find({ name_lc: key }, { limit: 1 });
    return this.rememberChannel(channel);
  }

  /** Every active user, bots included: the organization, for audiences and permissions. */
  async activeUsers(): Promise<UserDoc[]> {
    return (await this.allUsers()).filter((user) => user.is_active);
  }

  /** Every user, deactivated ones too (POST /register lists both), in id order; the caller's to keep. */
  async allUsers(): Promise<UserDoc[]> {
    if (!this.everyUserCached) {
      for (const user of await this.users.find({})) this.rememberUser(user);
      this.everyUserCached = true;
    }
    this.everyUser ??= [...this.userCache.values()].sort((a, b) => a._id - b._id);
    return this.everyUser.slice();
  }

  /** Every channel, archived ones too, in id order; the caller's to keep. */
  async allChannels(): Promise<ChannelView[]> {
    if (!this.everyChannelCached) {
      for (const channel of await this.channels.find({})) this.rememberChannel(channel);
      this.everyChannelCached = true;
    }
    this.everyChannel ??= [...this.channelCache.values()].sort((a, b) => a._id - b._id).map(viewOf);
    return this.everyChannel.slice();
  }

  /** The user's subscriptions, past ones (inactive) included. */
  async subscriptionsOf(userId: number): Promise<SubscriptionDoc[]> {
    return this.subscriptions.find({ user_id: userId });
  }

  async subscribedChannelIds(userId: number): Promise<number[]> {
    // From the index: no subscription document is read (a registration asks for hundreds).
    const [ids] = await this.subscriptions.findColumns({ user_id: userId, active: true }, ['channel_id']);
    return ids as number[];
  }

  async subscriberIds(channelId: number): Promise<number[]> {
    return [...(await this.subscriberSet(channelId))];
  }

  /**
   * The channel's subscribers in id order, shared (not to be changed): register lists
   * every channel's, and sorting them all again cost more than the rest of its channels.
   */
  async sortedSubscriberIds(channelId: number): Promise<number[]> {
    let sorted = this.sortedSubscribers.get(channelId);
    if (!sorted) {
      // Frozen: a caller that changed it would throw rather than change everyone's.
      sorted = Object.freeze([...(await this.subscriberSet(channelId))].sort((a, b) => a - b)) as number[];
      // Kept only if no change came while the set was read.
      if (this.subscriberCache.has(channelId)) this.sortedSubscribers.set(channelId, sorted);
    }
    return sorted;
  }

  async isSubscribed(channelId: number, userId: number): Promise<boolean> {
    return (await this.subscriberSet(channelId)).has(userId);
  }

  private async subscriberSet(channelId: number): Promise<Set<number>> {
    let subscribers = this.subscriberCache.get(channelId);
    if (!subscribers) {
      const subs = await this.subscriptions.find({ channel_id: channelId, active: true });
      subscribers = new Set(subs.map((s) => s.user_id));
      this.subscriberCache.set(channelId, subscribers);
    }
    return subscribers;
  }

  private rememberUser(user: UserDoc | undefined): UserDoc | undefined {
    if (user) {
      user = profileOf(user);
      if (this.userCache.get(user._id) !== user) this.everyUser = undefined;
      this.userCache.set(user._id, user);
      this.userIdByEmail.set(user.email_lc, user._id);
    }
    return user;
  }

  private rememberChannel(channel: ChannelDoc | undefined): ChannelDoc | undefined {
    if (channel) {
      if (this.channelCache.get(channel._id) !== channel) this.everyChannel = undefined;
      this.channelCache.set(channel._id, channel);
      this.channelIdByName.set(channel.name_lc, channel._id);
    }
    return channel;
  }
}
export * from './user-groups';
export * from './announcements-channel';
export * from './realm-settings';
export { RealmEmojiBook } from './realm-emoji';
