/**
 * When each user last did something the store records (sent a message, reacted, changed
 * flags or topic visibility, changed a subscription setting): what "active in the last 14
 * days" means for `partial_subscribers`, as no login or presence is stored. Idempotent:
 * the latest commit time wins, so a replay changes nothing. Kept to the hour: a busy user
 * costs one write an hour, not one per message, and a 14-day window needs no finer grain.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore, StoredFact } from '@teamchat/platform';

const GRAIN_MS = 3600 * 1000;

interface ActivityDoc extends Doc {
  _id: number;
  last_active: number;
}

export class UserActivity {
  readonly collection: Collection<ActivityDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<ActivityDoc>('user_activity', [], { cacheSize: 10_000 });
  }

  readonly handlers = {
    MessageSent: (fact, stored) => this.saw(fact.sender_id, stored),
    ReactionAdded: (fact, stored) => this.saw(fact.user_id, stored),
    MessageFlagsUpdated: (fact, stored) => this.saw(fact.user_id, stored),
    UserTopicUpdated: (fact, stored) => this.saw(fact.user_id, stored),
    SubscriptionPropertyUpdated: (fact, stored) => this.saw(fact.user_id, stored),
  } satisfies FactHandlers;

  private async saw(userId: number, stored: StoredFact): Promise<void> {
    const doc = await this.collection.get(userId);
    if (doc && doc.last_active + GRAIN_MS > stored.created) return;
    await this.collection.put({ _id: userId, last_active: stored.created });
  }

  /**
   * Each user's last activity at the latest (absent: none recorded): what was recorded plus
   * the grain, so that nobody active within a window is left out of it.
   */
  async all(): Promise<Map<number, number>> {
    return new Map((await this.collection.find({})).map((d) => [d._id, d.last_active + GRAIN_MS]));
  }
}
