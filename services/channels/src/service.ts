/**
 * The channels service: channels, their settings and permissions, and subscriptions.
 * Wires the projectors and the bus endpoints; commands are handled in handlers/, decided
 * in domain/.
 */
import { endpoints } from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import { AggregateRepository, combineHandlers, contractServer, Projector, type BusSubscription, type RunningService, type ServiceDeps } from '@teamchat/platform';
import { evolveRegistry, initialRegistry } from './domain/registry';
import { evolveChannel, initialChannel } from './domain/subscriptions';
import { archiveChannel, createChannel, subscribe, updateChannel } from './handlers/commands';
import { ChannelMessages } from './projections/channel-messages';
import { channelsState } from './queries/register-state';

export async function startChannelsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels } = deps;
  const directory = new Directory(readModels);
  const messages = new ChannelMessages(readModels);
  const projector = new Projector({
    // The name changes with what the projector writes: a data directory kept under
    // another name replays the store once (the directory's writes are idempotent), so
    // every fact the maps handle is reflected.
    name: 'channels-directory-and-messages',
    store,
    readModels,
    log,
    handlers: combineHandlers(directory.handlers, messages.handlers),
  });
  await projector.start();
  const caughtUp = (position: number | undefined) => projector.waitFor(position);

  const registry = new AggregateRepository(store, { initial: initialRegistry, evolve: evolveRegistry });
  const channels = new AggregateRepository(store, { initial: initialChannel, evolve: evolveChannel });
  const commands = { directory, messages, registry, channels, caughtUp };
  const serve = contractServer({ bus, log, readModels: projector });
  const api = endpoints.channels;

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.registerState, async (params, { actor }) => {
      // The position is what POST /register's queue leaves out: events the state already holds.
      const { value, position } = await projector.snapshot(() => channelsState({ directory, messages }, actor.user_id, params));
      return { value: { state: value }, position };
    }),
    serve(api.createChannel, async (params) => {
      const { channelId, position } = await createChannel(commands, params);
      return { value: { channel_id: channelId }, position };
    }),
    serve(api.subscribe, (params, { actor }) => subscribe(commands, actor, params)),
    serve(api.updateChannel, async (params, { actor }) => ({
      value: {},
      position: await updateChannel(commands, actor, params),
    })),
    serve(api.archiveChannel, async (params, { actor }) => ({
      value: {},
      position: await archiveChannel(commands, actor, params.channel_id),
    })),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
