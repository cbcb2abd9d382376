/**
 * How one environment variable of the configuration is read: each reader takes the
 * fallback for an unset or empty variable, and refuses anything it cannot read exactly,
 * naming the variable and its value, rather than start with a guess.
 */

/** The server's mode (TEAMCHAT_MODE, read by loadMode in config.ts). */
export type ServerMode = 'development' | 'production';

/** A number of seconds above 0, in milliseconds. */
export function secondsInMs(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback * 1000;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${variable}=${JSON.stringify(text)}: expected a number of seconds above 0`);
  return Math.round(value * 1000);
}

export function positiveInteger(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${variable}=${JSON.stringify(text)}: expected a whole number above 0`);
  return value;
}

/** `1` on, `0` or unset off: any other value is a typo, refused rather than read as off. */
export function flag(env: NodeJS.ProcessEnv, variable: string): boolean {
  const text = env[variable];
  if (text === undefined || text === '' || text === '0') return false;
  if (text === '1') return true;
  throw new Error(`${variable}=${JSON.stringify(text)}: expected 1 (on) or 0 (off)`);
}
