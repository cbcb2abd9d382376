/**
 * Accounts' read models of user statuses and custom profile fields and values, for
 * POST /register, GET /users/{id}/status and GET /realm/profile_fields. Every write is a
 * full put of what the fact leaves, so a replay changes nothing.
 */
import type { ApiProfileField, ApiUserStatus } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface StatusValues {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: NonNullable<ApiUserStatus['reaction_type']>;
}

interface StatusDoc extends Doc {
  _id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: NonNullable<ApiUserStatus['reaction_type']>;
}

interface FieldsDoc extends Doc {
  _id: 'fields';
  fields: ApiProfileField[];
}

interface ValuesDoc extends Doc {
  _id: number;
  /** Field id → stored value. */
  values: Record<string, string>;
}

/** A status as the API shows it: only what is set. */
export function apiStatusOf(status: StatusValues | undefined): ApiUserStatus {
  if (!status) return {};
  return {
    ...(status.status_text !== '' ? { status_text: status.status_text } : {}),
    ...(status.emoji_name !== '' ? { emoji_name: status.emoji_name, emoji_code: status.emoji_code, reaction_type: status.reaction_type } : {}),
  };
}

export class OrgReadModel {
  private readonly statuses: Collection<StatusDoc>;
  private readonly fieldDocs: Collection<FieldsDoc>;
  private readonly values: Collection<ValuesDoc>;

  constructor(readModels: ReadModelStore) {
    this.statuses = readModels.collection<StatusDoc>('org_user_status');
    this.fieldDocs = readModels.collection<FieldsDoc>('org_profile_fields');
    this.values = readModels.collection<ValuesDoc>('org_profile_values');
  }

  readonly handlers = {
    UserStatusChanged: async (fact) => {
      const { user_id, status_text, emoji_name, emoji_code, reaction_type } = fact;
      await this.statuses.put({ _id: user_id, status_text, emoji_name, emoji_code, reaction_type });
    },
    CustomProfileFieldsChanged: async (fact) => {
      await this.fieldDocs.put({ _id: 'fields', fields: fact.fields });
      if (fact.deleted_field_id === undefined) return;
      const key = String(fact.deleted_field_id);
      for (const doc of await this.values.find({})) {
        if (!Object.hasOwn(doc.values, key)) continue;
        const { [key]: _gone, ...rest } = doc.values;
        await this.values.put({ _id: doc._id, values: rest });
      }
    },
    CustomProfileDataChanged: async (fact) => {
      const values = { ...((await this.values.get(fact.user_id))?.values ?? {}) };
      for (const { id, value } of fact.changes) {
        if (value === null) delete values[String(id)];
        else values[String(id)] = value;
      }
      await this.values.put({ _id: fact.user_id, values });
    },
  } satisfies FactHandlers;

  async status(userId: number): Promise<ApiUserStatus> {
    return apiStatusOf(await this.statuses.get(userId));
  }

  /** Every user with a status, keyed by user id (register's `user_status`). */
  async allStatuses(): Promise<Record<string, ApiUserStatus>> {
    const result: Record<string, ApiUserStatus> = {};
    for (const doc of await this.statuses.find({})) {
      const status = apiStatusOf(doc);
      if (Object.keys(status).length > 0) result[String(doc._id)] = status;
    }
    return result;
  }

  /** The fields in display order. */
  async fields(): Promise<ApiProfileField[]> {
    const fields = (await this.fieldDocs.get('fields'))?.fields ?? [];
    return [...fields].sort((a, b) => a.order - b.order || a.id - b.id);
  }

  /** Every user's values (user id → field id → value). */
  async allValues(): Promise<Map<number, Record<string, string>>> {
    return new Map((await this.values.find({})).map((doc) => [doc._id, doc.values]));
  }
}
