export * from './ports/event-store';
export * from './ports/read-models';
export * from './ports/bus';
export * from './adapters/in-process-bus';
export * from './adapters/nats-bus';
export { PortBus, bridgePort } from './adapters/port-bus';
export * from './testing/bus-contract';
export {
  describeWithNats,
  findNatsServer,
  natsAvailability,
  startNatsServer,
  type NatsServer,
} from './testing/nats-server';
export { SqliteEventStore, type SqliteEventStoreOptions } from './adapters/sqlite-event-store';
export { READ_MODEL_COMMIT_WITHIN_MS, SqliteReadModelStore } from './adapters/sqlite-read-models';
export { eventStoreContract, type EventStoreFixture } from './testing/event-store-contract';
export { readModelContract, type ReadModelFixture } from './testing/read-model-contract';
export * from './kit';
