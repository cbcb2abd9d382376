/**
 * The one write path for commands: the state of the command's own stream (an aggregate's,
 * or a user's personal stream), a pure decision on it, an append with the exact revision
 * the decision saw, and a bounded retry when another writer got there first.
 *
 * The state is cached per stream, and a command decides on the cached state without
 * reading the store first: the exact expected revision makes a decision on stale state
 * fail to append, and the retry reads what it missed. A decision that appends nothing
 * (a refusal, or nothing to change) cannot be checked that way, so it stands only once a
 * read has shown the stream unchanged. Commands that append, the hot path, read nothing.
 */
import type { Fact } from '@teamchat/contracts';
import { ApiError, storedFactData } from '@teamchat/contracts';
import { isWrongExpectedRevision, type AppendResult, type EventStore } from '../ports/event-store';
import { factOf } from './fact-handlers';
import { newId } from './ids';

export interface Evolver<S> {
  initial: () => S;
  evolve: (state: S, fact: Fact) => S;
}

/** A stream folded up to one of its facts. */
export interface StreamState<S> {
  state: S;
  /** Revision of the last fact folded into `state`; -1 for an absent stream. */
  revision: number;
  /** Global position of that fact (0 for an absent stream): what a read model must reach to reflect it. */
  position: number;
}

/** What a decider returns: the facts to append (none when nothing changes) and the command's answer. */
export interface Decision<R> {
  facts: Fact[];
  result: R;
}

export interface Executed<R> {
  result: R;
  /** Absent when the decision appended nothing. */
  append?: AppendResult;
}

const MAX_ATTEMPTS = 10;
/** Streams whose state stays cached; the least recently used go first beyond this. */
const MAX_CACHED_STREAMS = 10_000;

const noContext = async () => undefined;

/**
 * Appends begun by commands in this thread. A request refused after none began appended
 * nothing, so it may be decided again (see serveContract); a count, not a flag per
 * request, so a concurrent command's append also rules that out, which errs on the safe side.
 */
let appendsBegun = 0;
export const commandAppendsBegun = (): number => appendsBegun;

