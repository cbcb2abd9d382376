export * from './ports/event-store';
export * from './ports/read-models';
export * from './ports/bus';
