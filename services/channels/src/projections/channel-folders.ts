/**
 * The channel folders as clients see them (GET /channel_folders, POST /register's
 * `channel_folders`). Idempotent: every write is a full put keyed by the folder id.
 */
import type { ApiChannelFolder } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

type Folder = ApiChannelFolder;
interface FolderDoc extends Doc, Omit<Folder, 'id'> {
  _id: number;
}

export class ChannelFolders {
  private readonly docs: Collection<FolderDoc>;

  constructor(readModels: ReadModelStore) {
    this.docs = readModels.collection<FolderDoc>('channel_folders', []);
  }

  readonly handlers = {
    ChannelFolderCreated: ({ folder_id, name, description, rendered_description, order, date_created, creator_id }) =>
      this.docs.put({ _id: folder_id, name, description, rendered_description, order, date_created, creator_id, is_archived: false }),
    ChannelFolderUpdated: async ({ folder_id, audience_user_ids: _audience, type: _type, ...changes }) => {
      const doc = await this.docs.get(folder_id);
      if (doc) await this.docs.put({ ...doc, ...changes });
    },
    ChannelFoldersReordered: async ({ order }) => {
      for (const [index, folderId] of order.entries()) {
        const doc = await this.docs.get(folderId);
        if (doc && doc.order !== index) await this.docs.put({ ...doc, order: index });
      }
    },
  } satisfies FactHandlers;

  /** Every folder in its order (archived ones only when asked). */
  async all(includeArchived: boolean): Promise<Folder[]> {
    const docs = await this.docs.find({});
    return docs
      .filter((d) => includeArchived || !d.is_archived)
      .sort((a, b) => a.order - b.order || a._id - b._id)
      .map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }
}
