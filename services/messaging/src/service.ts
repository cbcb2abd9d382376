/**
 * The messaging service: sending and reading messages, and every change to them
 * (reactions, edits and moves, deletion, personal flags, topic visibility). Wires the
 * projector and the bus endpoints; the decisions live in domain/.
 */
import {
  badRequest,
  GetMessageParams,
  GetMessagesParams,
  MarkTopicAsReadParams,
  MessageIdPathParams,
  queueGroups,
  ReactionParams,
  RenderMessageParams,
  SendMessageParams,
  subjects,
  UpdateFlagsForNarrowParams,
  UpdateFlagsParams,
  UpdateMessageParams,
  UserTopicParams,
  type Actor,
  type BusRequest,
  type Fact,
} from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import {
  AggregateRepository,
  combineHandlers,
  Projector,
  serveEndpoint,
  type BusSubscription,
  type EndpointHandler,
  type HandlerResult,
  type RunningService,
  type ServiceDeps,
  type StoredFact,
} from '@teamchat/platform';
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import { evolveMessage, initialMessage } from './domain/message-changes';
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
import { MESSAGING_FACT_TYPES, MessagesReadModel } from './projections/messages';
import { accessibleMessage } from './queries/access';
import { getMessages, renderMessages, selectMessageIds } from './queries/get-messages';

export async function startMessagingService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels, config } = deps;
  const directory = new Directory(readModels);
  const model = new MessagesReadModel(readModels);
  const projector = new Projector({
    // A new name when the read model's shape changes: the projector then empties its
    // collections and replays every fact (2: rows gained `direct`, indexes became
    // partial; 3: rows are keyed message first).
    name: 'messaging-3',
    collections: model.collections,
    store,
    readModels,
    log,
    handlers: combineHandlers(
      directory.handlers,
      Object.fromEntries(MESSAGING_FACT_TYPES.map((type) => [type, (fact: Fact, stored: StoredFact) => model.apply({ ...stored, data: fact })])),
    ),
  });
  await projector.start();
  const recipients = new AggregateRepository(store, { initial: initialRecipients, evolve: evolveRecipients });
  const messages = new AggregateRepository(store, { initial: initialMessage, evolve: evolveMessage });
  const renderer = createRenderer(directory, config.realmUri);
  const changeDeps: ChangeDeps = {
    store,
    directory,
    model,
    messages,
    renderer,
    recipientIdFor: (key) => recipientIdFor({ recipients }, key),
  };

  /**
   * Every endpoint needs an actor, must see the caller's earlier writes, and — when it
   * writes — answers only once its own read model shows the write.
   */
  function endpoint<P>(subject: string, params: ZodType<P>, handle: (actor: Actor, params: P, log: Logger) => Promise<HandlerResult>) {
    const handler: EndpointHandler<P> = async ({ actor, params: p, after }: BusRequest<P>, requestLog) => {
      if (!actor) throw badRequest('Authentication required');
      await projector.waitFor(after);
      const result = await handle(actor, p, requestLog);
      await projector.waitFor(result.position);
      return result;
    };
    return serveEndpoint(bus, subject, params, handler, { queueGroup: queueGroups.messaging, log });
  }

  const subscriptions: BusSubscription[] = await Promise.all([
    endpoint(subjects.messaging.sendMessage, SendMessageParams, async (actor, params) => {
      const { position, ...value } = await sendMessage({ store, directory, model, recipients, renderer }, actor, params);
      return { value, position };
    }),
    endpoint(subjects.messaging.getMessages, GetMessagesParams, async (actor, params) => {
      const { result, messagesJson } = await getMessages({ directory, model }, actor, params);
      return { value: result, json: messagesJson };
    }),
    endpoint(subjects.messaging.getMessage, GetMessageParams, async (actor, params) => {
      const { message } = await accessibleMessage(changeDeps, actor, params.message_id);
      const [rendered] = await renderMessages({ directory, model }, actor, [message._id], {
        apply_markdown: params.apply_markdown ?? true,
        client_gravatar: false,
        allow_empty_topic_name: params.allow_empty_topic_name ?? false,
      });
      return { value: { message: rendered, raw_content: message.content } };
    }),
    endpoint(subjects.messaging.renderMessage, RenderMessageParams, async (actor, params) => {
      if (params.content.trim().length === 0) throw badRequest('Message must not be empty');
      const rendered = await renderer.render(params.content, { sender_id: actor.user_id, recipient_user_ids: [] });
      return { value: { rendered: rendered.html } };
    }),
    endpoint(subjects.messaging.updateMessage, UpdateMessageParams, async (actor, params) => ({
      value: {},
      position: await editMessage(changeDeps, actor, params),
    })),
    endpoint(subjects.messaging.deleteMessage, MessageIdPathParams, async (actor, params) => ({
      value: {},
      position: await deleteMessage(changeDeps, actor, params.message_id),
    })),
    endpoint(subjects.messaging.addReaction, ReactionParams, async (actor, params) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'add'),
    })),
    endpoint(subjects.messaging.removeReaction, ReactionParams, async (actor, params) => ({
      value: {},
      position: await changeReaction(changeDeps, actor, params, 'remove'),
    })),
    endpoint(subjects.messaging.updateFlags, UpdateFlagsParams, async (actor, params) => {
      const { changed, position } = await updateFlags(changeDeps, actor, params);
      return { value: { messages: changed }, position };
    }),
    endpoint(subjects.messaging.updateFlagsForNarrow, UpdateFlagsForNarrowParams, async (actor, params) => {
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
    endpoint(subjects.messaging.markTopicAsRead, MarkTopicAsReadParams, async (actor, params) => ({
      value: {},
      position: await markTopicAsRead(changeDeps, actor, params.stream_id, params.topic_name),
    })),
    endpoint(subjects.messaging.updateUserTopic, UserTopicParams, async (actor, params) => ({
      value: {},
      position: await updateUserTopic(changeDeps, actor, params),
    })),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
