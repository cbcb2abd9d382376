/**
 * The events service: per-client event queues, filled from the event store so that no
 * client ever sees a change that was not stored. Queues are in memory; the projector
 * starts at the store's head because a fresh queue only wants what happens after it.
 */
import { endpoints } from '@teamchat/contracts';
import { contractServer, Projector, type BusSubscription, type RunningService, type ServiceDeps } from '@teamchat/platform';
import { fanOutHandlers } from './projections/fan-out';
import { QueueRegistry } from './queries/queues';
import { registerWithState } from './queries/register-state';

export async function startEventsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, store, config } = deps;
  const queues = new QueueRegistry(config.heartbeatSeconds);
  const projector = new Projector({
    name: 'events',
    store,
    log,
    startAtHead: true,
    handlers: fanOutHandlers((delivery, position) => queues.deliver(delivery, position)),
  });
  await projector.start();
  // The queue must not miss what the client itself did just before registering: the
  // projector catches up with the caller's last write before each request.
  const serve = contractServer({ bus, log, readModels: projector });
  const api = endpoints.events;

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.register, async (params, { actor }) => ({ value: await registerWithState({ bus, queues, fanOut: projector }, actor, params) })),
    serve(api.getEvents, async (params, { actor }) => ({ value: await queues.getEvents(actor, params) })),
    serve(api.deleteQueue, async (params, { actor }) => {
      queues.delete(actor, params.queue_id);
      return { value: {} };
    }),
  ]);

  return {
    async stop() {
      queues.close();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
