/**
 * The messaging service: sending and reading messages, and every change to them
 * (reactions, edits and moves, deletion, personal flags, topic visibility). Wires the
 * projector and the bus endpoints; the decisions live in domain/.
 */
import { badRequest, endpoints, wantsState } from '@teamchat/contracts';
import { AnnouncementsChannel, Directory, RealmEmojiBook, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import {
  AggregateRepository,
  combineHandlers,
  contractServer,
  Projector,
  replyText,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { channelTopics } from './queries/channel-topics';
import { evolveMessage, initialMessage } from './domain/message-changes';
import { evolveFlagsStream, evolveUserTopics, initialFlagsStream, initialUserTopics } from './domain/personal-streams';
import {
  changeReaction,
  addSubmessage,
  deleteMessage,
  editMessage,
  markTopicAsRead,
  updateFlags,
  updateUserTopic,
  type ChangeDeps,
} from './handlers/message-changes';
import { createRenderer } from './handlers/rendering';
import { recipientIdFor, sendMessage } from './handlers/send-message';
import { ConversationIds } from './handlers/conversation-ids';
import { ConversationsReadModel } from './projections/conversations';
import { setEditTyping, setTyping } from './handlers/typing';
import { AlertWordsBook } from './projections/alert-words';
import { UserPreferences } from './projections/user-preferences';
import { LinkifiersBook } from './projections/linkifiers';
import { getMessageHistory, getReadReceipts, matchesNarrow } from './queries/message-history';
import { MessagesReadModel, RETIRED_COLLECTIONS } from './projections/messages';
import { messagesProjection } from './projections/messages-projection';
import { accessibleMessage } from './queries/access';
import { getMessages, selectMessageIds } from './queries/get-messages';
import { messagingState } from './queries/register-state';
import { MutedChannels } from './projections/muted-channels';
import { announceNewChannel } from './handlers/announce';
import { sendSystemBotChannelMessage, sendSystemBotMessage } from './handlers/system-bot-message';
import { reportMessage } from './handlers/message-report';
import { renderMessages } from './queries/render-messages';
import { evolveScheduled, initialScheduled } from './domain/scheduled-messages';
import { ScheduledMessages } from './projections/scheduled-messages';
import { createReminder, createScheduledMessage, deleteScheduled, updateScheduledMessage, type ScheduledDeps } from './handlers/scheduled-messages';
import { ScheduledDelivery } from './handlers/scheduled-delivery';
import { evolveAttachments, initialAttachments } from './domain/attachments';
import {
  claimAttachments,
  deleteAttachment,
  fileTemporaryUrl,
  listAttachments,
  locateFile,
  locateFileWithToken,
  releaseAttachments,
  uploadFile,
  type AttachmentDeps,
} from './handlers/attachments';
import { AttachmentsReadModel } from './projections/attachments';
import { MutedUsersBook } from './projections/muted-users';
import { evolveMutedUsers, initialMutedUsers } from './domain/muted-users';
import { muteUser, unmuteUser } from './handlers/muted-users';

export async function startMessagingService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels, config } = deps;
  const directory = new Directory(readModels);
  for (const name of RETIRED_COLLECTIONS) await readModels.dropCollection(name);
  const model = new MessagesReadModel(readModels);
  model.places.onWarmFailure = (err) => log.warn({ reason: (err as Error).message }, "channels' places not loaded in the background; scans read the index until they are");
  // Its own projection of the accounts' group facts, for group mentions.
  const userGroups = new UserGroups(readModels);
  const alertWords = new AlertWordsBook(readModels);
  await alertWords.load();
  const preferences = new UserPreferences(readModels);
  await preferences.load();
  // Its own projection of the accounts' linkifier facts, for rendering and topic links.
  const linkifiers = new LinkifiersBook(readModels);
  await linkifiers.load();
  // Its own projection of the channels' muting facts, for the unread count.
  const mutedChannels = new MutedChannels(readModels);
  // Where new channels are announced (accounts' organization setting).
  const announcements = new AnnouncementsChannel(readModels);
  // Its own projection of the organization's settings, for the policy its deciders take.
  const realmSettings = new RealmSettingsProjection(readModels);
  const policy = () => realmSettings.policy();
  // Scheduled messages and reminders not yet delivered: what the scheduler scans.
  const scheduledModel = new ScheduledMessages(readModels);
  const attachmentModel = new AttachmentsReadModel(readModels);
  // Its own projection of accounts' custom emoji, to render `:name:` and check reactions.
  const realmEmoji = new RealmEmojiBook(readModels);
  // Who muted whom: register's section, and who gets a new message already read.
  const mutedUsers = new MutedUsersBook(readModels);
  await mutedUsers.load();
  // Each conversation's recipient id, and how much of the registry stream that covers.
  const conversations = new ConversationsReadModel(readModels);
  const projector = new Projector({
    // The name changes with the read model's shape: under a new name the projector
    // empties its collections and replays every fact, so no document keeps an old shape.
    name: 'messaging-6',
    collections: [
      ...model.collections,
      alertWords.collection,
      preferences.collection,
      mutedChannels.collection,
      linkifiers.collection,
      scheduledModel.collection,
      ...attachmentModel.collections,
      realmEmoji.collection,
      mutedUsers.collection,
      ...conversations.collections,
    ],
    store,
    readModels,
    log,
    handlers: combineHandlers(
      directory.handlers,
      messagesProjection(model),
      userGroups.handlers,
      alertWords.handlers,
      preferences.handlers,
      linkifiers.handlers,
      mutedChannels.handlers,
      announcements.handlers,
      realmSettings.handlers,
      scheduledModel.handlers,
      attachmentModel.handlers,
      realmEmoji.handlers,
      mutedUsers.handlers,
      conversations.handlers,
    ),
  });
  await projector.start();
  // The registry's state from the read model's mark: no fold of every conversation at start.
  const recipients = new ConversationIds(store, conversations);
  const { filled } = await recipients.start(async (work) => (await projector.snapshot(work)).value);
  if (filled > 0) log.info({ facts: filled }, 'conversation registry copied into its read model (once, for a store older than it)');
  const messages = new AggregateRepository(store, { initial: initialMessage, evolve: evolveMessage });
  const flagStreams = new AggregateRepository(store, { initial: initialFlagsStream, evolve: evolveFlagsStream });
  const userTopicStreams = new AggregateRepository(store, { initial: initialUserTopics, evolve: evolveUserTopics });
  const renderer = createRenderer(directory, config.realmUri, userGroups, linkifiers, () => realmEmoji.all());
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
    linkifiers,
    policy,
    realmEmoji: () => realmEmoji.all(),
  };

  const scheduledDeps: ScheduledDeps = {
    directory,
    userGroups,
    model,
    recipients,
    messages,
    userTopicStreams,
    renderer,
    alertWords,
    mutedUsers,
    scheduledStreams: new AggregateRepository(store, { initial: initialScheduled, evolve: evolveScheduled }),
    scheduledModel,
    realmUri: config.realmUri,
  };
  const delivery = new ScheduledDelivery({ ...scheduledDeps, store, log, afterSend: (message) => claimAttachments(attachmentDeps, message) });
  scheduledModel.whenScheduled(() => delivery.wake());
  const attachmentDeps: AttachmentDeps = {
    directory,
    model,
    attachments: new AggregateRepository(store, { initial: initialAttachments, evolve: evolveAttachments }),
    attachmentModel,
    maxFileUploadSizeMib: config.uploads.maxFileUploadSizeMib,
    serverSecret: config.serverSecret,
  };
  /** The later of two store positions (a claim comes after the message it is for). */
  const later = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

  const mutedUserDeps = {
    directory,
    mutedUserStreams: new AggregateRepository(store, { initial: initialMutedUsers, evolve: evolveMutedUsers }),
    changes: changeDeps,
  };

  const serve = contractServer({ bus, log, readModels: projector, deactivated: (id) => directory.isDeactivated(id) });
  const api = endpoints.messaging;

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.announceNewChannel, async (params) => {
      const { position, ...value } = await announceNewChannel({ directory, announcements, messages, renderer, recipientIdFor: changeDeps.recipientIdFor }, params);
      return { value, position };
    }),
    serve(api.sendSystemBotMessage, async (params) => {
      const { position, ...value } = await sendSystemBotMessage({ directory, messages, renderer, recipientIdFor: changeDeps.recipientIdFor }, params);
      return { value, position };
    }),
    serve(api.sendSystemBotChannelMessage, async (params) => {
      const { position, ...value } = await sendSystemBotChannelMessage({ directory, messages, renderer, recipientIdFor: changeDeps.recipientIdFor }, params);
      return { value, position };
    }),
    serve(api.registerState, async (params, { actor }) => {
      // The position is what POST /register's queue leaves out: events the state already holds.
      const { value, position } = await projector.snapshot(async () => ({
        ...(await messagingState(model, actor.user_id, params, { mutedChannelIds: (id) => mutedChannels.of(id), subscribedChannelIds: (id) => directory.subscribedChannelIds(id), channelName: async (id) => (await directory.channelById(id))?.name })),
        ...(wantsState(params, 'scheduled_messages') ? { scheduled_messages: await scheduledModel.scheduledMessagesOf(actor.user_id) } : {}),
        ...(wantsState(params, 'reminders') ? { reminders: await scheduledModel.remindersOf(actor.user_id) } : {}),
        ...(wantsState(params, 'muted_users') ? { muted_users: await mutedUsers.of(actor.user_id) } : {}),
      }));
      // Serialized here, as bytes: in the embedded mode this is the messaging thread, so the
      // thread that answers neither copies the sections' objects across nor serializes them
      // (about 1 MB of JSON for a reader with 50,000 unread messages).
      return { value: { state: {} }, position, json: replyText(JSON.stringify(value)) };
    }),
    serve(api.sendMessage, async (params, { actor }) => {
      const { position, ...value } = await sendMessage({ directory, userGroups, model, recipients, messages, userTopicStreams, renderer, alertWords, linkifiers, policy, mutedUsers }, actor, params);
      const claimed = await claimAttachments(attachmentDeps, { id: value.id, sender_id: actor.user_id, content: params.content, date_sent: Math.floor(Date.now() / 1000) });
      return { value, position: later(position, claimed) };
    }),
    serve(api.getMessages, async (params, { actor, budget }) => {
      const { result, messagesJson } = await getMessages({ directory, model }, actor, params, budget);
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
    serve(api.updateMessage, async (params, { actor }) => {
      const linkedBefore = params.content !== undefined && (await model.messages.get(params.message_id))?.content.includes('/user_uploads/');
      const position = await editMessage(changeDeps, actor, params);
      if (params.content === undefined) return { value: {}, position };
      // Only the sender edits content; the claim keeps the message's own send time.
      const message = await model.messages.get(params.message_id);
      const claimed = message
        ? await claimAttachments(attachmentDeps, { id: message._id, sender_id: actor.user_id, content: params.content, date_sent: message.timestamp })
        : undefined;
      // A link edited out no longer lets the message's readers download the file.
      const released = linkedBefore ? await releaseAttachments(attachmentDeps, params.message_id, params.content) : undefined;
      return { value: {}, position: later(later(position, claimed), released) };
    }),
    serve(api.uploadFile, async (params, { actor }) => uploadFile(attachmentDeps, actor, params.file)),
    serve(api.downloadFile, async (params, { actor }) => ({ value: await locateFile(attachmentDeps, actor, params) })),
    serve(api.getFileTemporaryUrl, async (params, { actor }) => ({ value: await fileTemporaryUrl(attachmentDeps, actor, params, Date.now()) })),
    serve(api.downloadFileWithToken, async (params) => ({ value: await locateFileWithToken(attachmentDeps, params, Date.now()) })),
    serve(api.getAttachments, async (_params, { actor }) => ({ value: await listAttachments(attachmentDeps, actor) })),
    serve(api.deleteAttachment, async (params, { actor }) => {
      const { removed_blobs, position } = await deleteAttachment(attachmentDeps, actor, params.attachment_id);
      return { value: { removed_blobs }, position };
    }),
    serve(api.deleteMessage, async (params, { actor }) => {
      // Only a message that linked files can have claimed one: others skip the attachments stream.
      const linked = (await model.messages.get(params.message_id))?.content.includes('/user_uploads/');
      const position = await deleteMessage(changeDeps, actor, params.message_id);
      return { value: {}, position: linked ? later(position, await releaseAttachments(attachmentDeps, params.message_id, undefined)) : position };
    }),
    serve(api.reportMessage, async (params, { actor }) => {
      const moderationChannelId = async () => (await realmSettings.current()).moderation_request_channel_id;
      const { position } = await reportMessage({ ...changeDeps, moderationChannelId, realmUri: config.realmUri }, actor, params);
      return { value: {}, position };
    }),
    serve(api.addReaction, async (params, { actor }) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'add'),
    })),
    serve(api.addSubmessage, async (params, { actor }) => ({
      value: {},
      position: await addSubmessage(changeDeps, actor, params),
    })),
    serve(api.removeReaction, async (params, { actor }) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'remove'),
    })),
    serve(api.updateFlags, async (params, { actor }) => {
      const { changed, position } = await updateFlags(changeDeps, actor, params);
      return { value: { messages: changed }, position };
    }),
    serve(api.updateFlagsForNarrow, async (params, { actor, budget }) => {
      const { ids, result } = await selectMessageIds({ directory, model }, actor, params, budget);
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
    serve(api.muteUser, async (params, { actor }) => ({ value: {}, position: await muteUser(mutedUserDeps, actor, params.muted_user_id) })),
    serve(api.unmuteUser, async (params, { actor }) => ({ value: {}, position: await unmuteUser(mutedUserDeps, actor, params.muted_user_id) })),
    serve(api.getChannelTopics, async (params, { actor }) => ({
      value: await channelTopics({ directory, model }, actor, params.channel_id, params.allow_empty_topic_name),
    })),
    serve(api.getMessageHistory, async (params, { actor }) => ({
      value: { message_history: await getMessageHistory({ directory, model, realmSettings, preferences }, actor, params.message_id, params.allow_empty_topic_name ?? false) },
    })),
    serve(api.getReadReceipts, async (params, { actor }) => ({
      value: { user_ids: await getReadReceipts({ directory, model, realmSettings, preferences }, actor, params.message_id) },
    })),
    serve(api.matchesNarrow, async (params, { actor }) => ({ value: { messages: await matchesNarrow({ directory, model }, actor, params.msg_ids, params.narrow) } })),
    serve(api.setTyping, async (params, { actor }) => {
      await setTyping({ directory, userGroups, model, bus, preferences }, actor, params);
      return { value: {} };
    }),
    serve(api.setEditTyping, async (params, { actor }) => {
      await setEditTyping({ directory, userGroups, model, bus, preferences }, actor, params);
      return { value: {} };
    }),
    serve(api.createScheduledMessage, async (params, { actor }) => {
      const { position, ...value } = await createScheduledMessage(scheduledDeps, actor, params);
      return { value, position };
    }),
    serve(api.getScheduledMessages, async (_params, { actor }) => ({
      value: { scheduled_messages: await scheduledModel.scheduledMessagesOf(actor.user_id) },
    })),
    serve(api.updateScheduledMessage, async (params, { actor }) => ({
      value: {},
      position: await updateScheduledMessage(scheduledDeps, actor, params),
    })),
    serve(api.deleteScheduledMessage, async (params, { actor }) => ({
      value: {},
      position: await deleteScheduled(scheduledDeps, actor, params.scheduled_message_id, 'scheduled'),
    })),
    serve(api.createReminder, async (params, { actor }) => {
      const { position, ...value } = await createReminder(scheduledDeps, actor, params);
      return { value, position };
    }),
    serve(api.getReminders, async (_params, { actor }) => ({
      value: { reminders: await scheduledModel.remindersOf(actor.user_id) },
    })),
    serve(api.deleteReminder, async (params, { actor }) => ({
      value: {},
      position: await deleteScheduled(scheduledDeps, actor, params.reminder_id, 'reminder'),
    })),
  ]);
  delivery.start();
  // Every channel's places, loaded in the background from the start (a chunk at a time,
  // other requests between), so that a user's first registration lists its unread
  // messages from memory rather than from the index: at 1,000,000 messages a user's
  // first registrations took 170-830 ms while their channels loaded, then 60-110 ms.
  // Half the bound at most, leaving room for the channels scans ask for.
  model.places.warm(
    (await directory.allChannels()).map((channel) => channel.channel_id),
    0.5,
  );

  return {
    async stop() {
      await delivery.stop();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
