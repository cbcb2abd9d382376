/**
 * Whom each user muted, from messaging's own UserMuted/UserUnmuted facts: register's
 * `muted_users` section, and, at every send, who muted the sender (their copy arrives
 * read). Held in memory once loaded, by muted user, since every send asks; few users
 * mute anyone. Idempotent: each fact carries the whole list, which is put as it is.
 */
import type { MutedUserEntry } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface MutedUsersDoc extends Doc {
  /** The muting user. */
  _id: number;
  muted_users: MutedUserEntry[];
}

export class MutedUsersBook {
  readonly collection: Collection<MutedUsersDoc>;
  /** Muted user id → the users who muted them; undefined until loaded. */
  private muters: Map<number, Set<number>> | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<MutedUsersDoc>('muted_users');
  }

  readonly handlers = {
    UserMuted: (fact) => this.put(fact.user_id, fact.muted_users),
    UserUnmuted: (fact) => this.put(fact.user_id, fact.muted_users),
  } satisfies FactHandlers;

  private async put(userId: number, list: MutedUserEntry[]): Promise<void> {
    const before = (await this.collection.get(userId))?.muted_users ?? [];
    await this.collection.put({ _id: userId, muted_users: list });
    if (!this.muters) return;
    for (const { id } of before) this.muters.get(id)?.delete(userId);
    for (const { id } of list) this.muters.set(id, (this.muters.get(id) ?? new Set()).add(userId));
  }

  /** Reads the lists as projected so far; called before the projector starts, which then keeps them current. */
  async load(): Promise<void> {
    const muters = new Map<number, Set<number>>();
    for (const doc of await this.collection.find({})) {
      for (const { id } of doc.muted_users) muters.set(id, (muters.get(id) ?? new Set()).add(doc._id));
    }
    this.muters = muters;
  }

  /** Everyone the user muted, oldest mute first (register's `muted_users`). */
  async of(userId: number): Promise<MutedUserEntry[]> {
    return ((await this.collection.get(userId))?.muted_users ?? []).map(({ id, timestamp }) => ({ id, timestamp }));
  }

  /** The users who muted `userId` now. */
  mutersOf(userId: number): ReadonlySet<number> {
    return this.muters?.get(userId) ?? new Set();
  }
}
