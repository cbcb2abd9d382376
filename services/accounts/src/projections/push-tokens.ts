/**
 * Accounts' read model of push tokens: one document per (user, kind, token), set or
 * deleted by each fact, so a replay or a duplicate writes the same state. Nothing reads
 * it over the API (Zulip shows no client its tokens); it is what a push sender would
 * look up, and what tells whether a user has a phone registered.
 */
import type { PushTokenKind } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import type { StoredPushToken } from '../domain/push-tokens';

interface PushTokenDoc extends Doc, StoredPushToken {
  _id: string;
  user_id: number;
}

const idOf = (userId: number, kind: PushTokenKind, token: string) => `${userId}:${kind}:${token}`;

export class PushTokensReadModel {
  private readonly collection: Collection<PushTokenDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<PushTokenDoc>('push_tokens', [{ fields: ['user_id'] }]);
  }

  readonly handlers = {
    PushTokenAdded: (fact) =>
      this.collection.put({
        _id: idOf(fact.user_id, fact.kind, fact.token),
        user_id: fact.user_id,
        kind: fact.kind,
        token: fact.token,
        ios_app_id: fact.ios_app_id,
        timestamp: fact.timestamp,
      }),
    PushTokenRemoved: (fact) => this.collection.delete(idOf(fact.user_id, fact.kind, fact.token)),
  } satisfies FactHandlers;

  /** The user's tokens, oldest first. */
  async of(userId: number): Promise<StoredPushToken[]> {
    const docs = await this.collection.find({ user_id: userId });
    return docs
      .map(({ kind, token, ios_app_id, timestamp }) => ({ kind, token, ios_app_id, timestamp }))
      .sort((a, b) => a.timestamp - b.timestamp);
  }
}
