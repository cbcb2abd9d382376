/**
 * How projectors catch up (a start behind the store, a rebuild): the size of the batches
 * that each commit with their checkpoint, and how their progress is reported. Read from
 * the environment by every projector of the process (its threads included); loadConfig
 * reads it too, so a bad value refuses the start in one line.
 */
import { positiveInteger, secondsInMs } from './env-values';

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
    batch: positiveInteger(env, 'TEAMCHAT_CATCH_UP_BATCH', DEFAULT_CATCH_UP.batch),
    reportEveryMs: secondsInMs(env, 'TEAMCHAT_CATCH_UP_REPORT_SECONDS', DEFAULT_CATCH_UP.reportEveryMs / 1000),
    reportMinFacts: positiveInteger(env, 'TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS', DEFAULT_CATCH_UP.reportMinFacts),
  };
}
