/** Command handlers: look up what the deciders need, decide, append. */
import { badRequest, streams, type Actor } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import { renderMarkdown } from '@teamchat/markdown';
import type { AggregateRepository } from '@teamchat/platform';
import {
  decideCreateChannel,
  decideSubscribe,
  type ChannelState,
  type RegistryState,
} from '../domain/channels';

export interface CommandDeps {
  directory: Directory;
  registry: AggregateRepository<RegistryState>;
  channels: AggregateRepository<ChannelState>;
  /** Resolves once the service's own read models show this position. */
  caughtUp: (position: number | undefined) => Promise<void>;
}

export interface CreateChannel {
  name: string;
  description: string;
  invite_only: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream: boolean;
  subscribers: number[];
}

/** Subscribes users; returns the position of the fact, if anything changed. */
export async function subscribe(deps: CommandDeps, actor: Actor | undefined, channelId: number, userIds: number[]) {
  const channel = await deps.directory.channelById(channelId);
  if (!channel) throw badRequest(`Invalid channel ID ${channelId}`);
  const users = await deps.directory.usersByIds(userIds);
  if (users.length !== new Set(userIds).size || users.some((u) => !u.is_active)) throw badRequest('Invalid user ID');
  const { append } = await deps.channels.execute(streams.channel(channelId), (state) => ({
    facts: decideSubscribe(state, { actor, channel_id: channelId, invite_only: channel.invite_only, user_ids: userIds }),
    result: undefined,
  }));
  const position = append?.positions.at(-1);
  await deps.caughtUp(position);
  return position;
}

/** Creates a channel, then subscribes its first subscribers (two streams, two appends). */
export async function createChannel(deps: CommandDeps, actor: Actor | undefined, params: CreateChannel) {
  const { result: channelId, append } = await deps.registry.execute(streams.channelRegistry, (state) => {
    const facts = decideCreateChannel(state, {
      actor,
      name: params.name,
      description: params.description,
      rendered_description: renderMarkdown(params.description),
      invite_only: params.invite_only,
      history_public_to_subscribers: params.history_public_to_subscribers,
      is_default: params.is_default_stream,
      now: Date.now(),
    });
    return { facts, result: facts[0]!.channel_id };
  });
  const created = append?.positions.at(-1);
  await deps.caughtUp(created);
  const position = params.subscribers.length ? await subscribe(deps, undefined, channelId, params.subscribers) : created;
  return { channelId, position };
}
