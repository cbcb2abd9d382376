/**
 * The events service: per-client event queues, filled from the event store so that no
 * client ever sees a change that was not stored.
 *
 * Queues outlive the process: each queue's descriptor is durable (queue-descriptors.ts)
 * and its events are derived from the store (event-queue.ts), so at startup the projector
 * replays the store from the oldest position a live queue still needs, through the same
 * fan-out, before the service answers; with no live queue it starts at the store's head,
 * as a fresh queue only wants what happens after it.
 */
import { avatarStateOf, endpoints, instanceSubject, presenceReported, typingNotice } from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import { deriveApiKey } from '@teamchat/policies';
import { combineHandlers, contractServer, Projector, type BusSubscription, type ContractHandler, type RunningService, type ServiceDeps } from '@teamchat/platform';
import { typingEventFor } from './domain/ephemeral-routing';
import { PresenceBook } from './domain/presence';
import { AvatarBook } from './projections/avatar-book';
import { Roster } from './projections/roster';
import { fanOutHandlers } from './projections/fan-out';
import { getUserPresence, presencesReply, recordPresence, updatePresence, type PresenceDeps } from './queries/presence';
import { QueueDescriptors } from './queries/queue-descriptors';
import { QueueRegistry } from './queries/queues';
import { registerWithState } from './queries/register-state';

export async function startEventsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, config, readModels } = deps;
  let projector: Projector | undefined;
  const queues = new QueueRegistry({
    heartbeatSeconds: config.heartbeatSeconds,
    settings: config.eventQueues,
    checkpoint: () => projector?.checkpoint ?? 0,
    descriptors: new QueueDescriptors(readModels),
    log,
    ...(deps.instance === undefined ? {} : { instance: deps.instance }),
  });
  const replayAfter = await queues.restore();
  // Presence needs to know every user (emails, bots, deactivations): a directory of its
  // own, replayed from the start of the store, unlike the queues' projector. It starts
  // first: the fan-out's avatars of message senders are seeded from it.
  const directory = new Directory(deps.readModels);
  const avatars = new AvatarBook();
  // Fed by both projectors: a change between the seed and the fan-out's start is not lost.
  const directoryHandlers = combineHandlers(directory.handlers, { UserAvatarChanged: (fact) => avatars.record(fact.user_id, avatarStateOf(fact)) });
  const directoryProjector = new Projector({ name: 'events-directory', store, readModels: deps.readModels, log, handlers: directoryHandlers });
  await directoryProjector.start();
  // Who is active, for audiences facts name rather than list; the fan-out keeps it up to date.
  const roster = new Roster();
  const users = await directory.allUsers();
  for (const user of users) if (user.avatar) avatars.record(user._id, user.avatar);
  roster.seed(users);
  projector = new Projector({
    name: 'events',
    store,
    log,
    startAtHead: true,
    ...(replayAfter === undefined ? {} : { startAfter: replayAfter }),
    // Bots' keys reach their owners in `realm_bot` events: derived here as accounts derives them.
    handlers: fanOutHandlers((delivery, position) => queues.deliver(delivery, position), {
      apiKeyOf: (salt) => deriveApiKey(deps.config.serverSecret, salt),
      avatars,
      roster,
    }),
  });
  await projector.start();
  if (queues.size > 0) log.info({ queues: queues.size, replayed_after: replayAfter }, 'event queues restored');
  // The queue must not miss what the client itself did just before registering: the
  // projector catches up with the caller's last write before each request.
  // A deactivated user's queues answer nothing more, whatever the gateway believed.
  const deactivated = (id: number) => directory.isDeactivated(id);
  const serve = contractServer({ bus, log, readModels: projector, deactivated });
  const api = endpoints.events;
  const serveWithDirectory = contractServer({ bus, log, readModels: directoryProjector, deactivated });
  const instance = deps.instance;
  const presence: PresenceDeps = {
    book: new PresenceBook(),
    directory,
    deliver: (delivery) => queues.deliver(delivery),
    ...(instance === undefined ? {} : { share: (report) => bus.publish(presenceReported.subject, { origin: instance, report: { ...report } }) }),
  };

  const getEvents: ContractHandler<typeof api.getEvents> = (params, { actor }) => queues.getEventsReply(actor, params);
  const deleteQueue: ContractHandler<typeof api.deleteQueue> = async (params, { actor }) => {
    await queues.delete(actor, params.queue_id);
    return { value: {} };
  };

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.register, (params, { actor, sendPart }) =>
      registerWithState(
        { bus, queues, fanOut: projector, presences: (options) => presencesReply(presence, options), checkReplies: deps.config.checkReplies },
        actor,
        params,
        sendPart,
      ),
    ),
    serve(api.getEvents, getEvents),
    serve(api.deleteQueue, deleteQueue),
    // A queue lives on this instance: polls and deletions of it come on its own subjects
    // (the gateway routes by the instance its id names).
    ...(deps.instance === undefined
      ? []
      : [
          serve({ ...api.getEvents, subject: instanceSubject(api.getEvents.subject, deps.instance) }, getEvents),
          serve({ ...api.deleteQueue, subject: instanceSubject(api.deleteQueue.subject, deps.instance) }, deleteQueue),
        ]),
    // Typing is checked by messaging and never stored: it reaches the queues from here.
    bus.subscribe(typingNotice.subject, (payload) => {
      const notice = typingNotice.payload.safeParse(payload);
      if (!notice.success) return;
      const { event, user_ids } = notice.data;
      queues.deliver({ user_ids, eventFor: (queue) => typingEventFor(event, queue.options) });
    }),
    ...(instance === undefined
      ? []
      : [
          bus.subscribe(presenceReported.subject, (payload) => {
            const notice = presenceReported.payload.safeParse(payload);
            if (!notice.success || notice.data.origin === instance) return;
            recordPresence(presence, notice.data.report).catch((err: unknown) => log.warn({ err }, 'presence from another instance not recorded'));
          }),
        ]),
    serveWithDirectory(api.updatePresence, async (params, { actor }) => ({ value: await updatePresence(presence, actor, params) })),
    serveWithDirectory(api.getUserPresence, async (params) => ({ value: await getUserPresence(presence, params.user_id_or_email) })),
    serveWithDirectory(api.getRealmPresence, async () => ({ value: await presencesReply(presence, { slim: false }) })),
  ]);

  return {
    async stop() {
      queues.close();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
      await directoryProjector.stop();
    },
  };
}
