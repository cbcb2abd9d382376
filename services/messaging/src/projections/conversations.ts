/**
 * The conversation registry as a read model: each allocated recipient id by its
 * conversation key, and how far the registry stream is held here without a gap (its
 * revision, global position and highest id). A start then needs only that mark and the
 * stream's facts after it, instead of folding every allocation since the organization
 * began (138,000 conversations at 1,000,000 messages: 2.4 s of the messaging thread).
 *
 * A store that had allocations before this projection existed has ids here only from then
 * on and no mark; `fill` copies the stream in once (handlers/conversation-ids.ts).
 */
import { streams } from '@teamchat/contracts';
import { factOf, type Collection, type Doc, type FactHandlers, type ReadModelStore, type StoredFact } from '@teamchat/platform';

interface ConversationDoc extends Doc {
  /** The conversation's key: `channel:<id>` or `direct:<sorted user ids>`. */
  _id: string;
  recipient_id: number;
}

/** The registry stream's allocations held here, all of them up to `revision`. */
export interface RegistryMark extends Doc {
  _id: typeof MARK;
  revision: number;
  position: number;
  last_id: number;
}

const MARK = 'registry';
const FILL_BATCH = 10_000;

export class ConversationsReadModel {
  readonly ids: Collection<ConversationDoc>;
  readonly marks: Collection<RegistryMark>;

  constructor(private readonly readModels: ReadModelStore) {
    // Sends ask for the same few busy conversations over and over.
    this.ids = readModels.collection<ConversationDoc>('conversations', [], { cacheSize: 20_000 });
    this.marks = readModels.collection<RegistryMark>('conversation_registry_mark');
  }

  get collections(): { clear(): Promise<void> }[] {
    return [this.ids, this.marks];
  }

  readonly handlers = {
    RecipientAllocated: (fact, stored) => this.allocated(fact.key, fact.recipient_id, stored),
  } satisfies FactHandlers;

  /**
   * The mark moves only onto the revision right after it (or the stream's first): a
   * replayed fact, or one after a stretch this read model never saw, leaves it where it
   * was, so that everything up to the mark is always here.
   */
  async allocated(key: string, recipientId: number, stored: Pick<StoredFact, 'stream' | 'revision' | 'position'>): Promise<void> {
    if (stored.stream !== streams.messageRecipients) return;
    await this.ids.put({ _id: key, recipient_id: recipientId });
    const mark = await this.marks.get(MARK);
    if (stored.revision !== (mark?.revision ?? -1) + 1) return;
    await this.marks.put({ _id: MARK, revision: stored.revision, position: stored.position, last_id: Math.max(mark?.last_id ?? 0, recipientId) });
  }

  /**
   * Copies the registry stream in, for a store whose allocations began before this read
   * model: `read` returns the stream's facts from its start. Run between the projector's
   * batches, so that every allocation the projector applied without moving the mark is
   * among them. In transactions of FILL_BATCH facts. Returns how many were read.
   */
  async fill(read: () => Promise<StoredFact[]>): Promise<number> {
    const facts = await read();
    for (let at = 0; at < facts.length; at += FILL_BATCH) {
      await this.readModels.batch(async () => {
        for (const stored of facts.slice(at, at + FILL_BATCH)) {
          const fact = factOf(stored);
          if (fact.type === 'RecipientAllocated') await this.allocated(fact.key, fact.recipient_id, stored);
        }
      });
    }
    return facts.length;
  }

  /** How far the registry stream is held here; undefined before the first fill of a store older than this read model. */
  mark(): Promise<RegistryMark | undefined> {
    return this.marks.get(MARK);
  }

  async idOf(key: string): Promise<number | undefined> {
    return (await this.ids.get(key))?.recipient_id;
  }
}
