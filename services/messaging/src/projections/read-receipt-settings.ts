/**
 * Messaging's own copy of each user's send_read_receipts setting, from accounts'
 * UserSettingChanged facts (no service reads another's read models), so that a read
 * receipt leaves out whoever turned it off. Only users who changed it have a document;
 * everyone else has Zulip's default (on).
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface ReadReceiptSettingDoc extends Doc {
  _id: number;
  send_read_receipts: boolean;
}

export class ReadReceiptSettings {
  readonly collection: Collection<ReadReceiptSettingDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<ReadReceiptSettingDoc>('read_receipt_settings');
  }

  readonly handlers = {
    UserSettingChanged: async (fact) => {
      if (fact.property !== 'send_read_receipts' || typeof fact.value !== 'boolean') return;
      await this.collection.put({ _id: fact.user_id, send_read_receipts: fact.value });
    },
  } satisfies FactHandlers;

  async sendsReadReceipts(userId: number): Promise<boolean> {
    return (await this.collection.get(userId))?.send_read_receipts ?? true;
  }
}
