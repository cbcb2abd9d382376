/**
 * The events service: per-client event queues, filled from the event store so that no
 * client ever sees a change that was not stored. Queues are in memory; the projector
 * starts at the store's head because a fresh queue only wants what happens after it.
 */
import { DeleteQueueParams, GetEventsParams, queueGroups, RegisterParams, subjects, badRequest } from '@teamchat/contracts';
import { Projector, serveEndpoint, type BusSubscription, type RunningService, type ServiceDeps } from '@teamchat/platform';
import { fanOutHandlers } from './projections/fan-out';
import { QueueRegistry } from './queries/queues';

export async function startEventsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, config } = deps;
  const queues = new QueueRegistry(config.heartbeatSeconds);
  const projector = new Projector({
    name: 'events',
    store,
    log,
    startAtHead: true,
    handlers: fanOutHandlers((delivery) => queues.deliver(delivery)),
  });
  await projector.start();
  const options = { queueGroup: queueGroups.events, log };

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.events.register, RegisterParams, async ({ actor, params, after }) => {
      if (!actor) throw badRequest('Authentication required');
      // The queue must not miss what the client itself did just before registering.
      await projector.waitFor(after);
      return { value: queues.register(actor, params) };
    }, options),
    serveEndpoint(bus, subjects.events.getEvents, GetEventsParams, async ({ actor, params, after }) => {
      if (!actor) throw badRequest('Authentication required');
      await projector.waitFor(after);
      return { value: await queues.getEvents(actor, params) };
    }, options),
    serveEndpoint(bus, subjects.events.deleteQueue, DeleteQueueParams, async ({ actor, params }) => {
      if (!actor) throw badRequest('Authentication required');
      queues.delete(actor, params.queue_id);
      return { value: {} };
    }, options),
  ]);

  return {
    async stop() {
      queues.close();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
