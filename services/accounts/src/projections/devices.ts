/**
 * Accounts' read model of logged-in devices: one document per device, set from each fact
 * (a replayed fact writes the same values), read by user for register's `devices`.
 */
import type { StoredDevice } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import { NEW_DEVICE } from '../domain/devices';

interface DeviceDoc extends Doc, StoredDevice {
  _id: number;
  user_id: number;
}

export class DevicesReadModel {
  private readonly collection: Collection<DeviceDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<DeviceDoc>('devices', [{ fields: ['user_id'] }]);
  }

  readonly handlers = {
    DeviceRegistered: (fact) => this.collection.put({ _id: fact.device_id, user_id: fact.user_id, ...NEW_DEVICE }),
    DevicePushRegistrationChanged: async (fact) => {
      const current = await this.collection.get(fact.device_id);
      if (current) await this.collection.put({ ...current, ...fact.changes });
    },
    DeviceRemoved: (fact) => this.collection.delete(fact.device_id),
  } satisfies FactHandlers;

  /** Register's `devices`: the user's devices by id. */
  async of(userId: number): Promise<Record<string, StoredDevice>> {
    const docs = await this.collection.find({ user_id: userId }, { sort: ['_id', 1] });
    return Object.fromEntries(
      docs.map((d) => [
        String(d._id),
        {
          push_key_id: d.push_key_id,
          push_token_id: d.push_token_id,
          pending_push_token_id: d.pending_push_token_id,
          push_token_last_updated_timestamp: d.push_token_last_updated_timestamp,
          push_registration_error_code: d.push_registration_error_code,
        },
      ]),
    );
  }
}
