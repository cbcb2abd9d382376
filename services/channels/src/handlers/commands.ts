/** Command handlers: look up what the deciders need, decide, append. */
import {
  CHANNEL_GROUP_SETTINGS,
  channelFromCreated,
  streams,
  type Actor,
  type ChannelGroupSettings,
  type ChannelView,
  type GroupMember,
  type SubscribeParams,
  type UpdateChannelParams,
} from '@teamchat/contracts';
import type { Directory, UserDoc, UserGroups } from '@teamchat/directory';
import { renderMarkdown } from '@teamchat/markdown';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import type { OrganizationPolicy } from '@teamchat/policies';
import { decideArchiveChannel } from '../domain/archive-channel';
import { normalizeDescription } from '../domain/channel-values';
import { decideCreateChannels, type ChannelCreation, type NewChannel } from '../domain/create-channels';
import type { FolderState } from '../domain/folders';
import type { RegistryState } from '../domain/registry';
import { alreadySubscribed, decideSubscribe, decideSubscribeRequest, type ChannelState } from '../domain/subscriptions';
import { decideUpdateChannel } from '../domain/update-channel';
import { activeActor, checkInitialSubscribers, principalIds, type KnownUser } from '../domain/users';
import type { ChannelMessages } from '../projections/channel-messages';

export interface CommandDeps {
  directory: Directory;
  /** The custom user groups, which channel group-settings may name. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  messages: ChannelMessages;
  registry: AggregateRepository<RegistryState>;
  channels: AggregateRepository<ChannelState>;
  folders: AggregateRepository<FolderState>;
  /** Resolves once the service's own read models show this position. */
  caughtUp: (position: number | undefined) => Promise<void>;
  /**
   * Asks messaging to announce a new channel (as the notification bot, in the organization's
   * announcements channel) once it has seen `after`; the announcement's position, if any.
   */
  announce: (channelId: number, creatorId: number, after: number | undefined) => Promise<number | undefined>;
  /** The organization's current policy, from this service's projection of its settings. */
  policy(): Promise<OrganizationPolicy>;
}

const known = (user: UserDoc): KnownUser => ({ user_id: user._id, role: user.role, date_joined: user.date_joined, is_active: user.is_active });
const member = (user: UserDoc): GroupMember => ({ user_id: user._id, role: user.role, date_joined: user.date_joined });
const lastPosition = (append: AppendResult | undefined) => append?.positions.at(-1);

async function actorMember(deps: CommandDeps, actor: Actor): Promise<GroupMember> {
  const user = await deps.directory.userById(actor.user_id);
  return activeActor(user && known(user));
}

export const organization = async (deps: CommandDeps) => (await deps.directory.activeUsers()).map(member);

function newChannel(name: string, description: string): NewChannel {
  const normalized = normalizeDescription(description);
  return { name, description: normalized, rendered_description: renderMarkdown(normalized) };
}

/** The group-settings a request names, and only those. */
function requestedGroupSettings(params: SubscribeParams): Partial<ChannelGroupSettings> {
  const settings: Partial<ChannelGroupSettings> = {};
  for (const name of CHANNEL_GROUP_SETTINGS) if (params[name] !== undefined) settings[name] = params[name];
  return settings;
}

/** Adds subscribers to one channel; returns who was added and who already was. */
export async function addSubscribers(deps: CommandDeps, channel: ChannelView, userIds: number[], users: GroupMember[]) {
  const [firstMessageId, groups] = await Promise.all([deps.messages.firstMessageId(channel.channel_id), deps.userGroups.snapshot()]);
  return deps.channels.execute(streams.channel(channel.channel_id), (state) => {
    const facts = decideSubscribe(state, { channel, user_ids: userIds, users, groups, first_message_id: firstMessageId, now: Date.now() });
    return { facts, result: { added: facts[0]?.user_ids ?? [], already: alreadySubscribed(state, userIds) } };
  });
}

/** The users a request names, by id or email (the actor when it names nobody). */
async function principals(deps: CommandDeps, actor: GroupMember, named: SubscribeParams['principals']): Promise<number[]> {
  if (!named || named.length === 0) return [actor.user_id];
  const found: (KnownUser | undefined)[] = [];
  for (const principal of named) {
    const user = typeof principal === 'number' ? await deps.directory.userById(principal) : await deps.directory.userByEmail(principal.trim());
    found.push(user && known(user));
  }
  return principalIds(found);
}