export class AggregateRepository<S> {
  private cache = new Map<string, StreamState<S>>();
  /** The tail of each stream's queue of commands in this process. */
  private queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: EventStore,
    private readonly evolver: Evolver<S>,
  ) {}

  /**
   * The state as last loaded, possibly behind the store. Only for facts that never change
   * once recorded (e.g. an allocated id); anything else must go through `execute`.
   */
  cached(stream: string): S | undefined {
    return this.cache.get(stream)?.state;
  }

  /**
   * Starts the stream's cache from a state folded elsewhere, up to `revision` (a snapshot
   * a projection keeps): the next load reads only the facts after it. For a long stream
   * whose whole fold a start cannot afford; ignored when the stream is cached already.
   */
  seed(stream: string, snapshot: StreamState<S>): void {
    if (!this.cache.has(stream)) this.remember(stream, snapshot);
  }

  /** Reads what the stream holds beyond the cached state, and caches the result. */
  async load(stream: string): Promise<StreamState<S>> {
    const cached = this.cache.get(stream) ?? { state: this.evolver.initial(), revision: -1, position: 0 };
    const newer = await this.store.readStream(stream, cached.revision + 1);
    let { state, revision, position } = cached;
    for (const fact of newer) {
      state = this.evolver.evolve(state, factOf(fact));
      revision = fact.revision;
      position = fact.position;
    }
    return this.remember(stream, { state, revision, position });
  }

  /**
   * Runs `decide` against the stream's state and appends what it returns. `decide` may
   * throw an ApiError to refuse the command; it may return no facts when nothing changes.
   */
  execute<R>(stream: string, decide: (state: S) => Decision<R>): Promise<Executed<R>> {
    return this.executeWith(stream, noContext, (state) => decide(state));
  }

  /**
   * For a decision that needs more than the stream folds to (e.g. a user's flags stream
   * holds only changes; the flags messages start with are on the messages' own streams,
   * and the read model holds their sum). `loadContext` reads the rest in every attempt, given
   * the stream state the attempt decides on, so that it can first wait for a read model
   * to reach `position`; a retry after a conflict thus reads fresh state. `decide` stays
   * pure, and the append still expects exactly the revision `loadContext` was given: a write by
   * anyone else in between fails the append and is read by the retry.
   */
  executeWith<C, R>(
    stream: string,
    loadContext: (current: StreamState<S>) => Promise<C>,
    decide: (state: S, context: C) => Decision<R>,
  ): Promise<Executed<R>> {
    // Commands on one stream run one at a time within this process, so they never race
    // each other on the expected revision; only other processes' writes cause retries.
    const previous = this.queues.get(stream) ?? Promise.resolve();
    const run = previous.then(
      () => this.attempt(stream, loadContext, decide),
      () => this.attempt(stream, loadContext, decide),
    );
    const tail = run.catch(() => undefined);
    this.queues.set(stream, tail);
    void tail.then(() => {
      if (this.queues.get(stream) === tail) this.queues.delete(stream);
    });
    return run;
  }

  /**
   * Starts a new stream: nothing to read or fold, so no read. The facts are appended
   * expecting no stream; finding one means a reused stream name, a bug and not contention,
   * so the store's error is thrown as it is, never retried.
   */
  async create(stream: string, facts: Fact[]): Promise<AppendResult> {
    appendsBegun++;
    const append = await this.store.append(stream, facts.map(newFact), 'no_stream');
    this.appended(stream, { state: this.evolver.initial(), revision: -1, position: 0 }, facts, append);
    return append;
  }

  private async attempt<C, R>(
    stream: string,
    loadContext: (current: StreamState<S>) => Promise<C>,
    decide: (state: S, context: C) => Decision<R>,
  ): Promise<Executed<R>> {
    let current = this.cache.get(stream);
    // Whether `current` was read from the store in this attempt (else it may be stale).
    let read = false;
    for (let attempt = 1; ; attempt++) {
      if (!current) {
        current = await this.load(stream);
        read = true;
      }
      const seen: StreamState<S> = current;
      let decision: Decision<R>;
      try {
        decision = decide(seen.state, await loadContext(seen));
      } catch (err) {
        if (read) throw err;
        current = await this.load(stream);
        if (current.revision === seen.revision) throw err;
        read = true;
        continue;
      }
      if (decision.facts.length === 0) {
        if (read) return { result: decision.result };
        current = await this.load(stream);
        if (current.revision === seen.revision) return { result: decision.result };
        read = true;
        continue;
      }
      try {
        appendsBegun++;
        const append = await this.store.append(stream, decision.facts.map(newFact), seen.revision < 0 ? 'no_stream' : seen.revision);
        this.appended(stream, seen, decision.facts, append);
        return { result: decision.result, append };
      } catch (err) {
        if (!isWrongExpectedRevision(err)) throw err;
        current = undefined;
        if (attempt >= MAX_ATTEMPTS) {
          throw new ApiError('SERVICE_UNAVAILABLE', 'Too much contention, try again', 503);
        }
        // Another process wrote first: back off a little, at random, before re-reading.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }

  /** Our own append moves the cache along, so the next command needs no read either. */
  private appended(stream: string, before: StreamState<S>, facts: Fact[], append: AppendResult): void {
    this.remember(stream, {
      state: facts.reduce(this.evolver.evolve, before.state),
      revision: append.nextRevision,
      position: append.positions.at(-1) ?? before.position,
    });
  }

  private remember(stream: string, fresh: StreamState<S>): StreamState<S> {
    // Re-inserting keeps the Map in use order, so its first key is the stalest.
    this.cache.delete(stream);
    this.cache.set(stream, fresh);
    if (this.cache.size > MAX_CACHED_STREAMS) this.cache.delete(this.cache.keys().next().value!);
    return fresh;
  }
}

/** Id lists (audiences above all) are stored run-encoded where shorter (stored-ids.ts in contracts). */
const newFact = (data: Fact) => ({ id: newId(), type: data.type, data: storedFactData(data) });
