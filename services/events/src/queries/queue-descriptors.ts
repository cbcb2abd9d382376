/**
 * The durable half of an event queue: its descriptor, in the events service's own
 * read-model file (`<dataDir>/events.read-models.sqlite`, or the instance's
 * TEAMCHAT_READ_MODELS in the distributed mode), collection `event_queues`.
 *
 * Why there and not as facts in the event store: a queue is a client's session with this
 * events instance, not a change to the organization. Facts are kept forever and every
 * projector of every service reads past them; a queue is registered on every page load
 * and acknowledged on every poll (written every few seconds, see queues.ts). The descriptor holds everything needed to rebuild the
 * queue's events from the store (see EventQueue: ids are derived from store positions),
 * so the events themselves are never written anywhere.
 *
 * Writes go through the store's group commit (READ_MODEL_COMMIT_WITHIN_MS). After a crash
 * the last of them may be missing: a lost acknowledgement only replays events the client's
 * next `last_event_id` drops again; a lost registration is a queue the client is told is
 * unknown. A deletion is answered only once committed (`durable`): a client told its
 * queue is gone must not find it back after a crash. Deleting the file drops every queue;
 * clients register again, as they do after an expiry.
 */
import type { NarrowTerm } from '@teamchat/contracts';
import type { Collection, ReadModelStore } from '@teamchat/platform';

export interface QueueDescriptor {
  [field: string]: unknown;
  _id: string;
  user_id: number;
  event_types: string[] | null;
  /** The narrow as the client sent it (parsed again on rebuild). */
  narrow: NarrowTerm[];
  apply_markdown: boolean;
  client_gravatar: boolean;
  empty_topic_name: boolean;
  /** Client capabilities that choose which ephemeral events the queue gets, and their form. */
  stream_typing_notifications?: boolean;
  simplified_presence_events?: boolean;
  /** Whether a group's deactivation reaches the queue as an update (else as a removal). */
  include_deactivated_groups?: boolean;
  /** Whether archiving a channel reaches the queue as an update (else as a deletion). */
  archived_channels?: boolean;
  /** Whether custom emoji changes reach the queue one emoji at a time (else as the whole set). */
  individual_emoji_changes?: boolean;
  /** Whether a deletion reaches the queue as one event for all its messages (else one per message). */
  bulk_message_deletion?: boolean;
  /** Whether linkifier changes reach the queue (clients without URL templates get none). */
  linkifier_url_template?: boolean;
  lifespan_ms: number;
  /** The store position the queue was registered at. */
  start_after: number;
  /** The highest event id the client acknowledged. */
  acked: number;
  last_access: number;
  /**
   * Per event type, the position up to which the initial state registered with the queue
   * held its changes (state-cutoffs.ts); absent for a queue registered without state.
   */
  cutoffs?: Record<string, number>;
}

export class QueueDescriptors {
  private readonly docs: Collection<QueueDescriptor>;

  constructor(private readonly readModels: ReadModelStore) {
    this.docs = readModels.collection<QueueDescriptor>('event_queues');
  }

  all(): Promise<QueueDescriptor[]> {
    return this.docs.find({});
  }

  save(descriptor: QueueDescriptor): Promise<void> {
    return this.readModels.batch(() => this.docs.put(descriptor));
  }

  remove(id: string): Promise<void> {
    return this.readModels.batch(() => this.docs.delete(id));
  }

  /** Resolves once the writes asked for so far are committed, the group commit's window not awaited. */
  durable(): Promise<void> {
    return this.readModels.durable();
  }
}
