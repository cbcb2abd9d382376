/**
 * Custom emoji commands: who may add is read from the organization's settings and the
 * groups (the decider gets the answer), the audience from the directory; the decision is
 * on the `realm_emoji` stream.
 */
import { apiRealmEmojiSet, streams, type Actor, type UploadedFile } from '@teamchat/contracts';
import type { Directory, RealmEmojiBook, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import type { AggregateRepository } from '@teamchat/platform';
import { isUserInGroupSetting } from '@teamchat/policies';
import { decideAddRealmEmoji, decideDeactivateRealmEmoji, type RealmEmojiState } from '../domain/realm-emoji';

export interface RealmEmojiDeps {
  directory: Directory;
  userGroups: UserGroups;
  realmSettings: RealmSettingsProjection;
  realmEmoji: AggregateRepository<RealmEmojiState>;
  book: RealmEmojiBook;
  maxEmojiFileSizeMib: number;
}

async function mayAdd(deps: RealmEmojiDeps, actor: Actor): Promise<boolean> {
  const user = await deps.directory.userById(actor.user_id);
  if (!user || !user.is_active) return false;
  const setting = (await deps.realmSettings.current()).can_add_custom_emoji_group;
  return isUserInGroupSetting(setting, { user_id: user._id, role: user.role, date_joined: user.date_joined }, Math.floor(Date.now() / 1000), await deps.userGroups.snapshot());
}

export async function addRealmEmoji(deps: RealmEmojiDeps, actor: Actor, emoji_name: string, file: UploadedFile) {
  const may_add = await mayAdd(deps, actor);
  const { append } = await deps.realmEmoji.execute(streams.realmEmoji, (state) => ({
    facts: decideAddRealmEmoji(state, {
      actor,
      emoji_name,
      file,
      may_add,
      maxBytes: deps.maxEmojiFileSizeMib * 1024 * 1024,
      maxMib: deps.maxEmojiFileSizeMib,
    }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export async function deactivateRealmEmoji(deps: RealmEmojiDeps, actor: Actor, emoji_name: string) {
  const may_add = await mayAdd(deps, actor);
  const { append } = await deps.realmEmoji.execute(streams.realmEmoji, (state) => ({
    facts: decideDeactivateRealmEmoji(state, { actor, emoji_name, may_add }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export async function realmEmojiState(book: RealmEmojiBook) {
  return apiRealmEmojiSet(await book.all());
}
