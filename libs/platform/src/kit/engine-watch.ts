/**
 * An operator learns of an engine's outage from the logs once, not from every request that
 * failed during it: one warning when the engine stops answering, one line when it answers
 * again, with how long it was gone. A probe (one cheap read) runs every few seconds, never
 * two at once; requests and projectors deal with the outage on their own (503, retries).
 */
import type { Logger } from 'pino';
import { maskUrl } from './engines';

export interface EngineWatch {
  stop(): void;
}

/** The outage's length as a person reads it. */
export function outageLength(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function watchEngine(
  engine: string,
  url: string,
  probe: () => Promise<unknown>,
  log: Logger,
  options: { everyMs?: number; timeoutMs?: number } = {},
): EngineWatch {
  const everyMs = options.everyMs ?? 2000;
  const timeoutMs = options.timeoutMs ?? 5000;
  const where = maskUrl(url);
  let lostAt: number | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const lost = (err: unknown) => {
    if (lostAt !== undefined || stopped) return;
    lostAt = Date.now();
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    log.warn({ engine, url: where, reason: maskUrl(reason ?? '') }, `${engine} at ${where} is out of reach: requests that need it answer 503 until it returns`);
  };
  const back = () => {
    if (lostAt === undefined || stopped) return;
    const ms = Date.now() - lostAt;
    lostAt = undefined;
    log.info({ engine, url: where, outage_ms: ms }, `${engine} at ${where} answers again after ${outageLength(ms)}`);
  };

  const round = async () => {
    const attempt = probe().then(
      () => true,
      (err: unknown) => err,
    );
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timeout = setTimeout(() => resolve('late'), timeoutMs)));
    let outcome = await Promise.race([attempt, late]);
    clearTimeout(timeout);
    if (outcome === 'late') {
      lost(new Error(`no answer within ${timeoutMs / 1000} s`));
      // A driver that retries on its own answers once the engine is back: wait for it, never pile probes up.
      outcome = await attempt;
    }
    if (outcome === true) back();
    else lost(outcome);
  };
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => void round().finally(loop), everyMs);
    timer.unref();
  };
  loop();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
