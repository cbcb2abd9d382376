/**
 * The scheduled messages and reminders not yet delivered or deleted, by id (the position
 * of their first fact), with their stream: what the endpoints list and the scheduler
 * scans for due ones. Rebuilt from the facts like every read model, so that the schedule
 * survives restarts. Idempotent: every write is a full put or a delete.
 */
import { apiReminder, apiScheduledMessage, type ScheduledSnapshot } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface ScheduledDoc extends Doc {
  _id: number;
  stream: string;
  user_id: number;
  kind: ScheduledSnapshot['kind'];
  /** Indexed copy of the snapshot's time, for the scheduler's scan. */
  scheduled_delivery_timestamp: number;
  status: 'pending' | 'delivering' | 'failed';
  /** When a delivery attempt was claimed (ms), for taking up abandoned ones. */
  started_at: number | null;
  failure_message: string | null;
  scheduled: ScheduledSnapshot;
}

export class ScheduledMessages {
  readonly collection: Collection<ScheduledDoc>;
  /** Told once a scheduled message is recorded or moved (see `whenScheduled`). */
  private scheduledListener: (() => void) | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<ScheduledDoc>('scheduled_messages', [
      { fields: ['user_id', 'kind'] },
      { fields: ['status', 'scheduled_delivery_timestamp'] },
    ]);
  }

  /** The delivery loop's wake-up: a new or moved one may be due before its planned scan. */
  whenScheduled(listener: () => void): void {
    this.scheduledListener = listener;
  }

  private async update(id: number, change: (doc: ScheduledDoc) => ScheduledDoc): Promise<void> {
    const doc = await this.collection.get(id);
    if (doc) await this.collection.put(change(doc));
  }

  readonly handlers = {
    ScheduledMessageCreated: async ({ scheduled }, stored) => {
      await this.collection.put({
        _id: stored.position,
        stream: stored.stream,
        user_id: scheduled.user_id,
        kind: scheduled.kind,
        scheduled_delivery_timestamp: scheduled.scheduled_delivery_timestamp,
        status: 'pending',
        started_at: null,
        failure_message: null,
        scheduled,
      });
      this.scheduledListener?.();
    },
    ScheduledMessageEdited: async ({ scheduled_message_id, scheduled }) => {
      await this.update(scheduled_message_id, (doc) => ({
        ...doc,
        scheduled,
        scheduled_delivery_timestamp: scheduled.scheduled_delivery_timestamp,
        status: 'pending',
        started_at: null,
        failure_message: null,
      }));
      this.scheduledListener?.();
    },
    ScheduledMessageDeliveryStarted: async ({ scheduled_message_id, started_at }) =>
      this.update(scheduled_message_id, (doc) => ({ ...doc, status: 'delivering', started_at })),
    ScheduledMessageFailed: async ({ scheduled_message_id, failure_message }) =>
      this.update(scheduled_message_id, (doc) => ({ ...doc, status: 'failed', started_at: null, failure_message })),
    ScheduledMessageDelivered: async ({ scheduled_message_id }) => this.collection.delete(scheduled_message_id),
    ScheduledMessageDeleted: async ({ scheduled_message_id }) => this.collection.delete(scheduled_message_id),
  } satisfies FactHandlers;

  private async listOf(userId: number, kind: ScheduledSnapshot['kind']): Promise<ScheduledDoc[]> {
    const docs = await this.collection.find({ user_id: userId, kind });
    // Zulip lists them in delivery order.
    return [...docs].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a._id - b._id);
  }

  async scheduledMessagesOf(userId: number) {
    return (await this.listOf(userId, 'scheduled')).map((d) => apiScheduledMessage(d._id, d.scheduled, d.status === 'failed'));
  }

  async remindersOf(userId: number) {
    return (await this.listOf(userId, 'reminder')).map((d) => apiReminder(d._id, d.scheduled, d.status === 'failed'));
  }

  /**
   * When the next one falls due (ms since the epoch): the earliest waiting one's second, or
   * the end of the lease of the earliest claimed one; undefined when there is none.
   */
  async nextDue(leaseMs: number): Promise<number | undefined> {
    const [pending, delivering] = await Promise.all([
      this.collection.find({ status: 'pending' }, { sort: ['scheduled_delivery_timestamp', 1], limit: 1 }),
      this.collection.find({ status: 'delivering' }),
    ]);
    const times = [
      ...pending.map((d) => d.scheduled_delivery_timestamp * 1000),
      ...delivering.flatMap((d) => (d.started_at === null ? [] : [d.started_at + leaseMs])),
    ];
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Due (time reached) and still waiting, or claimed by an attempt that started before `claimedBefore`. */
  async due(nowSeconds: number, claimedBefore: number, limit: number): Promise<ScheduledDoc[]> {
    const [pending, delivering] = await Promise.all([
      this.collection.find({ status: 'pending', scheduled_delivery_timestamp: { $lte: nowSeconds } }, { sort: ['scheduled_delivery_timestamp', 1], limit }),
      this.collection.find({ status: 'delivering', scheduled_delivery_timestamp: { $lte: nowSeconds } }, { limit }),
    ]);
    return [...pending, ...delivering.filter((d) => d.started_at !== null && d.started_at < claimedBefore)];
  }
}
