/**
 * The messaging service: sending and reading messages. Wires its projections and bus
 * endpoints; the decisions live in domain/.
 */
import { GetMessagesParams, queueGroups, SendMessageParams, subjects, badRequest } from '@teamchat/contracts';
import { Directory, DIRECTORY_FACT_TYPES } from '@teamchat/directory';
import {
  AggregateRepository,
  Projector,
  serveEndpoint,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { evolveRecipients, initialRecipients } from './domain/recipients';
import { sendMessage } from './handlers/send-message';
import { MessagesReadModel } from './projections/messages';
import { getMessages } from './queries/get-messages';

export async function startMessagingService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, readModels } = deps;
  const directory = new Directory(readModels);
  const model = new MessagesReadModel(readModels);
  const projector = new Projector({
    name: 'messaging',
    store,
    readModels,
    log,
    types: new Set([...DIRECTORY_FACT_TYPES, 'MessageSent']),
    projection: async (fact) => {
      await directory.apply(fact);
      await model.apply(fact);
    },
  });
  await projector.start();
  const recipients = new AggregateRepository(store, { initial: initialRecipients, evolve: evolveRecipients });
  const options = { queueGroup: queueGroups.messaging, log };

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.messaging.sendMessage, SendMessageParams, async ({ actor, params, after }) => {
      if (!actor) throw badRequest('Authentication required');
      await projector.waitFor(after);
      const { id } = await sendMessage({ store, directory, recipients }, actor, params);
      // Read-your-writes: the sender's next GET /messages must see this message.
      await projector.waitFor(id);
      return { value: { id }, position: id };
    }, options),
    serveEndpoint(bus, subjects.messaging.getMessages, GetMessagesParams, async ({ actor, params, after }) => {
      if (!actor) throw badRequest('Authentication required');
      await projector.waitFor(after);
      return { value: await getMessages({ directory, model }, actor, params) };
    }, options),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
