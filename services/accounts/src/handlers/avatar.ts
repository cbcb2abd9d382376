/**
 * The avatar endpoints: who may change theirs is read from the organization's settings and
 * the person's role as the directory has them (the decider gets the answer), who hears of
 * it from the directory; the decision is on the person's own `user_avatar` stream. The
 * file a change replaces is named in the reply for the gateway to delete, after the fact.
 */
import { avatarEndpoints as api, avatarStateOf, avatarUrlOf, badRequest, streams, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import type { Directory, RealmSettingsProjection } from '@teamchat/directory';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import { isAdministrator } from '@teamchat/policies';
import { decideDeleteAvatar, decideSetAvatar, type AvatarAggregate } from '../domain/avatar';

type Serve = ReturnType<typeof contractServer>;

export interface AvatarDeps {
  directory: Pick<Directory, 'userById' | 'activeUsers'>;
  realmSettings: Pick<RealmSettingsProjection, 'current'>;
  avatars: AggregateRepository<AvatarAggregate>;
  maxAvatarFileSizeMib: number;
}

/** The person as the directory has them, whether they may change their avatar, and who is told. */
async function contextOf(deps: AvatarDeps, actor: Actor) {
  const user = await deps.directory.userById(actor.user_id);
  if (!user || !user.is_active) throw badRequest('Authentication required');
  const disabled = (await deps.realmSettings.current()).avatar_changes_disabled;
  const active = await deps.directory.activeUsers();
  const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
  // A bot's administrators: the organization's and its owner, as its realm_bot events go.
  const botAudience = user.is_bot ? sorted(active.filter((u) => isAdministrator(u.role) || u._id === user.bot_owner_id).map((u) => u._id)) : undefined;
  return {
    user_id: user._id,
    email: user.email,
    may_change: !disabled || isAdministrator(user.role),
    ...(botAudience ? { bot_audience_user_ids: botAudience } : {}),
  };
}

async function change(deps: AvatarDeps, userId: number, decide: (state: AvatarAggregate) => Fact[]) {
  const { result, append } = await deps.avatars.execute(streams.userAvatar(userId), (state) => {
    const facts = decide(state);
    const fact = facts[0] as FactOf<'UserAvatarChanged'>;
    const replaced = state.file ? [state.file.blob_key] : [];
    return { facts, result: { avatar_url: avatarUrlOf(fact.email, avatarStateOf(fact)), removed_blobs: replaced } };
  });
  return { value: result, position: append?.positions.at(-1) };
}

export function avatarEndpoints(serve: Serve, deps: AvatarDeps): Promise<BusSubscription>[] {
  return [
    serve(api.setAvatar, async (params, { actor }) => {
      const context = await contextOf(deps, actor);
      const mib = deps.maxAvatarFileSizeMib;
      return change(deps, actor.user_id, (state) => decideSetAvatar(state, { ...context, file: params.file, maxBytes: mib * 1024 * 1024, maxMib: mib }));
    }),
    serve(api.deleteAvatar, async (_params, { actor }) => {
      const context = await contextOf(deps, actor);
      return change(deps, actor.user_id, (state) => decideDeleteAvatar(state, context));
    }),
  ];
}
