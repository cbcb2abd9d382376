/**
 * The event store port, shaped after what EventStoreDB offers so that its adapter can
 * implement it faithfully and the embedded SQLite adapter offers nothing more:
 * one stream per atomic append, optimistic concurrency by expected revision, forward
 * reads of one stream, and a catch-up subscription to all streams from a checkpoint.
 */

/** A fact to append. `id` is unique across the store: re-appending it is a no-op. */
export interface NewFact {
  id: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

/** A fact as stored. `position` is its place in the global ($all) order. */
export interface StoredFact {
  id: string;
  stream: string;
  /** 0-based position of the fact within its stream. */
  revision: number;
  /** Strictly increasing in commit order over the whole store, never reused. */
  position: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  /** Milliseconds since the epoch when the fact was committed. */
  created: number;
}

/**
 * What the appender expects the stream to look like:
 * - 'no_stream': the stream must not exist yet
 * - 'any': no check
 * - a number: the revision of the stream's last fact
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last fact now in the stream. */
  nextRevision: number;
  /** Global positions of the appended facts, in order. */
  positions: number[];
}

/** Thrown (and recognised by `code`) when the expected revision does not hold. */
export class WrongExpectedRevisionError extends Error {
  readonly code = 'WRONG_EXPECTED_REVISION';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, found ${String(actual)}`);
  }
}

export function isWrongExpectedRevision(err: unknown): err is WrongExpectedRevisionError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'WRONG_EXPECTED_REVISION';
}

/**
 * Called for each fact of a subscription, one at a time and in global order: the next
 * fact is not delivered until the returned promise settles.
 */
export type FactHandler = (fact: StoredFact) => void | Promise<void>;

export interface Subscription {
  /** Resolves once the subscription has stopped and no handler is running. */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver only facts with a position greater than this; 0 or absent means from the start. */
  after?: number;
  /** Called when the handler throws; the subscription stops afterwards. */
  onError?: (err: unknown) => void;
}

export interface EventStore {
  /**
   * Appends facts to one stream atomically. Throws WrongExpectedRevisionError when the
   * expected revision does not hold. Appending facts whose ids are all already stored in
   * that stream returns their existing positions and changes nothing.
   */
  append(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult>;

  /** Reads one stream forward from `fromRevision` (inclusive, default 0). Empty if absent. */
  readStream(stream: string, fromRevision?: number): Promise<StoredFact[]>;

  /** Catch-up subscription to all streams: history after `after`, then live facts. */
  subscribeToAll(handler: FactHandler, options?: SubscribeOptions): Subscription;

  /** Position of the last committed fact (0 when empty). */
  headPosition(): Promise<number>;

  close(): Promise<void>;
}
