/**
 * Channel folders: one stream allocates their ids, keeps their names unique and holds
 * whether each is archived. Only organization administrators create and change them, as
 * in Zulip; every active user is told of them.
 */
import { badRequest, type Fact, type FactOf, type GroupMember } from '@teamchat/contracts';
import { codePointLength, isAdministrator } from '@teamchat/policies';
import { seconds } from './registry';

/** Zulip's ChannelFolder.MAX_NAME_LENGTH and MAX_DESCRIPTION_LENGTH. */
export const FOLDER_NAME_MAX = 60;
export const FOLDER_DESCRIPTION_MAX = 1024;

export interface FolderView {
  folder_id: number;
  name: string;
  is_archived: boolean;
}

export interface FolderState {
  lastFolderId: number;
  folders: Map<number, FolderView>;
  /** Each folder's `order`: its id at creation, its place in the list once reordered. */
  order: ReadonlyMap<number, number>;
}

export const initialFolders = (): FolderState => ({ lastFolderId: 0, folders: new Map(), order: new Map() });

export function evolveFolders(state: FolderState, fact: Fact): FolderState {
  switch (fact.type) {
    case 'ChannelFolderCreated':
      return {
        lastFolderId: Math.max(state.lastFolderId, fact.folder_id),
        folders: new Map(state.folders).set(fact.folder_id, { folder_id: fact.folder_id, name: fact.name, is_archived: false }),
        order: new Map(state.order).set(fact.folder_id, fact.order),
      };
    case 'ChannelFoldersReordered': {
      const order = new Map(state.order);
      fact.order.forEach((folderId, index) => order.set(folderId, index));
      return { ...state, order };
    }
    case 'ChannelFolderUpdated': {
      const before = state.folders.get(fact.folder_id);
      if (!before) return state;
      const after = { ...before, ...(fact.name !== undefined ? { name: fact.name } : {}), ...(fact.is_archived !== undefined ? { is_archived: fact.is_archived } : {}) };
      return { ...state, folders: new Map(state.folders).set(fact.folder_id, after) };
    }
    default:
      return state;
  }
}

export function validateFolderName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw badRequest("Channel folder name can't be empty.");
  if (codePointLength(name) > FOLDER_NAME_MAX) throw badRequest(`Channel folder name too long (limit: ${FOLDER_NAME_MAX} characters)`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest('Invalid character in channel folder name');
  return name;
}

export function validateFolderDescription(raw: string): string {
  const description = raw.replace(/\r?\n/g, ' ');
  if (codePointLength(description) > FOLDER_DESCRIPTION_MAX) throw badRequest('Channel folder description too long');
  return description;
}

function checkAdministrator(actor: GroupMember): void {
  if (!isAdministrator(actor.role)) throw badRequest('Must be an organization administrator');
}

function checkNameFree(state: FolderState, name: string, except?: number): void {
  const lower = name.toLowerCase();
  for (const folder of state.folders.values()) {
    if (folder.folder_id !== except && folder.name.toLowerCase() === lower) throw badRequest(`Channel folder name already in use`);
  }
}

export interface CreateFolder {
  actor: GroupMember;
  name: string;
  /** Normalized by validateFolderDescription and rendered by the caller. */
  description: string;
  rendered_description: string;
  /** Every active user. */
  audience_user_ids: number[];
  now: number;
}

export function decideCreateFolder(state: FolderState, cmd: CreateFolder): FactOf<'ChannelFolderCreated'>[] {
  checkAdministrator(cmd.actor);
  const name = validateFolderName(cmd.name);
  checkNameFree(state, name);
  const folderId = state.lastFolderId + 1;
  return [
    {
      type: 'ChannelFolderCreated',
      folder_id: folderId,
      name,
      description: validateFolderDescription(cmd.description),
      rendered_description: cmd.rendered_description,
      // New folders go last, as Zulip orders them by creation until reordered.
      order: folderId,
      creator_id: cmd.actor.user_id,
      date_created: seconds(cmd.now),
      audience_user_ids: cmd.audience_user_ids,
    },
  ];
}

export interface UpdateFolder {
  actor: GroupMember;
  folder_id: number;
  name?: string;
  description?: string;
  rendered_description?: string;
  is_archived?: boolean;
  /** How many channels not archived are in the folder: a folder in use cannot be archived. */
  active_channels_in_folder: number;
  audience_user_ids: number[];
}

export function decideUpdateFolder(state: FolderState, cmd: UpdateFolder): FactOf<'ChannelFolderUpdated'>[] {
  checkAdministrator(cmd.actor);
  const folder = state.folders.get(cmd.folder_id);
  if (!folder) throw badRequest('Invalid channel folder ID');
  if (cmd.name === undefined && cmd.description === undefined && cmd.is_archived === undefined) throw badRequest('No new data supplied');
  const fact: FactOf<'ChannelFolderUpdated'> = { type: 'ChannelFolderUpdated', folder_id: folder.folder_id, audience_user_ids: cmd.audience_user_ids };
  if (cmd.name !== undefined) {
    const name = validateFolderName(cmd.name);
    if (name !== folder.name) {
      checkNameFree(state, name, folder.folder_id);
      fact.name = name;
    }
  }
  if (cmd.description !== undefined) {
    fact.description = validateFolderDescription(cmd.description);
    fact.rendered_description = cmd.rendered_description ?? '';
  }
  if (cmd.is_archived !== undefined && cmd.is_archived !== folder.is_archived) {
    if (cmd.is_archived && cmd.active_channels_in_folder > 0) throw badRequest('You need to remove all the channels from this folder to archive it.');
    fact.is_archived = cmd.is_archived;
  }
  const changed = fact.name !== undefined || fact.description !== undefined || fact.is_archived !== undefined;
  return changed ? [fact] : [];
}

export interface ReorderFolders {
  actor: GroupMember;
  /** Every folder's id (archived ones too), in the new order. */
  order: number[];
  audience_user_ids: number[];
}

/**
 * Reorders the folders: the list must name every folder exactly once. Zulip checks only
 * that none is missing; a duplicate or unknown id is refused here too, since the client
 * that sends one has a view of the folders that is not the server's.
 */
export function decideReorderFolders(state: FolderState, cmd: ReorderFolders): FactOf<'ChannelFoldersReordered'>[] {
  checkAdministrator(cmd.actor);
  const named = new Set(cmd.order);
  const invalid = named.size !== cmd.order.length || cmd.order.some((id) => !state.folders.has(id)) || [...state.folders.keys()].some((id) => !named.has(id));
  if (invalid) throw badRequest('Invalid order mapping.');
  if (cmd.order.every((id, index) => state.order.get(id) === index)) return [];
  return [{ type: 'ChannelFoldersReordered', order: cmd.order, audience_user_ids: cmd.audience_user_ids }];
}

/** A channel's folder must exist and not be archived; null takes the channel out of its folder. */
export function checkFolder(folders: ReadonlyMap<number, FolderView> | undefined, folderId: number | null): number | null {
  if (folderId === null) return null;
  const folder = folders?.get(folderId);
  if (!folder || folder.is_archived) throw badRequest('Invalid channel folder ID');
  return folderId;
}
