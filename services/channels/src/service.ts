/**
 * The channels service: channels and subscriptions. Wires projections and bus
 * endpoints; the decisions live in domain/.
 */
import { badRequest, queueGroups, streams, subjects } from '@teamchat/contracts';
import { Directory, DIRECTORY_FACT_TYPES } from '@teamchat/directory';
import { renderMarkdown } from '@teamchat/markdown';
import {
  AggregateRepository,
  Projector,
  serveEndpoint,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { z } from 'zod';
import {
  decideCreateChannel,
  decideSubscribe,
  evolveChannel,
  evolveRegistry,
  initialChannel,
  initialRegistry,
} from './domain/channels';

const CreateChannelParams = z.object({
  name: z.string(),
  description: z.string().default(''),
  invite_only: z.boolean().default(false),
  history_public_to_subscribers: z.boolean().optional(),
  is_default_stream: z.boolean().default(false),
  subscribers: z.array(z.number().int()).default([]),
});
const SubscribeParams = z.object({ channel_id: z.number().int(), user_ids: z.array(z.number().int()) });

export async function startChannelsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels } = deps;
  const directory = new Directory(readModels);
  const projector = new Projector({
    name: 'channels',
    store,
    readModels,
    log,
    types: DIRECTORY_FACT_TYPES,
    projection: (fact) => directory.apply(fact),
  });
  await projector.start();

  const registry = new AggregateRepository(store, { initial: initialRegistry, evolve: evolveRegistry });
  const channels = new AggregateRepository(store, { initial: initialChannel, evolve: evolveChannel });
  const options = { queueGroup: queueGroups.channels, log };

  async function subscribe(actor: Parameters<typeof decideSubscribe>[1]['actor'], channelId: number, userIds: number[]) {
    const channel = await directory.channelById(channelId);
    if (!channel) throw badRequest(`Invalid channel ID ${channelId}`);
    const users = await directory.usersByIds(userIds);
    if (users.length !== new Set(userIds).size || users.some((u) => !u.is_active)) throw badRequest('Invalid user ID');
    const { append } = await channels.execute(streams.channel(channelId), (state) => ({
      facts: decideSubscribe(state, { actor, channel_id: channelId, invite_only: channel.invite_only, user_ids: userIds }),
      result: undefined,
    }));
    const position = append?.positions.at(-1);
    await projector.waitFor(position);
    return position;
  }

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.channels.createChannel, CreateChannelParams, async ({ actor, params, after }) => {
      await projector.waitFor(after);
      const { result: channelId, append } = await registry.execute(streams.channelRegistry, (state) => {
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
      await projector.waitFor(append?.positions.at(-1));
      const position = params.subscribers.length ? await subscribe(undefined, channelId, params.subscribers) : append?.positions.at(-1);
      return { value: { stream_id: channelId }, position };
    }, options),
    serveEndpoint(bus, subjects.channels.subscribe, SubscribeParams, async ({ actor, params, after }) => {
      await projector.waitFor(after);
      return { value: {}, position: await subscribe(actor, params.channel_id, params.user_ids) };
    }, options),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
