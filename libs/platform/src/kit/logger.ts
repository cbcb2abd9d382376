import pino, { type Logger } from 'pino';
import { ConfigurationError } from './engines';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** LOG_LEVEL, checked: pino would otherwise stop the process with a stack trace of its own. */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  const text = env.LOG_LEVEL || 'info';
  if (!LEVELS.includes(text)) throw new ConfigurationError(`LOG_LEVEL=${JSON.stringify(text)}: expected one of ${LEVELS.join(', ')}`);
  return text;
}

/**
 * One root logger per process; services and requests take child loggers from it. pino's
 * own base already carries `pid` and `hostname`: a log call must not add them again (a
 * repeated key is two JSON members of one name, which most log readers keep only one of).
 */
export function createLogger(name: string): Logger {
  return pino({ name, level: logLevel() });
}
