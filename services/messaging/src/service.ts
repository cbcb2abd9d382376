/**
 * The messaging service: sending and reading messages, and every change to them
 * (reactions, edits and moves, deletion, personal flags, topic visibility). Wires the
 * projector and the bus endpoints; the decisions live in domain/.
 */
import { sendBotMessage } from './handlers/bot-message';
import { badRequest, endpoints } from '@teamchat/contracts';
import { AnnouncementsChannel, Directory, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import {
  AggregateRepository,
  combineHandlers,
  contractServer,
  Projector,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { channelTopics } from './queries/channel-topics';
import { evolveMessage, initialMessage } from './domain/message-changes';
import { evolveFlagsStream, evolveUserTopics, initialFlagsStream, initialUserTopics } from './domain/personal-streams';
import { evolveRecipients, initialRecipients } from './domain/recipients';
import {
  changeReaction,
  deleteMessage,
  editMessage,
  markTopicAsRead,
  updateFlags,
  updateUserTopic,
  type ChangeDeps,
} from './handlers/message-changes';
import { createRenderer } from './handlers/rendering';
import { recipientIdFor, sendMessage } from './handlers/send-message';
import { setEditTyping, setTyping } from './handlers/typing';
import { AlertWordsBook } from './projections/alert-words';
import { MessagesReadModel } from './projections/messages';
import { messagesProjection } from './projections/messages-projection';
import { accessibleMessage } from './queries/access';
import { getMessages, selectMessageIds } from './queries/get-messages';
import { messagingState } from './queries/register-state';
import { MutedChannels } from './projections/muted-channels';
import { announceNewChannel } from './handlers/announce';
import { renderMessages } from './queries/render-messages';

export async function startMessagingService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels, config } = deps;
  const directory = new Directory(readModels);
  const model = new MessagesReadModel(readModels);
  // Its own projection of the accounts' group facts, for group mentions.
  const userGroups = new UserGroups(readModels);
  const alertWords = new AlertWordsBook(readModels);
  await alertWords.load();
  // Its own projection of the channels' muting facts, for the unread count.
  const mutedChannels = new MutedChannels(readModels);
  // Where new channels are announced (accounts' organization setting).
  const announcements = new AnnouncementsChannel(readModels);
  // Its own projection of the organization's settings, for the policy its deciders take.
  const realmSettings = new RealmSettingsProjection(readModels);
  const policy = () => realmSettings.policy();
  const projector = new Projector({
    // The name changes with the read model's shape: under a new name the projector
    // empties its collections and replays every fact, so no document keeps an old shape.
    name: 'messaging-4',
    collections: [...model.collections, alertWords.collection, mutedChannels.collection],
    store,
    readModels,
    log,
    handlers: combineHandlers(directory.handlers, messagesProjection(model), userGroups.handlers, alertWords.handlers, mutedChannels.handlers, announcements.handlers, realmSettings.handlers),
  });
  await projector.start();
  const recipients = new AggregateRepository(store, { initial: initialRecipients, evolve: evolveRecipients });
  const messages = new AggregateRepository(store, { initial: initialMessage, evolve: evolveMessage });
  const flagStreams = new AggregateRepository(store, { initial: initialFlagsStream, evolve: evolveFlagsStream });
  const userTopicStreams = new AggregateRepository(store, { initial: initialUserTopics, evolve: evolveUserTopics });
  const renderer = createRenderer(directory, config.realmUri, userGroups);
  const changeDeps: ChangeDeps = {
    directory,
    userGroups,
    model,
    messages,
    flagStreams,
    userTopicStreams,
    caughtUp: (position) => projector.waitFor(position),
    renderer,
    recipientIdFor: (key) => recipientIdFor({ recipients }, key),
    alertWords,
    policy,
  };

  const serve = contractServer({ bus, log, readModels: projector });
  const api = endpoints.messaging;

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.sendBotMessage, (params) => sendBotMessage({ directory, messages, renderer, recipientIdFor: changeDeps.recipientIdFor }, params)),
    serve(api.announceNewChannel, async (params) => {
      const { position, ...value } = await announceNewChannel({ directory, announcements, messages, renderer, recipientIdFor: changeDeps.recipientIdFor }, params);
      return { value, position };
    }),
    serve(api.registerState, async (params, { actor }) => {
      // The position is what POST /register's queue leaves out: events the state already holds.
      const { value, position } = await projector.snapshot(() => messagingState(model, actor.user_id, params, { mutedChannelIds: (id) => mutedChannels.of(id), subscribedChannelIds: (id) => directory.subscribedChannelIds(id) }));
      return { value: { state: value }, position };
    }),
    serve(api.sendMessage, async (params, { actor }) => {
      const { position, ...value } = await sendMessage({ directory, userGroups, model, recipients, messages, userTopicStreams, renderer, alertWords, policy }, actor, params);
      return { value, position };
    }),
    serve(api.getMessages, async (params, { actor }) => {
      const { result, messagesJson } = await getMessages({ directory, model }, actor, params);
      return { value: result, json: messagesJson };
    }),
    serve(api.getMessage, async (params, { actor }) => {
      const { message } = await accessibleMessage(changeDeps, actor, params.message_id);
      const [rendered] = await renderMessages({ directory, model }, actor, [message._id], {
        apply_markdown: params.apply_markdown ?? true,
        client_gravatar: false,
        allow_empty_topic_name: params.allow_empty_topic_name ?? false,
      });
      return { value: { message: rendered, raw_content: message.content } };
    }),
    serve(api.renderMessage, async (params, { actor }) => {
      if (params.content.trim().length === 0) throw badRequest('Message must not be empty');
      const rendered = await renderer.render(params.content, { sender_id: actor.user_id, recipient_user_ids: [], preview: true });
      return { value: { rendered: rendered.html } };
    }),
    serve(api.updateMessage, async (params, { actor }) => ({
      value: {},
      position: await editMessage(changeDeps, actor, params),
    })),
    serve(api.deleteMessage, async (params, { actor }) => ({
      value: {},
      position: await deleteMessage(changeDeps, actor, params.message_id),
    })),
    serve(api.addReaction, async (params, { actor }) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'add'),
    })),
    serve(api.removeReaction, async (params, { actor }) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'remove'),
    })),
    serve(api.updateFlags, async (params, { actor }) => {
      const { changed, position } = await updateFlags(changeDeps, actor, params);
      return { value: { messages: changed }, position };
    }),
    serve(api.updateFlagsForNarrow, async (params, { actor }) => {
      const { ids, result } = await selectMessageIds({ directory, model }, actor, params);
      const { changed, position } = await updateFlags(changeDeps, actor, { messages: ids, op: params.op, flag: params.flag }, false);
      return {
        value: {
          processed_count: ids.length,
          updated_count: changed.length,
          first_processed_id: ids[0] ?? null,
          last_processed_id: ids.at(-1) ?? null,
          found_oldest: result.found_oldest,
          found_newest: result.found_newest,
          ignored_because_not_subscribed_channels: [],
        },
        position,
      };
    }),
    serve(api.markTopicAsRead, async (params, { actor }) => ({
      value: {},
      position: await markTopicAsRead(changeDeps, actor, params.channel_id, params.topic_name),
    })),
    serve(api.updateUserTopic, async (params, { actor }) => ({
      value: {},
      position: await updateUserTopic(changeDeps, actor, params),
    })),
    serve(api.getChannelTopics, async (params, { actor }) => ({
      value: await channelTopics({ directory, model }, actor, params.channel_id, params.allow_empty_topic_name),
    })),
    serve(api.setTyping, async (params, { actor }) => {
      await setTyping({ directory, userGroups, model, bus }, actor, params);
      return { value: {} };
    }),
    serve(api.setEditTyping, async (params, { actor }) => {
      await setEditTyping({ directory, userGroups, model, bus }, actor, params);
      return { value: {} };
    }),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
