/**
 * The custom user groups, projected from the accounts' group facts. Accounts answers its
 * group endpoints from it; every other service that decides permissions keeps the same
 * projection in its own read models (no service reads another's) and hands `snapshot()`
 * to the group-setting rules of @teamchat/policies.
 */
import { USER_GROUP_SETTINGS, type FactOf, type UserGroupSettings } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import { FULL_MEMBER_WAITING_PERIOD_DAYS, type DirectoryGroup, type GroupDirectory } from '@teamchat/policies';

export interface UserGroupDoc extends Doc, UserGroupSettings {
  _id: number;
  name: string;
  description: string;
  /** Direct members and direct subgroups, ascending. */
  members: number[];
  subgroup_ids: number[];
  creator_id: number | null;
  date_created: number;
  deactivated: boolean;
}

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/** A consistent, synchronous view of the groups as they stood when it was taken. */
class GroupSnapshot implements GroupDirectory {
  constructor(
    private readonly groups: ReadonlyMap<number, UserGroupDoc>,
    readonly waitingPeriodDays: number = FULL_MEMBER_WAITING_PERIOD_DAYS,
  ) {}

  group(id: number): DirectoryGroup | undefined {
    const doc = this.groups.get(id);
    return doc && { direct_members: doc.members, direct_subgroups: doc.subgroup_ids, deactivated: doc.deactivated };
  }

  doc(id: number): UserGroupDoc | undefined {
    return this.groups.get(id);
  }

  all(): UserGroupDoc[] {
    return [...this.groups.values()].sort((a, b) => a._id - b._id);
  }
}
export type { GroupSnapshot };

/** A snapshot of the given groups: what `UserGroups.snapshot()` returns, for pure callers and tests. */
export const groupSnapshotOf = (docs: readonly UserGroupDoc[], waitingPeriodDays?: number): GroupSnapshot =>
  new GroupSnapshot(new Map(docs.map((doc) => [doc._id, doc])), waitingPeriodDays);

/** Where the organization's waiting period is kept beside the groups (one document). */
interface WaitingPeriodDoc extends Doc {
  _id: string;
  days: number;
}

/**
 * Groups are few (an organization has tens, not thousands), so all of them are kept in
 * memory once read: permission checks resolve nested groups synchronously. This process's
 * projector is the only writer of the collection, so the memory copy never goes stale.
 */
export class UserGroups {
  private readonly collection: Collection<UserGroupDoc>;
  private readonly settings: Collection<WaitingPeriodDoc>;
  private loaded: Map<number, UserGroupDoc> | undefined;
  private waitingPeriodDays: number | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<UserGroupDoc>('dir_user_groups');
    this.settings = readModels.collection<WaitingPeriodDoc>('dir_full_members');
  }

  /** The projection: every write is a full put of the group the fact names, so a replay changes nothing. */
  readonly handlers = {
    UserGroupCreated: async (fact) => {
      const settings = Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, fact[name]])) as UserGroupSettings;
      await this.put({
        _id: fact.group_id,
        name: fact.name,
        description: fact.description,
        members: sorted(fact.members),
        subgroup_ids: sorted(fact.subgroup_ids),
        creator_id: fact.creator_id,
        date_created: fact.date_created,
        deactivated: false,
        ...settings,
      });
    },
    UserGroupUpdated: (fact) => this.change(fact.group_id, (doc) => ({ ...doc, ...fact.changes })),
    UserGroupMembersAdded: (fact) => this.change(fact.group_id, (doc) => ({ ...doc, members: sorted([...doc.members, ...fact.user_ids]) })),
    UserGroupMembersRemoved: (fact) => this.change(fact.group_id, (doc) => ({ ...doc, members: without(doc.members, fact.user_ids) })),
    UserGroupSubgroupsAdded: (fact) =>
      this.change(fact.group_id, (doc) => ({ ...doc, subgroup_ids: sorted([...doc.subgroup_ids, ...fact.subgroup_ids]) })),
    UserGroupSubgroupsRemoved: (fact) => this.change(fact.group_id, (doc) => ({ ...doc, subgroup_ids: without(doc.subgroup_ids, fact.subgroup_ids) })),
    UserGroupDeactivated: (fact: FactOf<'UserGroupDeactivated'>) => this.change(fact.group_id, (doc) => ({ ...doc, deactivated: true })),
    // Who is a full member follows the organization's waiting period (PATCH /realm).
    RealmSettingsChanged: async (fact: FactOf<'RealmSettingsChanged'>) => {
      const days = fact.changes.waiting_period_threshold;
      if (typeof days !== 'number') return;
      await this.settings.put({ _id: 'waiting_period_threshold', days });
      this.waitingPeriodDays = days;
    },
  } satisfies FactHandlers;

  /** Every custom group as it stands now, with the organization's waiting period. */
  async snapshot(): Promise<GroupSnapshot> {
    this.waitingPeriodDays ??= (await this.settings.get('waiting_period_threshold'))?.days ?? FULL_MEMBER_WAITING_PERIOD_DAYS;
    return new GroupSnapshot(new Map(await this.groups()), this.waitingPeriodDays);
  }

  private async groups(): Promise<Map<number, UserGroupDoc>> {
    if (!this.loaded) {
      const docs = await this.collection.find({});
      this.loaded ??= new Map(docs.map((doc) => [doc._id, doc]));
    }
    return this.loaded;
  }

  private async put(doc: UserGroupDoc): Promise<void> {
    await this.collection.put(doc);
    (await this.groups()).set(doc._id, doc);
  }

  private async change(id: number, update: (doc: UserGroupDoc) => UserGroupDoc): Promise<void> {
    const doc = (await this.groups()).get(id);
    if (doc) await this.put(update(doc));
  }
}

function without(ids: number[], gone: number[]): number[] {
  const drop = new Set(gone);
  return ids.filter((id) => !drop.has(id));
}
