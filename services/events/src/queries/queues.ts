/**
 * The queue registry of this events instance: register, long-poll, delete, expiry,
 * and the fan-out of deliveries to the queues of their users.
 */
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  EMPTY_TOPIC_DISPLAY_NAME,
  LIMITS,
  ZULIP_FEATURE_LEVEL,
  ZULIP_VERSION,
  type Actor,
  type ClientEvent,
  type GetEventsParams,
  type RegisterParams,
} from '@teamchat/contracts';
import { EventQueue } from '../domain/event-queue';
import { parseQueueNarrow } from '../domain/queue-narrow';
import { StateCutoffs, type Cutoffs } from '../domain/state-cutoffs';
import type { Delivery } from '../projections/fan-out';

/** A queue nobody has polled for this long is dropped (Zulip uses ten minutes too). */
const QUEUE_IDLE_MS = 10 * 60 * 1000;

const badQueue = (queueId: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

export class QueueRegistry {
  private queues = new Map<string, EventQueue<ClientEvent>>();
  private byUser = new Map<number, Set<EventQueue<ClientEvent>>>();
  private sweeper: NodeJS.Timeout;
  /** Consistency of new queues with the initial state registered with them (register-state.ts). */
  private readonly initialState = new StateCutoffs<ClientEvent>();

  constructor(private readonly heartbeatSeconds: number) {
    this.sweeper = setInterval(() => this.expireIdle(), 60_000);
    this.sweeper.unref();
  }

  register(actor: Actor, params: RegisterParams) {
    const queue = new EventQueue<ClientEvent>(randomUUID(), {
      user_id: actor.user_id,
      event_types: params.event_types ? new Set(params.event_types) : null,
      apply_markdown: params.apply_markdown ?? false,
      client_gravatar: params.client_gravatar ?? true,
      empty_topic_name: params.client_capabilities?.empty_topic_name === true,
      narrow: parseQueueNarrow(params.narrow, actor.user_id),
      stream_typing_notifications: params.client_capabilities?.stream_typing_notifications === true,
      simplified_presence_events: params.client_capabilities?.simplified_presence_events === true,
    });
    this.queues.set(queue.id, queue);
    const mine = this.byUser.get(actor.user_id) ?? new Set();
    mine.add(queue);
    this.byUser.set(actor.user_id, mine);
    return {
      queue_id: queue.id,
      last_event_id: -1,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      ...LIMITS,
      realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
      // Clients time out their long-poll after this; it must exceed the heartbeat.
      event_queue_longpoll_timeout_seconds: this.heartbeatSeconds + 30,
    };
  }

  private owned(actor: Actor, queueId: string): EventQueue<ClientEvent> {
    const queue = this.queues.get(queueId);
    if (!queue || queue.options.user_id !== actor.user_id) throw badQueue(queueId);
    return queue;
  }

  async getEvents(actor: Actor, params: GetEventsParams) {
    const queue = this.owned(actor, params.queue_id);
    const lastEventId = params.last_event_id ?? -1;
    let events = queue.after(lastEventId);
    if (events.length === 0 && !params.dont_block) {
      await queue.waitForEvent(this.heartbeatSeconds * 1000);
      if (!this.queues.has(queue.id)) throw badQueue(queue.id);
      events = queue.after(lastEventId);
      if (events.length === 0) {
        queue.push({ type: 'heartbeat' });
        events = queue.after(lastEventId);
      }
    }
    return { events: [...events], queue_id: queue.id };
  }

  delete(actor: Actor, queueId: string): void {
    this.drop(this.owned(actor, queueId));
  }

  /** `position`: the store position of the fact the delivery announces, if any. */
  deliver(delivery: Delivery, position?: number): void {
    for (const userId of delivery.user_ids) {
      for (const queue of this.byUser.get(userId) ?? []) {
        const event = delivery.eventFor(queue);
        if (event && this.initialState.admit(queue.id, event, position)) queue.push(event);
      }
    }
  }

  /** Holds the queue's events until its initial state is known (see StateCutoffs). */
  holdForState(queueId: string): void {
    this.initialState.hold(queueId);
  }

  releaseWithState(queueId: string, cutoffs: Cutoffs): void {
    const queue = this.queues.get(queueId);
    for (const event of this.initialState.release(queueId, cutoffs)) queue?.push(event);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const queue of this.queues.values()) queue.release();
  }

  private drop(queue: EventQueue<ClientEvent>): void {
    this.queues.delete(queue.id);
    this.initialState.forget(queue.id);
    this.byUser.get(queue.options.user_id)?.delete(queue);
    queue.release();
  }

  private expireIdle(): void {
    const cutoff = Date.now() - QUEUE_IDLE_MS;
    for (const queue of this.queues.values()) {
      if (!queue.hasWaiters && queue.lastAccess < cutoff) this.drop(queue);
    }
  }
}
