/**
 * How the project's numbers map onto EventStoreDB's, kept pure so that it is tested
 * without an engine.
 *
 * Positions. EventStoreDB orders $all by a pair (commit, prepare) of byte offsets in its
 * transaction log. Over gRPC every append is one implicit transaction: its events are
 * written back to back, each at its own prepare offset, and all of them carry the
 * transaction's first offset as their commit position. So the prepare offset alone is
 * unique per event and grows in $all order; commit positions repeat within one append.
 * The project's position is therefore `prepare + 1` (0 stays "before everything"), which
 * is strictly increasing and never reused, because the log is append-only and scavenging
 * never rewrites the offsets of live events.
 *
 * Resuming after a position p is the subtle part: EventStoreDB resumes from a pair, and
 * the commit half of p's pair is not known from p. It is at most one append's size below
 * p's prepare offset (an append is one contiguous transaction no larger than the
 * server's MaxAppendSize), so a subscription starts that far back and the adapter drops
 * every event at or before p. That re-reads at most one append's worth of log per
 * (re)subscription.
 *
 * The project derives event-queue ids from positions (position × 1000 + k), so positions
 * must stay below Number.MAX_SAFE_INTEGER / 1000: a log of about 9 TB.
 */

export interface EsdbPosition {
  commit: bigint;
  prepare: bigint;
}

/** EventStoreDB's default MaxAppendSize (1 MiB); a server configured larger needs the option raised. */
export const DEFAULT_MAX_APPEND_BYTES = 1024 * 1024;

/** Above this a position no longer leaves room for the event ids derived from it. */
export const MAX_POSITION = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

export function toProjectPosition(position: EsdbPosition | undefined): number {
  if (!position) throw new Error('EventStoreDB returned an event without its $all position');
  const value = Number(position.prepare) + 1;
  if (position.prepare < 0n || !Number.isSafeInteger(value) || value > MAX_POSITION) {
    throw new Error(`EventStoreDB position ${position.prepare} is outside what the project can number`);
  }
  return value;
}

/**
 * Where a subscription delivering the facts after `after` starts: 'start', or a pair at or
 * before the transaction holding the fact at `after` (see above). Events at or before
 * `after` that this re-reads are dropped by `isAfter`.
 */
export function resumePoint(after: number, maxAppendBytes = DEFAULT_MAX_APPEND_BYTES): 'start' | EsdbPosition {
  if (!(after > 0)) return 'start';
  const prepare = BigInt(after - 1);
  const from = prepare - BigInt(maxAppendBytes);
  if (from <= 0n) return 'start';
  return { commit: from, prepare: from };
}

export function isAfter(position: number, after: number): boolean {
  return position > after;
}

/**
 * The port's expected revision as the client's: 'no_stream' and 'any' by name, a
 * revision as a bigint (the client's exact expectation).
 */
export function toExpectedRevision(expected: 'no_stream' | 'any' | number): 'no_stream' | 'any' | bigint {
  if (expected === 'no_stream' || expected === 'any') return expected;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new Error(`expected revision ${expected} is not a revision`);
  return BigInt(expected);
}

/** The stream's revision as the port states it in WrongExpectedRevisionError. */
export function fromCurrentRevision(current: bigint | 'no_stream' | undefined): number | 'no_stream' {
  if (current === undefined || current === 'no_stream' || current < 0n) return 'no_stream';
  return Number(current);
}

/**
 * Delay before the next attempt to reach an engine: doubling from 100 ms up to 5 s, so a
 * short outage is bridged quickly and a long one does not hammer the engine.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(5000, 100 * 2 ** Math.max(0, Math.min(attempt, 16)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** Event types EventStoreDB writes itself start with '$'; the project's never do. */
export const PROJECT_EVENT_TYPES = /^[^$]/;
