/**
 * The channels service: channels, their settings and permissions, and subscriptions.
 * Wires the projectors and the bus endpoints; commands are handled in handlers/, decided
 * in domain/.
 */
import { badRequest, ChannelIdPathParams, queueGroups, SubscribeParams, subjects, UpdateChannelParams, type Actor } from '@teamchat/contracts';
import { Directory, DIRECTORY_FACT_TYPES } from '@teamchat/directory';
import {
  AggregateRepository,
  Projector,
  serveEndpoint,
  type BusSubscription,
  type HandlerResult,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { z, type ZodType } from 'zod';
import { evolveRegistry, initialRegistry } from './domain/registry';
import { evolveChannel, initialChannel } from './domain/subscriptions';
import { archiveChannel, createChannel, subscribe, updateChannel } from './handlers/commands';
import { CHANNEL_MESSAGE_FACT_TYPES, ChannelMessages } from './projections/channel-messages';

const CreateChannelParams = z.object({
  name: z.string(),
  description: z.string().default(''),
  invite_only: z.boolean().default(false),
  history_public_to_subscribers: z.boolean().optional(),
  is_default_stream: z.boolean().default(false),
  subscribers: z.array(z.number().int()).default([]),
});

export async function startChannelsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels } = deps;
  const directory = new Directory(readModels);
  const messages = new ChannelMessages(readModels);
  const types = new Set([...DIRECTORY_FACT_TYPES, ...CHANNEL_MESSAGE_FACT_TYPES]);
  const projector = new Projector({
    // Named anew when it took on the channel messages: a data directory from before
    // replays the store once (the directory's writes are idempotent), so the messages
    // sent before are known too.
    name: 'channels-directory-and-messages',
    store,
    readModels,
    log,
    types,
    projection: async (fact) => {
      if (DIRECTORY_FACT_TYPES.has(fact.type)) await directory.apply(fact);
      else await messages.apply(fact);
    },
  });
  await projector.start();
  const caughtUp = (position: number | undefined) => projector.waitFor(position);

  const registry = new AggregateRepository(store, { initial: initialRegistry, evolve: evolveRegistry });
  const channels = new AggregateRepository(store, { initial: initialChannel, evolve: evolveChannel });
  const options = { queueGroup: queueGroups.channels, log };
  const commands = { directory, messages, registry, channels, caughtUp };

  /** Endpoints for users: an actor, and the caller's earlier writes seen first. */
  function endpoint<P>(subject: string, params: ZodType<P>, handle: (actor: Actor, params: P) => Promise<HandlerResult>) {
    return serveEndpoint(
      bus,
      subject,
      params,
      async ({ actor, params: p, after }) => {
        if (!actor) throw badRequest('Authentication required');
        await caughtUp(after);
        return handle(actor, p);
      },
      options,
    );
  }

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.channels.createChannel, CreateChannelParams, async ({ params, after }) => {
      await caughtUp(after);
      const { channelId, position } = await createChannel(commands, params);
      return { value: { stream_id: channelId }, position };
    }, options),
    endpoint(subjects.channels.subscribe, SubscribeParams, (actor, params) => subscribe(commands, actor, params)),
    endpoint(subjects.channels.updateChannel, UpdateChannelParams, async (actor, params) => ({
      value: {},
      position: await updateChannel(commands, actor, params),
    })),
    endpoint(subjects.channels.archiveChannel, ChannelIdPathParams, async (actor, params) => ({
      value: {},
      position: await archiveChannel(commands, actor, params.stream_id),
    })),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
