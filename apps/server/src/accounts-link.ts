/**
 * How the operator's command-line tools reach the accounts service. Embedded deployments
 * (no NATS_URL): the tool starts the services on the same data directory and appends to
 * the same event store, which a running server picks up. Distributed deployments (NATS_URL
 * set, as in every service's environment): the tool asks the running accounts service over
 * the bus, like any gateway would, so it works on whatever engines the services use.
 */
import { connectBus, createLogger, loadConfig, loadEngineSettings, type Bus } from '@teamchat/platform';
import { startEmbeddedServices } from './embedded';

export async function reachAccounts(tool: string): Promise<{ bus: Bus; stop(): Promise<void> }> {
  process.env.LOG_LEVEL ??= 'warn';
  if (process.env.NATS_URL) {
    const bus = await connectBus(loadEngineSettings(tool), tool);
    return { bus, stop: () => bus.close() };
  }
  const services = await startEmbeddedServices(loadConfig(), createLogger(tool));
  return { bus: services.bus, stop: () => services.stop() };
}
