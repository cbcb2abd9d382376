/**
 * How far V8 lets the old generation grow between full collections, fixed at twice what
 * the last one left alive, for every process of the server (embedded and distributed).
 *
 * Why: by default V8 picks that factor from how busy the collector has been, down to
 * about 1.1 after a busy spell. Measured with the bench: after a burst (its 32-connection
 * lines) a lone client's `GET /messages` met a full collection every 100–150 ms for the
 * whole next line, the main thread spending a quarter of its time marking (mutator
 * utilization 0.65–0.85) and the reads' p99 going from 4–5 ms to 13–17 ms, because each
 * collection set the next limit barely above the live heap and the next one started at
 * once. With the factor fixed the storm did not start (full collections 40 → 19 per run,
 * that read's p99 back to 4.5–6 ms), event delivery and RSS unchanged beyond noise.
 *
 * V8 reads this flag whenever it sets a new limit, so setting it at startup takes effect
 * (a flag read only when the heap is set up, such as the semi-space sizes, would not).
 */
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

export function steadyHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
