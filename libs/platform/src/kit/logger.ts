import pino, { type Logger } from 'pino';

/** One root logger per process; services and requests take child loggers from it. */
export function createLogger(name: string): Logger {
  return pino({ name, level: process.env.LOG_LEVEL ?? 'info' });
}
