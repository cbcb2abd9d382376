export * from './reducer';
export * from './narrow';
export * from './unreads';
export * from './message-list';
export * from './event-loop';
export * from './search';
export * from './typing';
export * from './people';
