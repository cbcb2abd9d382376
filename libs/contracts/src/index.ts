export * from './errors';
export * from './limits';
export * from './actor';
export * from './facts';
export * from './bus';
export * from './params';
export * from './message';
