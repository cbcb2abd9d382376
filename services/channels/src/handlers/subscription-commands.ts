/**
 * Command handlers around subscriptions, default channels and folders: look up what the
 * deciders need, decide, append.
 */
import { badRequest, streams, type Actor, type ChannelFolderUpdateParams, type UnsubscribeParams, type UpdateSubscriptionPropertiesParams } from '@teamchat/contracts';
import type { Directory, UserDoc, UserGroups } from '@teamchat/directory';
import { renderMarkdown } from '@teamchat/markdown';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import { decideDefaultChannel } from '../domain/default-channels';
import { decideCreateFolder, decideReorderFolders, decideUpdateFolder, validateFolderDescription, type FolderState } from '../domain/folders';
import type { RegistryState } from '../domain/registry';
import { decideSubscriptionProperties, type PropertyChange } from '../domain/subscription-properties';
import type { ChannelState } from '../domain/subscriptions';
import { decideUnsubscribe, decideUnsubscribeRequest } from '../domain/unsubscribe';
import { activeActor, principalIds, type KnownUser } from '../domain/users';

export interface SubscriptionCommandDeps {
  directory: Directory;
  /** The custom user groups, which channel group-settings may name. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  registry: AggregateRepository<RegistryState>;
  channels: AggregateRepository<ChannelState>;
  folders: AggregateRepository<FolderState>;
  caughtUp: (position: number | undefined) => Promise<void>;
}

const known = (user: UserDoc): KnownUser => ({ user_id: user._id, role: user.role, date_joined: user.date_joined, is_active: user.is_active });
const lastPosition = (append: AppendResult | undefined) => append?.positions.at(-1);

async function actorMember(deps: SubscriptionCommandDeps, actor: Actor) {
  const user = await deps.directory.userById(actor.user_id);
  return activeActor(user && known(user));
}

const organization = async (deps: SubscriptionCommandDeps) =>
  (await deps.directory.activeUsers()).map((u) => ({ user_id: u._id, role: u.role, date_joined: u.date_joined }));

/**
 * The users a request names, by id or email (the actor when it names nobody). Unlike
 * subscribing, a deactivated user may be removed from channels.
 */
async function namedUsers(deps: SubscriptionCommandDeps, actorId: number, named: UnsubscribeParams['principals']): Promise<number[]> {
  if (!named || named.length === 0) return [actorId];
  const found: (KnownUser | undefined)[] = [];
  for (const principal of named) {
    const user = typeof principal === 'number' ? await deps.directory.userById(principal) : await deps.directory.userByEmail(principal.trim());
    found.push(user && { ...known(user), is_active: true });
  }
  return principalIds(found);
}

/** DELETE /users/me/subscriptions. */
export async function unsubscribe(deps: SubscriptionCommandDeps, actor: Actor, params: UnsubscribeParams) {
  const me = await actorMember(deps, actor);
  const userIds = await namedUsers(deps, me.user_id, params.principals);
  const actorChannels = new Set(await deps.directory.subscribedChannelIds(me.user_id));
  const { state } = await deps.registry.load(streams.channelRegistry);
  const groups = await deps.userGroups.snapshot();
  const channels = decideUnsubscribeRequest(state, {
    actor: me,
    names: params.subscriptions,
    principal_ids: userIds,
    actor_channel_ids: actorChannels,
    groups,
    now: Date.now(),
  });
  const users = await organization(deps);
  const removed: string[] = [];
  const notRemoved: string[] = [];
  let position: number | undefined;
  for (const channel of channels) {
    const { result, append } = await deps.channels.execute(streams.channel(channel.channel_id), (current) => {
      const facts = decideUnsubscribe(current, { channel, user_ids: userIds, users, groups, now: Date.now() });
      return { facts, result: new Set(facts[0]?.user_ids ?? []) };
    });
    // Zulip answers per channel (not per user): removed if any named user left it.
    (userIds.some((id) => result.has(id)) ? removed : notRemoved).push(channel.name);
    position = lastPosition(append) ?? position;
  }
  await deps.caughtUp(position);
  return { value: { removed, not_removed: notRemoved }, position };
}

/** POST /users/me/subscriptions/properties: each channel's changes on its own stream. */
export async function updateSubscriptionProperties(deps: SubscriptionCommandDeps, actor: Actor, params: UpdateSubscriptionPropertiesParams) {
  const me = await actorMember(deps, actor);
  const byChannel = new Map<number, PropertyChange[]>();
  for (const change of params.subscription_data) byChannel.set(change.stream_id, [...(byChannel.get(change.stream_id) ?? []), { ...change, channel_id: change.stream_id }]);
  // Every channel is checked before any change is made, so a refusal changes nothing.
  const { state: registry } = await deps.registry.load(streams.channelRegistry);
  for (const [channelId, changes] of byChannel) {
    const channel = registry.channels.get(channelId);
    const { state } = await deps.channels.load(streams.channel(channelId));
    // As Zulip: a channel the user may not access is unknown; one they may, but left, is "not subscribed".
    if (!channel || (channel.invite_only && !state.subscribers.has(me.user_id))) throw badRequest('Invalid channel ID');
    decideSubscriptionProperties(state, { user_id: me.user_id, channel_id: channelId, changes });
  }
  let position: number | undefined;
  for (const [channelId, changes] of byChannel) {
    const { append } = await deps.channels.execute(streams.channel(channelId), (state) => ({
      facts: decideSubscriptionProperties(state, { user_id: me.user_id, channel_id: channelId, changes }),
      result: undefined,
    }));
    position = lastPosition(append) ?? position;
  }
  await deps.caughtUp(position);
  return { value: { subscription_data: params.subscription_data }, position };
}

/** POST and DELETE /default_streams. */
export async function setDefaultChannel(deps: SubscriptionCommandDeps, actor: Actor, channelId: number, isDefault: boolean) {
  const me = await actorMember(deps, actor);
  const [users, subscriberIds, groups] = await Promise.all([organization(deps), deps.directory.subscriberIds(channelId), deps.userGroups.snapshot()]);
  const { append } = await deps.registry.execute(streams.channelRegistry, (state) => ({
    facts: decideDefaultChannel(state, {
      actor: me,
      channel_id: channelId,
      is_default: isDefault,
      subscribed: subscriberIds.includes(me.user_id),
      subscriber_ids: subscriberIds,
      users,
      groups,
      now: Date.now(),
    }),
    result: undefined,
  }));
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return position;
}

/** POST /channel_folders/create. */
export async function createFolder(deps: SubscriptionCommandDeps, actor: Actor, params: { name: string; description: string }) {
  const me = await actorMember(deps, actor);
  const description = validateFolderDescription(params.description);
  const audience = (await organization(deps)).map((u) => u.user_id).sort((a, b) => a - b);
  const { result: folderId, append } = await deps.folders.execute(streams.channelFolders, (state) => {
    const facts = decideCreateFolder(state, {
      actor: me,
      name: params.name,
      description,
      rendered_description: renderMarkdown(description),
      audience_user_ids: audience,
      now: Date.now(),
    });
    return { facts, result: facts[0]!.folder_id };
  });
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return { value: { channel_folder_id: folderId }, position };
}

/** PATCH /channel_folders/{channel_folder_id}. */
export async function updateFolder(deps: SubscriptionCommandDeps, actor: Actor, params: ChannelFolderUpdateParams) {
  const me = await actorMember(deps, actor);
  const description = params.description !== undefined ? validateFolderDescription(params.description) : undefined;
  const audience = (await organization(deps)).map((u) => u.user_id).sort((a, b) => a - b);
  const inFolder = (await deps.directory.allChannels()).filter((c) => c.folder_id === params.channel_folder_id && !c.is_archived).length;
  const { append } = await deps.folders.execute(streams.channelFolders, (state) => ({
    facts: decideUpdateFolder(state, {
      actor: me,
      folder_id: params.channel_folder_id,
      ...(params.name !== undefined ? { name: params.name } : {}),
      ...(description !== undefined ? { description, rendered_description: renderMarkdown(description) } : {}),
      ...(params.is_archived !== undefined ? { is_archived: params.is_archived } : {}),
      active_channels_in_folder: inFolder,
      audience_user_ids: audience,
    }),
    result: undefined,
  }));
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return position;
}

/** PATCH /channel_folders: every folder's new place. */
export async function reorderFolders(deps: SubscriptionCommandDeps, actor: Actor, order: number[]) {
  const me = await actorMember(deps, actor);
  const audience = (await organization(deps)).map((u) => u.user_id).sort((a, b) => a - b);
  const { append } = await deps.folders.execute(streams.channelFolders, (state) => ({
    facts: decideReorderFolders(state, { actor: me, order, audience_user_ids: audience }),
    result: undefined,
  }));
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return position;
}
