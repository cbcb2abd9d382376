/**
 * The channels service: channels, their settings and permissions, and subscriptions.
 * Wires the projectors and the bus endpoints; commands are handled in handlers/, decided
 * in domain/.
 */
import { endpoints } from '@teamchat/contracts';
import { Directory, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import { AggregateRepository, callContract, combineHandlers, contractServer, Projector, type BusSubscription, type RunningService, type ServiceDeps } from '@teamchat/platform';
import { evolveFolders, initialFolders } from './domain/folders';
import { evolveRegistry, initialRegistry } from './domain/registry';
import { evolveChannel, initialChannel } from './domain/subscriptions';
import { archiveChannel, createChannel, subscribe, updateChannel } from './handlers/commands';
import { createFolder, setDefaultChannel, unsubscribe, reorderFolders, updateFolder, updateSubscriptionProperties } from './handlers/subscription-commands';
import { subscribeNewUser } from './handlers/new-user';
import { ChannelFolders } from './projections/channel-folders';
import { ChannelMessages } from './projections/channel-messages';
import { GroupAccessReactor } from './projections/group-access';
import { UserActivity } from './projections/user-activity';
import { SubscriptionSettingsModel } from './projections/subscription-settings';
import { getChannel, getChannelId, getChannels, getSubscribers, getSubscriptions, getSubscriptionStatus } from './queries/channels';
import { channelsState, serializedLists } from './queries/register-state';

export async function startChannelsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels } = deps;
  const directory = new Directory(readModels);
  // The custom user groups, from accounts' group facts: channel group-settings may name them.
  const userGroups = new UserGroups(readModels);
  const messages = new ChannelMessages(readModels);
  const settings = new SubscriptionSettingsModel(readModels);
  const folders = new ChannelFolders(readModels);
  const activity = new UserActivity(readModels);
  const partial = { activity, minChannelSize: deps.config.partialSubscribersMinChannelSize };
  const groupAccess = new GroupAccessReactor(readModels, { store, directory, userGroups, messages });
  await groupAccess.start();
  // Its own projection of the organization's settings, for the policy its deciders take.
  const realmSettings = new RealmSettingsProjection(readModels);
  const projector = new Projector({
    // The name changes with what the projector writes: a data directory kept under
    // another name replays the store once (the directory's writes are idempotent), so
    // every fact the maps handle is reflected.
    name: 'channels-directory-messages-settings-folders-groups-activity',
    store,
    readModels,
    log,
    handlers: combineHandlers(directory.handlers, messages.handlers, settings.handlers, folders.handlers, userGroups.handlers, groupAccess.handlers, activity.handlers, realmSettings.handlers),
  });
  await projector.start();
  const caughtUp = (position: number | undefined) => projector.waitFor(position);

  const registry = new AggregateRepository(store, { initial: initialRegistry, evolve: evolveRegistry });
  const channels = new AggregateRepository(store, { initial: initialChannel, evolve: evolveChannel });
  const folderRegistry = new AggregateRepository(store, { initial: initialFolders, evolve: evolveFolders });
  /** Best effort: the channel exists whatever happens to its announcement (Zulip posts it in the same transaction). */
  const announce = async (channelId: number, creatorId: number, after: number | undefined) => {
    try {
      const reply = await callContract(bus, endpoints.messaging.announceNewChannel, { params: { channel_id: channelId, creator_id: creatorId }, ...(after ? { after } : {}) });
      return reply.position;
    } catch (err) {
      log.warn({ err, channelId }, 'new channel not announced');
      return undefined;
    }
  };
  const commands = { directory, userGroups, messages, registry, channels, folders: folderRegistry, caughtUp, announce, policy: () => realmSettings.policy() };
  const queries = { directory, userGroups, messages, settings, partial };
  const serve = contractServer({ bus, log, readModels: projector, deactivated: (id) => directory.isDeactivated(id) });
  const api = endpoints.channels;

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.registerState, async (params, { actor }) => {
      // The position is what POST /register's queue leaves out: events the state already holds.
      const { value, position } = await projector.snapshot(() => channelsState({ directory, userGroups, messages, settings, folders, partial }, actor.user_id, params));
      const { state, json } = serializedLists(value);
      return { value: { state }, position, ...(json === undefined ? {} : { json }) };
    }),
    serve(api.createChannel, async (params) => {
      const { channelId, position } = await createChannel(commands, params);
      return { value: { channel_id: channelId }, position };
    }),
    serve(api.subscribe, (params, { actor }) => subscribe(commands, actor, params)),
    serve(api.subscribeNewUser, (params) => subscribeNewUser(commands, params)),
    serve(api.updateChannel, async (params, { actor }) => ({
      value: {},
      position: await updateChannel(commands, actor, params),
    })),
    serve(api.archiveChannel, async (params, { actor }) => ({
      value: {},
      position: await archiveChannel(commands, actor, params.channel_id),
    })),
    serve(api.getChannels, async (params, { actor }) => ({ value: await getChannels(queries, actor, params) })),
    serve(api.getChannel, async (params, { actor }) => ({ value: await getChannel(queries, actor, params.channel_id) })),
    serve(api.getChannelId, async (params, { actor }) => ({ value: await getChannelId(queries, actor, params.stream) })),
    serve(api.getSubscribers, async (params, { actor }) => ({ value: await getSubscribers(queries, actor, params.channel_id) })),
    serve(api.getSubscriptions, async (params, { actor }) => ({ value: await getSubscriptions(queries, actor, params.include_subscribers) })),
    serve(api.getSubscriptionStatus, async (params, { actor }) => ({
      value: await getSubscriptionStatus(queries, actor, params.user_id, params.channel_id),
    })),
    serve(api.unsubscribe, (params, { actor }) => unsubscribe(commands, actor, params)),
    serve(api.updateSubscriptionProperties, (params, { actor }) => updateSubscriptionProperties(commands, actor, params)),
    serve(api.addDefaultChannel, async (params, { actor }) => ({ value: {}, position: await setDefaultChannel(commands, actor, params.channel_id, true) })),
    serve(api.removeDefaultChannel, async (params, { actor }) => ({ value: {}, position: await setDefaultChannel(commands, actor, params.channel_id, false) })),
    serve(api.createChannelFolder, (params, { actor }) => createFolder(commands, actor, params)),
    serve(api.getChannelFolders, async (params) => ({ value: { channel_folders: await folders.all(params.include_archived) } })),
    serve(api.updateChannelFolder, async (params, { actor }) => ({ value: {}, position: await updateFolder(commands, actor, params) })),
    serve(api.reorderChannelFolders, async (params, { actor }) => ({ value: {}, position: await reorderFolders(commands, actor, params.order) })),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
