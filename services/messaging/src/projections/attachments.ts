/**
 * Messaging's read model of uploaded files: one document per attachment with the
 * messages that claimed it (for downloads and GET /attachments), and the organization's
 * space used. Each case writes what its fact carries, so a replayed fact changes nothing.
 */
import type { StoredAttachment } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface AttachmentDoc extends Doc, StoredAttachment {
  _id: number;
  messages: { id: number; date_sent: number }[];
}

interface SpaceDoc extends Doc {
  _id: 'space';
  upload_space_used: number;
}

export class AttachmentsReadModel {
  readonly attachments: Collection<AttachmentDoc>;
  private readonly space: Collection<SpaceDoc>;

  constructor(readModels: ReadModelStore) {
    this.attachments = readModels.collection<AttachmentDoc>('attachments', [{ fields: ['path_id'] }, { fields: ['owner_id'] }]);
    this.space = readModels.collection<SpaceDoc>('attachment_space');
  }

  get collections(): { clear(): Promise<void> }[] {
    return [this.attachments, this.space];
  }

  private setSpace(bytes: number) {
    return this.space.put({ _id: 'space', upload_space_used: bytes });
  }

  readonly handlers = {
    AttachmentUploaded: async (fact) => {
      await this.attachments.put({ _id: fact.attachment.id, ...fact.attachment, messages: [] });
      await this.setSpace(fact.upload_space_used);
    },
    AttachmentClaimed: async (fact) => {
      await this.attachments.put({ _id: fact.attachment.id, ...fact.attachment, messages: fact.messages.map((m) => ({ ...m })) });
      await this.setSpace(fact.upload_space_used);
    },
    AttachmentReleased: async (fact) => {
      await this.attachments.put({ _id: fact.attachment.id, ...fact.attachment, messages: fact.messages.map((m) => ({ ...m })) });
      await this.setSpace(fact.upload_space_used);
    },
    AttachmentRemoved: async (fact) => {
      await this.attachments.delete(fact.attachment_id);
      await this.setSpace(fact.upload_space_used);
    },
  } satisfies FactHandlers;

  async byPath(pathId: string): Promise<AttachmentDoc | undefined> {
    const [doc] = await this.attachments.find({ path_id: pathId }, { limit: 1 });
    return doc;
  }

  async ownedBy(userId: number): Promise<AttachmentDoc[]> {
    return this.attachments.find({ owner_id: userId }, { sort: ['_id', 1] });
  }

  async spaceUsed(): Promise<number> {
    return (await this.space.get('space'))?.upload_space_used ?? 0;
  }
}
