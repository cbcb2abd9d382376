/**
 * Recipient ids for sends: a conversation's id from the registry's read model (one
 * indexed read), and a new conversation's id allocated on the registry stream.
 *
 * The stream's state is not folded from its start, which at a million messages meant
 * reading 138,000 allocations on every start: it is seeded from the read model's mark (the
 * revision up to which the read model holds every allocation) and only the stream's facts
 * after the mark are read. The decision on that state knows only those later allocations,
 * so a key is looked up in the read model first; the two together hold every allocation,
 * since the read model only grows from the mark on. A wrong expected revision (another
 * process allocated meanwhile) makes the repository read the facts it missed and decide again.
 */
import { streams } from '@teamchat/contracts';
import { AggregateRepository, type EventStore } from '@teamchat/platform';
import { decideAllocateRecipient, evolveRecipients, initialRecipients } from '../domain/recipients';
import type { ConversationsReadModel } from '../projections/conversations';

const STREAM = streams.messageRecipients;

/** Runs work between the projector's batches (Projector.snapshot), so it never sees half a batch. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

export class ConversationIds {
  private readonly registry: AggregateRepository<ReturnType<typeof initialRecipients>>;

  constructor(
    private readonly store: EventStore,
    private readonly model: ConversationsReadModel,
  ) {
    this.registry = new AggregateRepository(this.store, { initial: initialRecipients, evolve: evolveRecipients });
  }

  /**
   * Seeds the registry's state from the read model's mark and reads the stream beyond it:
   * as many facts as conversations were begun since the read model last caught up (none
   * after an ordinary start, which waits for the projector). A store older than the read
   * model has no mark: its stream is copied in once (`fill`), then the same.
   */
  async start(exclusive: Exclusive): Promise<{ filled: number }> {
    let mark = await this.model.mark();
    let filled = 0;
    if (!mark) {
      filled = await exclusive(() => this.model.fill(() => this.store.readStream(STREAM)));
      mark = await this.model.mark();
    }
    if (mark) {
      this.registry.seed(STREAM, { state: { byKey: new Map(), lastId: mark.last_id }, revision: mark.revision, position: mark.position });
    }
    await this.registry.load(STREAM);
    return { filled };
  }

  async idFor(key: string): Promise<number> {
    // An allocation never changes: a known key needs no read of the registry stream.
    const recent = this.registry.cached(STREAM)?.byKey.get(key);
    if (recent !== undefined) return recent;
    const recorded = await this.model.idOf(key);
    if (recorded !== undefined) return recorded;
    const { result } = await this.registry.execute(STREAM, (state) => {
      const facts = decideAllocateRecipient(state, key);
      return { facts, result: facts[0]?.recipient_id ?? state.byKey.get(key)! };
    });
    return result;
  }
}
