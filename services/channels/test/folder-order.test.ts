/** Reordering channel folders (PATCH /channel_folders), given/when/then. */
import { describe, it } from '@jest/globals';
import { ROLE, type FactOf, type GroupMember } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideReorderFolders, evolveFolders, initialFolders, type FolderState, type ReorderFolders } from '../src/domain/folders';

const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: 1_600_000_000 });
const admin = person(2, ROLE.administrator);
const created = (folder_id: number): FactOf<'ChannelFolderCreated'> => ({
  type: 'ChannelFolderCreated',
  folder_id,
  name: `folder ${folder_id}`,
  description: '',
  rendered_description: '',
  order: folder_id,
  creator_id: 2,
  date_created: 1_700_000_000,
  audience_user_ids: [1, 2],
});
const archived: FactOf<'ChannelFolderUpdated'> = { type: 'ChannelFolderUpdated', folder_id: 3, is_archived: true, audience_user_ids: [1, 2] };
const folders = [created(1), created(2), created(3), archived];
const reordered = (order: number[]): FactOf<'ChannelFoldersReordered'> => ({ type: 'ChannelFoldersReordered', order, audience_user_ids: [1, 2] });
const spec = deciderSpec<FolderState, ReorderFolders>({ initial: initialFolders, evolve: evolveFolders, decide: (cmd, state) => decideReorderFolders(state, cmd) });
const reorder = (order: number[], actor = admin): ReorderFolders => ({ actor, order, audience_user_ids: [1, 2] });

describe('reordering channel folders', () => {
  it('records the new order of every folder, archived ones included', () => spec.given(folders).when(reorder([3, 1, 2])).then([reordered([3, 1, 2])]));

  it('records nothing when the order is already the current one', () => {
    spec.given([...folders, reordered([3, 1, 2])]).when(reorder([3, 1, 2])).then([]);
    // Created folders stand at their ids until reordered: 1, 2, 3 is not places 0, 1, 2.
    spec.given(folders).when(reorder([1, 2, 3])).then([reordered([1, 2, 3])]);
    spec.given([...folders, reordered([1, 2, 3])]).when(reorder([1, 2, 3])).then([]);
  });

  it('takes an empty list when there are no folders, and records nothing', () => spec.given([]).when(reorder([])).then([]));

  it.each([
    ['a missing folder', [1, 2]],
    ['a duplicate', [1, 2, 3, 3]],
    ['an unknown id', [1, 2, 3, 9]],
    ['an unknown id in place of one', [1, 2, 9]],
  ])('refuses %s', (_, order) => spec.given(folders).when(reorder(order)).thenThrows({ msg: 'Invalid order mapping.' }));

  it.each([
    ['a moderator', ROLE.moderator],
    ['a member', ROLE.member],
    ['a guest', ROLE.guest],
  ])('refuses %s', (_, role) => spec.given(folders).when(reorder([3, 1, 2], person(4, role))).thenThrows({ msg: 'Must be an organization administrator' }));
});
