import type { Logger } from 'pino';
import type { Bus } from '../ports/bus';
import type { EventStore } from '../ports/event-store';
import type { Mailer } from '../ports/mailer';
import type { ReadModelStore } from '../ports/read-models';
import type { ServerConfig } from './config';

/** What every domain service is built from; adapters are chosen by the caller (the mode). */
export interface ServiceDeps {
  store: EventStore;
  readModels: ReadModelStore;
  bus: Bus;
  log: Logger;
  config: ServerConfig;
  /** Outgoing email, built once per process from config.mail (createMailer). */
  mailer: Mailer;
  /**
   * This process's instance name in the distributed mode (TEAMCHAT_INSTANCE), where a
   * service may run as several; absent in the embedded server. The events service names
   * its queues after it.
   */
  instance?: string;
}

export interface RunningService {
  stop(): Promise<void>;
}
