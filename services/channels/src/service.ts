/**
 * The channels service: channels and subscriptions. Wires the projector and the bus
 * endpoints; commands are handled in handlers/, decided in domain/.
 */
import { queueGroups, subjects } from '@teamchat/contracts';
import { Directory, DIRECTORY_FACT_TYPES } from '@teamchat/directory';
import {
  AggregateRepository,
  Projector,
  serveEndpoint,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { z } from 'zod';
import { evolveChannel, evolveRegistry, initialChannel, initialRegistry } from './domain/channels';
import { createChannel, subscribe } from './handlers/commands';

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

  const commands = { directory, registry, channels, caughtUp: (position: number | undefined) => projector.waitFor(position) };

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.channels.createChannel, CreateChannelParams, async ({ actor, params, after }) => {
      await projector.waitFor(after);
      const { channelId, position } = await createChannel(commands, actor, params);
      return { value: { stream_id: channelId }, position };
    }, options),
    serveEndpoint(bus, subjects.channels.subscribe, SubscribeParams, async ({ actor, params, after }) => {
      await projector.waitFor(after);
      return { value: {}, position: await subscribe(commands, actor, params.channel_id, params.user_ids) };
    }, options),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
