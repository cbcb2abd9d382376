/**
 * Which mode a store belongs to, and which processes answer on a bus.
 *
 * The mode is a fact in the store itself (stream `deployment`, `DeploymentModeChosen`),
 * appended by the first process of either mode that opens the store, before anything
 * else is written: so it travels with the store wherever it goes (a backup, an
 * EventStoreDB cluster), and a process of the other mode refuses the store in one line.
 * A development store holds accounts anyone could take (the seed, development keys); a
 * production server must never serve it, nor a development server a production store.
 * A store from before this fact existed is claimed by the first process that opens it,
 * which says so.
 *
 * Processes that reach the store only over the bus (the gateway, the operator tools, the
 * seed) ask a service: every service process answers `platform.deployment` with its mode,
 * which it has checked against the store. Each also answers on a subject named after its
 * instance, so that a second process started under a name already answering refuses.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isBusError, type Bus, type BusSubscription } from '../ports/bus';
import { isWrongExpectedRevision, type EventStore } from '../ports/event-store';
import type { ServerMode } from './config';
import { ConfigurationError } from './engines';

const STREAM = 'deployment';
const MODE_FACT = 'DeploymentModeChosen';

/** The other mode's store refused, with the fix. */
function otherModeError(storeMode: ServerMode, mode: ServerMode, where: string): ConfigurationError {
  return new ConfigurationError(
    `${where} belongs to a ${storeMode} server, and this process runs in ${mode} mode: set TEAMCHAT_MODE=${storeMode}, or use another store for ${mode}`,
  );
}

/**
 * Records `mode` as the store's, or checks it against the one recorded. `where` names the
 * store for the operator (a data directory, an EventStoreDB URL without its password).
 */
export async function claimStoreMode(store: EventStore, mode: ServerMode, where: string, log?: Logger): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const recorded = (await store.readStream(STREAM)).find((fact) => fact.type === MODE_FACT);
    if (recorded) {
      const storeMode = (recorded.data as { mode?: unknown }).mode;
      if (storeMode !== mode) throw otherModeError(storeMode === 'production' ? 'production' : 'development', mode, where);
      return;
    }
    const existing = await store.headPosition();
    try {
      await store.append(STREAM, [{ id: `deployment-mode-${mode}`, type: MODE_FACT, data: { mode } }], 'no_stream');
    } catch (err) {
      // Another process claimed it at the same moment: read what it recorded.
      if (isWrongExpectedRevision(err)) continue;
      throw err;
    }
    if (existing > 0) log?.warn({ mode }, `${where} predates the store's mode record: recorded it as a ${mode} store`);
    return;
  }
  throw new ConfigurationError(`${where}: could not record the store's mode`);
}

const MODE_SUBJECT = 'platform.deployment';
const instanceSubject = (service: string, instance: string) => `platform.instance.${service}.${instance}`;

interface Presence {
  mode: ServerMode;
  pid: number;
  host: string;
  since: string;
}

/**
 * Refuses to start a second process named `instance` for `service` while one answers on the
 * bus. (Two started in the same instant may both pass: the check is a request, not a lock.)
 */
export async function refuseDuplicateInstance(bus: Bus, service: string, instance: string): Promise<void> {
  let answer: Presence;
  try {
    answer = (await bus.request(instanceSubject(service, instance), {}, 2000)) as unknown as Presence;
  } catch (err) {
    if (isBusError(err) && (err.code === 'NO_RESPONDERS' || err.code === 'TIMEOUT')) return;
    throw err;
  }
  throw new ConfigurationError(
    `another ${service} process is already running as instance ${instance} (pid ${answer.pid} on ${answer.host}, since ${answer.since}): give each process its own TEAMCHAT_INSTANCE`,
  );
}

/** Answers the mode and instance requests for as long as the process runs. */
export async function announcePresence(bus: Bus, service: string, instance: string, mode: ServerMode): Promise<BusSubscription[]> {
  const presence: Presence = { mode, pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const answer = async () => ({ ...presence });
  return [
    await bus.serve(instanceSubject(service, instance), answer),
    // Services only: they have checked the store's mode themselves.
    ...(service === 'gateway' ? [] : [await bus.serve(MODE_SUBJECT, answer, MODE_SUBJECT)]),
  ];
}

/**
 * For a process that reaches the store over the bus only: refuses a deployment of the other
 * mode. `waitMs`: how long to wait for a service to answer (a gateway started with its
 * services); 0 fails at once when none does.
 */
export async function checkDeploymentMode(bus: Bus, mode: ServerMode, natsUrl: string, waitMs = 0, log?: Logger): Promise<void> {
  const deadline = Date.now() + waitMs;
  let said = false;
  for (;;) {
    try {
      const answer = (await bus.request(MODE_SUBJECT, {}, 2000)) as unknown as Presence;
      if (answer.mode !== mode) throw otherModeError(answer.mode, mode, `the deployment on ${natsUrl}`);
      return;
    } catch (err) {
      if (!isBusError(err)) throw err;
      if (Date.now() >= deadline) {
        throw new ConfigurationError(`no service answers on the bus at ${natsUrl}: start the services first (or check NATS_URL)`);
      }
      if (!said) log?.info(`waiting for a service on ${natsUrl} to confirm the deployment's mode`);
      said = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