/** POST /users/me/subscriptions. */
export async function subscribe(deps: CommandDeps, actor: Actor, params: SubscribeParams) {
  const me = await actorMember(deps, actor);
  const users = await organization(deps);
  const principalIds = await principals(deps, me, params.principals);
  const settings: ChannelCreation = {
    invite_only: params.invite_only ?? false,
    is_web_public: params.is_web_public ?? false,
    is_default: params.is_default ?? false,
    history_public_to_subscribers: params.history_public_to_subscribers,
    message_retention_days: params.message_retention_days,
    topics_policy: params.topics_policy,
    folder_id: params.folder_id,
    group_settings: requestedGroupSettings(params),
  };
  const folders = params.folder_id != null ? (await deps.folders.load(streams.channelFolders)).state.folders : undefined;
  const actorChannels = new Set(await deps.directory.subscribedChannelIds(me.user_id));
  const channels = params.subscriptions.map((s) => newChannel(s.name, s.description ?? ''));
  const [groups, policy] = await Promise.all([deps.userGroups.snapshot(), deps.policy()]);
  const { result: plan, append } = await deps.registry.execute(streams.channelRegistry, (state) => {
    const { facts, plan } = decideSubscribeRequest(state, {
      actor: me,
      channels,
      principal_ids: principalIds,
      actor_channel_ids: actorChannels,
      authorization_errors_fatal: params.authorization_errors_fatal ?? true,
      settings,
      users,
      groups,
      folders,
      policy,
      now: Date.now(),
    });
    return { facts, result: { ...plan, created: facts.map((fact) => fact.channel_id) } };
  });
  let position = lastPosition(append);
  await deps.caughtUp(position);

  const subscribed: Record<string, string[]> = {};
  const alreadySubscribed: Record<string, string[]> = {};
  const record = (into: Record<string, string[]>, userId: number, name: string) => (into[String(userId)] ??= []).push(name);
  for (const channel of plan.channels) {
    const { result, append: added } = await addSubscribers(deps, channel, principalIds, users);
    for (const id of result.added) record(subscribed, id, channel.name);
    for (const id of result.already) record(alreadySubscribed, id, channel.name);
    position = lastPosition(added) ?? position;
  }
  await deps.caughtUp(position);
  // After the channels and their subscribers are stored, so that the announcement links to
  // a channel its readers can see. Messaging decides whether it is announced (public
  // channels only) and where.
  if (params.announce) {
    for (const channelId of plan.created) position = (await deps.announce(channelId, me.user_id, position)) ?? position;
  }
  return {
    value: {
      subscribed,
      already_subscribed: alreadySubscribed,
      ...(params.authorization_errors_fatal === false ? { unauthorized: plan.unauthorized } : {}),
    },
    position,
  };
}

export interface CreateChannel {
  name: string;
  description: string;
  invite_only: boolean;
  history_public_to_subscribers?: boolean;
  is_default: boolean;
  subscribers: number[];
}

/** A trusted internal caller's channel (seeding): created, then its first subscribers added. */
export async function createChannel(deps: CommandDeps, params: CreateChannel) {
  const users = await organization(deps);
  const [groups, policy] = await Promise.all([deps.userGroups.snapshot(), deps.policy()]);
  const { result: channel, append } = await deps.registry.execute(streams.channelRegistry, (state) => {
    const facts = decideCreateChannels(state, {
      policy,
      channels: [newChannel(params.name, params.description)],
      settings: {
        invite_only: params.invite_only,
        is_web_public: false,
        is_default: params.is_default,
        history_public_to_subscribers: params.history_public_to_subscribers,
        group_settings: {},
      },
      users,
      groups,
      now: Date.now(),
    });
    return { facts, result: facts[0]! };
  });
  let position = lastPosition(append);
  await deps.caughtUp(position);
  if (params.subscribers.length) {
    checkInitialSubscribers(params.subscribers, (await deps.directory.usersByIds(params.subscribers)).map(known));
    position = lastPosition((await addSubscribers(deps, channelFromCreated(channel), params.subscribers, users)).append) ?? position;
    await deps.caughtUp(position);
  }
  return { channelId: channel.channel_id, position };
}

/** What the deciders of one existing channel need to know of its users and messages. */
async function channelContext(deps: CommandDeps, actor: Actor, channelId: number) {
  const [me, users, subscriberIds, groups] = await Promise.all([
    actorMember(deps, actor),
    organization(deps),
    deps.directory.subscriberIds(channelId),
    deps.userGroups.snapshot(),
  ]);
  return { me, users, subscriberIds, groups, subscribed: subscriberIds.includes(me.user_id) };
}

/** PATCH /streams/{stream_id}. */
export async function updateChannel(deps: CommandDeps, actor: Actor, params: UpdateChannelParams) {
  const { channel_id: channelId, ...changes } = params;
  const context = await channelContext(deps, actor, channelId);
  const [hasNamedTopics, firstMessageId] = await Promise.all([deps.messages.hasNamedTopics(channelId), deps.messages.firstMessageId(channelId)]);
  const folders = changes.folder_id != null ? (await deps.folders.load(streams.channelFolders)).state.folders : undefined;
  const description = changes.description !== undefined ? normalizeDescription(changes.description) : undefined;
  const policy = await deps.policy();
  const { append } = await deps.registry.execute(streams.channelRegistry, (state) => ({
    facts: decideUpdateChannel(state, {
      policy,
      actor: context.me,
      channel_id: channelId,
      subscribed: context.subscribed,
      changes: { ...changes, ...(description !== undefined ? { description, rendered_description: renderMarkdown(description) } : {}) },
      subscriber_ids: context.subscriberIds,
      users: context.users,
      groups: context.groups,
      has_named_topics: hasNamedTopics,
      first_message_id: firstMessageId,
      folders,
      now: Date.now(),
    }),
    result: undefined,
  }));
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return position;
}

/** DELETE /streams/{stream_id}: archives the channel. */
export async function archiveChannel(deps: CommandDeps, actor: Actor, channelId: number) {
  const context = await channelContext(deps, actor, channelId);
  const { append } = await deps.registry.execute(streams.channelRegistry, (state) => ({
    facts: decideArchiveChannel(state, {
      actor: context.me,
      channel_id: channelId,
      subscribed: context.subscribed,
      subscriber_ids: context.subscriberIds,
      users: context.users,
      groups: context.groups,
      now: Date.now(),
    }),
    result: undefined,
  }));
  const position = lastPosition(append);
  await deps.caughtUp(position);
  return position;
}
