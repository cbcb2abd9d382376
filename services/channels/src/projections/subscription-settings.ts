/**
 * Each subscriber's own settings for each channel (color, muting, pinning,
 * notifications), as they changed them: the subscription records of GET
 * /users/me/subscriptions and POST /register. Kept when a user leaves, as Zulip keeps
 * them for a later return. Idempotent: every write is a full put of the setting's value.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export type SubscriptionSettings = Readonly<Record<string, boolean | string | null>>;

interface SettingsDoc extends Doc {
  /** `${channel_id}:${user_id}` */
  _id: string;
  user_id: number;
  settings: SubscriptionSettings;
}

export class SubscriptionSettingsModel {
  private readonly docs: Collection<SettingsDoc>;

  constructor(readModels: ReadModelStore) {
    this.docs = readModels.collection<SettingsDoc>('subscription_settings', [{ fields: ['user_id'] }]);
  }

  readonly handlers = {
    SubscriptionPropertyUpdated: async ({ channel_id, user_id, property, value }) => {
      const id = `${channel_id}:${user_id}`;
      const doc = await this.docs.get(id);
      await this.docs.put({ _id: id, user_id, settings: { ...doc?.settings, [property]: value } });
    },
  } satisfies FactHandlers;

  /** The user's changed settings by channel id. */
  async ofUser(userId: number): Promise<Map<number, SubscriptionSettings>> {
    const docs = await this.docs.find({ user_id: userId });
    return new Map(docs.map((d) => [Number(d._id.split(':')[0]), d.settings]));
  }
}
