/**
 * Command execution for a decider over one stream: load the stream's state (cached in
 * memory and caught up from its last known revision), decide, append with the expected
 * revision, and retry a bounded number of times when another writer got there first.
 */
import type { Fact } from '@teamchat/contracts';
import { ApiError } from '@teamchat/contracts';
import { isWrongExpectedRevision, type AppendResult, type EventStore } from '../ports/event-store';
import { factOf } from './fact-handlers';
import { newId } from './ids';

export interface Evolver<S> {
  initial: () => S;
  evolve: (state: S, fact: Fact) => S;
}

interface Cached<S> {
  state: S;
  /** Revision of the last fact folded into `state`; -1 for an absent stream. */
  revision: number;
}

const MAX_ATTEMPTS = 10;
/** Streams whose state stays cached; the least recently loaded go first beyond this. */
const MAX_CACHED_STREAMS = 10_000;

export class AggregateRepository<S> {
  private cache = new Map<string, Cached<S>>();
  /** The tail of each stream's queue of commands in this process. */
  private queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: EventStore,
    private readonly evolver: Evolver<S>,
  ) {}

  /**
   * The state as last loaded, possibly behind the store. Only for facts that never change
   * once recorded (e.g. an allocated id); anything else must `load`.
   */
  cached(stream: string): S | undefined {
    return this.cache.get(stream)?.state;
  }

  async load(stream: string): Promise<Cached<S>> {
    const cached = this.cache.get(stream) ?? { state: this.evolver.initial(), revision: -1 };
    const newer = await this.store.readStream(stream, cached.revision + 1);
    let { state, revision } = cached;
    for (const fact of newer) {
      state = this.evolver.evolve(state, factOf(fact));
      revision = fact.revision;
    }
    const fresh = { state, revision };
    // Re-inserting keeps the Map in load order, so its first key is the stalest.
    this.cache.delete(stream);
    this.cache.set(stream, fresh);
    if (this.cache.size > MAX_CACHED_STREAMS) this.cache.delete(this.cache.keys().next().value!);
    return fresh;
  }

  /**
   * Runs `decide` against the current state and appends what it returns. `decide` may
   * throw an ApiError to refuse the command; it may return no facts when nothing changes.
   */
  execute<R>(stream: string, decide: (state: S) => { facts: Fact[]; result: R }): Promise<{ result: R; append?: AppendResult }> {
    // Commands on one stream run one at a time within this process, so they never race
    // each other on the expected revision; only other processes' writes cause retries.
    const previous = this.queues.get(stream) ?? Promise.resolve();
    const run = previous.then(
      () => this.attempt(stream, decide),
      () => this.attempt(stream, decide),
    );
    const tail = run.catch(() => undefined);
    this.queues.set(stream, tail);
    void tail.then(() => {
      if (this.queues.get(stream) === tail) this.queues.delete(stream);
    });
    return run;
  }

  private async attempt<R>(
    stream: string,
    decide: (state: S) => { facts: Fact[]; result: R },
  ): Promise<{ result: R; append?: AppendResult }> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(stream);
      const { facts, result } = decide(state);
      if (facts.length === 0) return { result };
      try {
        const append = await this.store.append(
          stream,
          facts.map((data) => ({ id: newId(), type: data.type, data })),
          revision < 0 ? 'no_stream' : revision,
        );
        return { result, append };
      } catch (err) {
        if (!isWrongExpectedRevision(err)) throw err;
        this.cache.delete(stream);
        if (attempt >= MAX_ATTEMPTS) {
          throw new ApiError('SERVICE_UNAVAILABLE', 'Too much contention, try again', 503);
        }
        // Another process wrote first: back off a little, at random, before re-reading.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }
}
