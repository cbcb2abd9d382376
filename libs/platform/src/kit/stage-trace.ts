/**
 * The stage trace: where a request spends its time between the socket and the reply,
 * across threads (the gateway, the bus hop, a service's handler, the event store's
 * commit and fsync, the projector that makes the write readable). Off by default; with
 * TEAMCHAT_TRACE_STAGES=1 every stage passed writes one line to standard error:
 *
 *   stage-trace <wall clock, ms to the µs> <thread id> <stage> [detail]
 *
 * The clock is the same in every thread (performance.timeOrigin + now()), so the lines of
 * all threads sorted by it tell one request's path when one client sends at a time
 * (`sort -n -k2`). A line costs a few microseconds; an off trace, one boolean test.
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

/** Read once: worker threads inherit the environment of the process that starts them. */
export const stageTracing = /^(1|true|on)$/i.test(process.env.TEAMCHAT_TRACE_STAGES ?? '');

/** Notes that the current request reached `stage`; callers building a detail test `stageTracing` first. */
export function traceStage(stage: string, detail?: string | number): void {
  if (!stageTracing) return;
  const at = (performance.timeOrigin + performance.now()).toFixed(3);
  process.stderr.write(`stage-trace ${at} ${threadId} ${stage}${detail === undefined ? '' : ` ${detail}`}\n`);
}

/** The observer of garbage collections below, while it runs. */
let gcObserver: PerformanceObserver | undefined;

/**
 * Stops the garbage-collection lines: for a test that turned them on, since an observer
 * watches the whole process, and the test runner's process runs other test files next.
 */
export function stopTracingGc(): void {
  gcObserver?.disconnect();
  gcObserver = undefined;
}

/**
 * Garbage collections of this thread, as `gc.start <kind> <ms>` lines at the moment each
 * began (a pause under load is one of the things a slow request may have waited for).
 * Started once per thread that loads this module.
 */
if (stageTracing) {
  const kinds: Record<number, string> = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      const at = (performance.timeOrigin + entry.startTime).toFixed(3);
      process.stderr.write(`stage-trace ${at} ${threadId} gc.start ${kinds[entry.detail?.kind ?? 0] ?? 'other'} ${entry.duration.toFixed(3)}\n`);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  gcObserver = observer;
}
