/**
 * How projectors catch up (a start behind the store, a rebuild): the size of the batches
 * that each commit with their checkpoint, and how their progress is reported. Read from
 * the environment by every projector of the process (its threads included); loadConfig
 * reads it too, so a bad value refuses the start in one line.
 */
export interface CatchUpSettings {
  /** Facts per batch: one read-model transaction that also moves the checkpoint. */
  batch: number;
  /** How often a long catch-up logs its progress. */
  reportEveryMs: number;
  /** A catch-up of at least this many facts reports its progress. */
  reportMinFacts: number;
}

export const DEFAULT_CATCH_UP: CatchUpSettings = { batch: 500, reportEveryMs: 10_000, reportMinFacts: 20_000 };

export function loadCatchUpSettings(env: NodeJS.ProcessEnv = process.env): CatchUpSettings {
  return {
    batch: whole(env, 'TEAMCHAT_CATCH_UP_BATCH', DEFAULT_CATCH_UP.batch),
    reportEveryMs: Math.round(1000 * positive(env, 'TEAMCHAT_CATCH_UP_REPORT_SECONDS', DEFAULT_CATCH_UP.reportEveryMs / 1000)),
    reportMinFacts: whole(env, 'TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS', DEFAULT_CATCH_UP.reportMinFacts),
  };
}

function positive(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${variable}=${JSON.stringify(text)}: expected a number above 0`);
  return value;
}

function whole(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const value = positive(env, variable, fallback);
  if (!Number.isInteger(value)) throw new Error(`${variable}=${JSON.stringify(env[variable])}: expected a whole number above 0`);
  return value;
}
