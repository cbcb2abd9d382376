/**
 * Which channels each user muted, from the channels service's subscription-property facts
 * (`is_muted`; `in_home_view` is stored as its inverse): what Zulip's unread count leaves
 * out. Messaging keeps its own copy, as no service reads another's read models.
 * Idempotent: every write is a full put of the latest value.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface MutedDoc extends Doc {
  /** `${channel_id}:${user_id}` */
  _id: string;
  user_id: number;
  channel_id: number;
  muted: boolean;
}

export class MutedChannels {
  readonly collection: Collection<MutedDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<MutedDoc>('muted_channels', [{ fields: ['user_id', 'muted'] }]);
  }

  readonly handlers = {
    SubscriptionPropertyUpdated: async ({ channel_id, user_id, property, value }) => {
      if (property !== 'is_muted') return;
      await this.collection.put({ _id: `${channel_id}:${user_id}`, user_id, channel_id, muted: value === true });
    },
  } satisfies FactHandlers;

  /** The channels the user muted (subscribed to now or not: the caller decides). */
  async of(userId: number): Promise<Set<number>> {
    return new Set((await this.collection.find({ user_id: userId, muted: true })).map((d) => d.channel_id));
  }
}
