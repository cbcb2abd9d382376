/**
 * How the operator's command-line tools reach the accounts service. Embedded deployments
 * (no NATS_URL): the tool starts the services on the same data directory and appends to
 * the same event store, which a running server picks up. Distributed deployments (NATS_URL
 * set, as in every service's environment): the tool asks the running accounts service over
 * the bus, like any gateway would, so it works on whatever engines the services use.
 *
 * Either way the tool first says which store or bus it acts on (an operator with two data
 * directories must see which one changed), and refuses a store of the other mode, as the
 * server does.
 */
import { isApiError } from '@teamchat/contracts';
import {
  checkDeploymentMode,
  connectBus,
  createLogger,
  describeStartupFailure,
  exitOnStartupFailure,
  loadConfigOrExplain,
  loadEngineSettings,
  loadMode,
  maskUrl,
  type Bus,
} from '@teamchat/platform';
import { startEmbeddedServices } from './embedded';

export async function reachAccounts(tool: string): Promise<{ bus: Bus; where: string; stop(): Promise<void> }> {
  process.env.LOG_LEVEL ??= 'warn';
  if (process.env.NATS_URL) {
    // Over the bus the tool needs its mode and the bus; the services hold the rest.
    const mode = loadMode();
    const engines = loadEngineSettings(tool);
    const where = maskUrl(engines.natsUrl);
    const bus = await connectBus(engines, tool);
    try {
      await checkDeploymentMode(bus, mode, where);
    } catch (err) {
      await bus.close();
      throw err;
    }
    return { bus, where: `the deployment on NATS at ${where} (${mode} mode)`, stop: () => bus.close() };
  }
  const config = loadConfigOrExplain();
  const defaulted = process.env.TEAMCHAT_DATA_DIR ? '' : ' (TEAMCHAT_DATA_DIR is not set: ./data of the current directory)';
  const services = await startEmbeddedServices(config, createLogger(tool));
  return { bus: services.bus, where: `the data directory ${config.dataDir}${defaulted} (${config.mode} mode)`, stop: () => services.stop() };
}

/**
 * Runs one tool's request against the accounts service: what it prints on success, a
 * one-line `error: ...` on stderr and exit code 1 on refusal, the connection closed either way;
 * a start that fails (see exitOnStartupFailure) is one line and exit code 1 as well.
 */
export async function runTool(tool: string, request: (bus: Bus) => Promise<string>): Promise<void> {
  // A data directory refused (open to others in production, of the other mode) or a bus out of reach: one line, exit code 1.
  const accounts = await reachAccounts(tool).catch((err: unknown) => exitOnStartupFailure(tool, err));
  try {
    process.stdout.write(`${tool}: acting on ${accounts.where}\n`);
    process.stdout.write(await request(accounts.bus));
  } catch (err) {
    process.stderr.write(`error: ${isApiError(err) ? err.msg : describeStartupFailure(err)}\n`);
    process.exitCode = 1;
  } finally {
    await accounts.stop();
  }
}
