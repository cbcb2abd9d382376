export * from './endpoint';
export * from './projector';
export * from './aggregate';
export * from './logger';
export * from './config';
export * from './context';
export * from './notifying-store';
export * from './process';
