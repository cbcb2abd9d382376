/**
 * How the operator's command-line tools reach the accounts service. Embedded deployments
 * (no NATS_URL): the tool starts the services on the same data directory and appends to
 * the same event store, which a running server picks up. Distributed deployments (NATS_URL
 * set, as in every service's environment): the tool asks the running accounts service over
 * the bus, like any gateway would, so it works on whatever engines the services use.
 */
import { isApiError } from '@teamchat/contracts';
import { connectBus, createLogger, exitOnStartupFailure, loadConfigOrExplain, loadEngineSettings, type Bus } from '@teamchat/platform';
import { startEmbeddedServices } from './embedded';

export async function reachAccounts(tool: string): Promise<{ bus: Bus; stop(): Promise<void> }> {
  process.env.LOG_LEVEL ??= 'warn';
  if (process.env.NATS_URL) {
    const bus = await connectBus(loadEngineSettings(tool), tool);
    return { bus, stop: () => bus.close() };
  }
  const services = await startEmbeddedServices(loadConfigOrExplain(), createLogger(tool));
  return { bus: services.bus, stop: () => services.stop() };
}

/**
 * Runs one tool's request against the accounts service: what it prints on success, a
 * one-line `error: ...` on stderr and exit code 1 on refusal, the connection closed either way;
 * a start that fails (see exitOnStartupFailure) is one line and exit code 1 as well.
 */
export async function runTool(tool: string, request: (bus: Bus) => Promise<string>): Promise<void> {
  // A data directory refused (open to others in production) or a bus out of reach: one line, exit code 1.
  const accounts = await reachAccounts(tool).catch((err: unknown) => exitOnStartupFailure(tool, err));
  try {
    process.stdout.write(await request(accounts.bus));
  } catch (err) {
    process.stderr.write(`error: ${isApiError(err) ? err.msg : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await accounts.stop();
  }
}
