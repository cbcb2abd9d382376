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

/**
 * While the services catch up with the store at start (minutes for a rebuild of a large
 * one), the heap grows by less: a rebuild allocates fast and keeps little, and with the
 * serving factor its threads' heaps ran at twice what they kept. Measured on a rebuild of
 * 1,238,141 facts (1,000,000 messages, 2,000 users): peak resident memory 723 MiB with
 * the serving factor, about 540 MiB with this one (with the smaller catch-up page cache),
 * at the same 5,000–5,500 facts/s. Nothing answers but 503s meanwhile, so the extra
 * collections cost no request anything.
 */
const CATCH_UP_HEAP_GROWING_PERCENT = 30;

export function steadyHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Until the services serve (then steadyHeapGrowth): see CATCH_UP_HEAP_GROWING_PERCENT. */
export function catchUpHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${CATCH_UP_HEAP_GROWING_PERCENT}`);
}
