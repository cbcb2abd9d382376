export * from './ports/event-store';
export * from './ports/read-models';
export * from './ports/bus';
export * from './adapters/in-process-bus';
export * from './adapters/nats-bus';
export { PortBus, bridgePort } from './adapters/port-bus';
export { SqliteEventStore, type SqliteEventStoreOptions } from './adapters/sqlite-event-store';
export { READ_MODEL_COMMIT_WITHIN_MS, SqliteReadModelStore } from './adapters/sqlite-read-models';
export * from './kit';
