/**
 * The queue registry of this events instance: register, long-poll, delete, expiry, the
 * memory bounds, the fan-out of deliveries to the queues of their users, and the queues'
 * durable descriptors (rebuilt from at startup, see `restore`).
 */
import { randomUUID } from 'node:crypto';
import {
  queueIdOn,
  ApiError,
  badRequest,
  EMPTY_TOPIC_DISPLAY_NAME,
  LIMITS,
  ZULIP_FEATURE_LEVEL,
  ZULIP_VERSION,
  type Actor,
  type ClientEvent,
  type GetEventsParams,
  type RegisterParams,
} from '@teamchat/contracts';
import type { EventQueueSettings } from '@teamchat/platform';
import type { Logger } from 'pino';
import { EventQueue, lastIdAt, replayAfter, type QueueOptions } from '../domain/event-queue';
import { parseQueueNarrow } from '../domain/queue-narrow';
import { StateCutoffs, type Cutoffs } from '../domain/state-cutoffs';
import type { Delivery } from '../projections/fan-out';
import type { QueueDescriptor, QueueDescriptors } from './queue-descriptors';

/** A queue nobody has polled for this long is dropped (Zulip's default too). */
export const DEFAULT_LIFESPAN_SECS = 10 * 60;
/** The longest lifespan a client may ask for (Zulip's MAX_QUEUE_TIMEOUT_SECS). */
export const MAX_LIFESPAN_SECS = 7 * 24 * 60 * 60;
/**
 * A poll's acknowledgement and time are written at most this often per queue, and at a
 * clean stop: with a thousand clients long-polling, a write per poll would be a write per
 * delivered event. A lost acknowledgement (after a crash) costs nothing but a longer
 * replay: the rebuilt queue gets events again that the client's next `last_event_id`
 * drops, so none reaches it twice; the lifespan is minutes, the lag seconds.
 */
const ACCESS_WRITE_INTERVAL_MS = 5_000;

/** What registers a queue: POST /register, or GET /events without a queue id. */
export type QueueParams = Omit<RegisterParams, 'fetch_event_types' | 'include_subscribers'>;

const badQueue = (queueId: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

interface Polled {
  queue: EventQueue<ClientEvent>;
  lastEventId: number;
}

interface Entry {
  queue: EventQueue<ClientEvent>;
  descriptor: QueueDescriptor;
  /** `last_access` as last written. */
  written: number;
}

export interface QueueRegistryOptions {
  heartbeatSeconds: number;
  settings: EventQueueSettings;
  /** The store position the events service has applied up to (facts without client events included). */
  checkpoint: () => number;
  descriptors?: QueueDescriptors;
  log?: Logger;
  /** The events instance these queues live on, named in their ids (see queue-ids.ts). */
  instance?: string;
}

export class QueueRegistry {
  private entries = new Map<string, Entry>();
  private byUser = new Map<number, Set<Entry>>();
  private sweeper: NodeJS.Timeout;
  /** The position of the last fact handed to `deliver`. */
  private delivered = 0;
  /** Consistency of new queues with the initial state registered with them (register-state.ts). */
  private readonly initialState = new StateCutoffs<ClientEvent>();

  constructor(private readonly options: QueueRegistryOptions) {
    this.sweeper = setInterval(() => this.expireIdle(), options.settings.sweepMs);
    this.sweeper.unref();
  }

  /** Every fact up to here has reached the queues. */
  private head(): number {
    return Math.max(this.delivered, this.options.checkpoint());
  }

  /**
   * Rebuilds the queues of stored descriptors (expired ones are forgotten) and returns
   * the position the fan-out must replay after for all of them to get every event their
   * clients have not acknowledged; undefined when there is none.
   */
  async restore(): Promise<number | undefined> {
    const { descriptors } = this.options;
    if (!descriptors) return undefined;
    const now = Date.now();
    let from: number | undefined;
    for (const descriptor of await descriptors.all()) {
      let options: QueueOptions;
      try {
        options = queueOptions(descriptor);
      } catch {
        // A narrow a newer rule refuses: the client registers again.
        await descriptors.remove(descriptor._id);
        continue;
      }
      if (descriptor.last_access + descriptor.lifespan_ms < now) {
        await descriptors.remove(descriptor._id);
        continue;
      }
      const start = { after: descriptor.start_after, acked: descriptor.acked };
      // The replay must leave out again what the queue's initial state held.
      if (descriptor.cutoffs) this.initialState.restore(descriptor._id, new Map(Object.entries(descriptor.cutoffs)));
      this.add({
        queue: new EventQueue(descriptor._id, options, { ...start, lastAccess: descriptor.last_access, maxEvents: this.options.settings.maxEvents }),
        descriptor,
        written: descriptor.last_access,
      });
      from = Math.min(from ?? Number.POSITIVE_INFINITY, replayAfter(start));
    }
    return from;
  }

  get size(): number {
    return this.entries.size;
  }

  async register(actor: Actor, params: QueueParams) {
    const queue = await this.create(actor, params);
    return {
      queue_id: queue.id,
      last_event_id: -1,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      ...LIMITS,
      realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
      // Clients time out their long-poll after this; it must exceed the heartbeat.
      event_queue_longpoll_timeout_seconds: this.options.heartbeatSeconds + 30,
    };
  }

  private async create(actor: Actor, params: QueueParams): Promise<EventQueue<ClientEvent>> {
    const now = Date.now();
    const lifespan = params.queue_lifespan_secs ? Math.min(params.queue_lifespan_secs, MAX_LIFESPAN_SECS) : DEFAULT_LIFESPAN_SECS;
    const descriptor: QueueDescriptor = {
      _id: queueIdOn(this.options.instance, randomUUID()),
      user_id: actor.user_id,
      event_types: params.event_types ?? null,
      narrow: params.narrow ?? [],
      apply_markdown: params.apply_markdown ?? false,
      client_gravatar: params.client_gravatar ?? true,
      empty_topic_name: params.client_capabilities?.empty_topic_name === true,
      stream_typing_notifications: params.client_capabilities?.stream_typing_notifications === true,
      simplified_presence_events: params.client_capabilities?.simplified_presence_events === true,
      include_deactivated_groups: params.client_capabilities?.include_deactivated_groups === true,
      archived_channels: params.client_capabilities?.archived_channels === true,
      individual_emoji_changes: params.client_capabilities?.individual_emoji_changes === true,
      bulk_message_deletion: params.client_capabilities?.bulk_message_deletion === true,
      linkifier_url_template: params.client_capabilities?.linkifier_url_template === true,
      lifespan_ms: lifespan * 1000,
      start_after: this.head(),
      acked: -1,
      last_access: now,
    };
    // Refuses a bad narrow before anything exists.
    const options = queueOptions(descriptor);
    this.makeRoomFor(actor.user_id);
    const queue = new EventQueue<ClientEvent>(descriptor._id, options, {
      after: descriptor.start_after,
      acked: -1,
      lastAccess: now,
      maxEvents: this.options.settings.maxEvents,
    });
    this.add({ queue, descriptor, written: now });
    await this.options.descriptors?.save(descriptor);
    return queue;
  }

  /** A user at the limit loses the queue they polled least recently (preferring one nobody waits on). */
  private makeRoomFor(userId: number): void {
    const mine = [...(this.byUser.get(userId) ?? [])];
    const excess = mine.length - this.options.settings.maxPerUser + 1;
    if (excess <= 0) return;
    mine.sort((a, b) => Number(a.queue.hasWaiters) - Number(b.queue.hasWaiters) || a.queue.lastAccess - b.queue.lastAccess);
    for (const entry of mine.slice(0, excess)) this.drop(entry, 'too many queues for one user');
  }

  private add(entry: Entry): void {
    this.entries.set(entry.queue.id, entry);
    const mine = this.byUser.get(entry.descriptor.user_id) ?? new Set();
    mine.add(entry);
    this.byUser.set(entry.descriptor.user_id, mine);
  }

  /** The caller's live queue; unknown, foreign, expired and dropped queues are all the same error. */
  private owned(actor: Actor, queueId: string): Entry {
    const entry = this.entries.get(queueId);
    if (!entry || entry.descriptor.user_id !== actor.user_id) throw badQueue(queueId);
    if (this.expired(entry, Date.now())) {
      this.drop(entry, 'expired');
      throw badQueue(queueId);
    }
    return entry;
  }

  getEvents(actor: Actor, params: GetEventsParams) {
    return this.poll(actor, params).then(({ queue, lastEventId }) => ({ events: queue.after(lastEventId), queue_id: queue.id }));
  }

  /** GET /events as the endpoint answers it: the events serialized (EventQueue.toJson). */
  getEventsReply(actor: Actor, params: GetEventsParams): Promise<{ value: { queue_id: string }; json: string }> {
    return this.poll(actor, params).then(serializedReply);
  }

  /**
   * Answers a poll: acknowledges, and waits for an event (or the heartbeat) when none is
   * left. Not an async function: a poll that waits holds one callback, not a suspended
   * frame of every local (a thousand clients each keep a poll waiting).
   */
  private poll(actor: Actor, params: GetEventsParams): Promise<Polled> {
    if (params.queue_id === undefined) {
      // A new queue has nothing the client could have acknowledged.
      return this.create(actor, params).then((queue) => this.answer(this.entries.get(queue.id)!, -1, params.dont_block));
    }
    try {
      return Promise.resolve(this.answer(this.owned(actor, params.queue_id), params.last_event_id ?? -1, params.dont_block));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private answer(entry: Entry, lastEventId: number, dontBlock: boolean | undefined): Polled | Promise<Polled> {
    const { queue } = entry;
    if (lastEventId > lastIdAt(this.head())) {
      throw badRequest(`Invalid 'last_event_id': ${lastEventId} is above every event id this queue has given out`, { queue_id: queue.id });
    }
    const left = queue.acknowledge(lastEventId);
    this.written(entry);
    if (left > 0 || dontBlock) return { queue, lastEventId };
    return queue.waitForEvent(this.options.heartbeatSeconds * 1000).then(() => this.woken(entry, lastEventId));
  }

  private woken(entry: Entry, lastEventId: number): Polled {
    const { queue } = entry;
    if (this.entries.get(queue.id) !== entry) throw badQueue(queue.id);
    if (queue.acknowledge(lastEventId) === 0) queue.heartbeat(lastEventId, this.head());
    return { queue, lastEventId };
  }

  /** DELETE /events: resolves once the removal is committed (see queue-descriptors.ts). */
  async delete(actor: Actor, queueId: string): Promise<void> {
    this.drop(this.owned(actor, queueId), 'deleted');
    await this.options.descriptors?.durable();
  }

  /**
   * Hands one delivery to the queues of its users: of the stored fact at `position`, or,
   * without one, an ephemeral event (typing, presence), which is never replayed.
   */
  deliver(delivery: Delivery, position?: number): void {
    if (position !== undefined) this.delivered = Math.max(this.delivered, position);
    const { everyone } = delivery;
    if (everyone) {
      // A named audience: resolved over the users with queues, however many users there are.
      const listed = new Set(delivery.user_ids);
      for (const [userId, entries] of this.byUser) if (listed.has(userId) || everyone(userId)) this.deliverTo(entries, delivery, position);
      return;
    }
    for (const userId of delivery.user_ids) this.deliverTo(this.byUser.get(userId), delivery, position);
  }

  private deliverTo(entries: Set<Entry> | undefined, delivery: Delivery, position: number | undefined): void {
    for (const entry of entries ?? []) {
      const { queue } = entry;
      // Before formatting: a replay after a restart passes facts a queue already had.
      if (position !== undefined && !queue.takes(position)) continue;
      const event = delivery.eventFor(queue);
      if (event && this.initialState.admit(queue.id, event, position)) this.push(entry, event, position);
    }
  }

  /** Holds the queue's events until its initial state is known (see StateCutoffs). */
  holdForState(queueId: string): void {
    this.initialState.hold(queueId);
  }

  /**
   * Releases the held events the initial state does not hold, and keeps the cutoffs with
   * the queue's descriptor, so that a replay after a restart leaves out the same events.
   */
  releaseWithState(queueId: string, cutoffs: Cutoffs): void {
    const entry = this.entries.get(queueId);
    const held = this.initialState.release(queueId, cutoffs);
    if (!entry) return;
    if (cutoffs.size > 0) {
      entry.descriptor = { ...entry.descriptor, cutoffs: Object.fromEntries(cutoffs) };
      this.persist(this.options.descriptors?.save(entry.descriptor));
    }
    // Events of facts first, in store order: an ephemeral one takes an id at the store's
    // head, which must stay above theirs.
    const ordered = [...held.filter((h) => h.position !== undefined), ...held.filter((h) => h.position === undefined)];
    for (const { event, position } of ordered) this.push(entry, event, position);
  }

  private push(entry: Entry, event: ClientEvent, position: number | undefined): void {
    const kept = position === undefined ? entry.queue.pushLive(event, this.head()) : entry.queue.push(event, position);
    if (!kept) this.drop(entry, 'over the event limit');
  }

  close(): void {
    clearInterval(this.sweeper);
    // The descriptors stay, up to date: the queues are rebuilt at the next start.
    for (const entry of this.entries.values()) {
      if (entry.queue.acked > entry.descriptor.acked || entry.queue.lastAccess > entry.written) this.save(entry);
      entry.queue.release();
    }
  }

  /** Writes what polls changed (the acknowledgement, the time), now and then. */
  private written(entry: Entry): void {
    if (entry.queue.lastAccess - entry.written >= ACCESS_WRITE_INTERVAL_MS) this.save(entry);
  }

  private save(entry: Entry): void {
    const { queue, descriptor } = entry;
    entry.descriptor = { ...descriptor, acked: queue.acked, last_access: queue.lastAccess };
    entry.written = queue.lastAccess;
    this.persist(this.options.descriptors?.save(entry.descriptor));
  }

  private drop(entry: Entry, why: string): void {
    const { queue, descriptor } = entry;
    if (this.entries.get(queue.id) !== entry) return;
    this.entries.delete(queue.id);
    this.initialState.forget(queue.id);
    const mine = this.byUser.get(descriptor.user_id);
    mine?.delete(entry);
    // Named audiences walk the users with queues: one whose last queue went is not one.
    if (mine?.size === 0) this.byUser.delete(descriptor.user_id);
    queue.release();
    this.options.log?.debug({ queue_id: queue.id, user_id: descriptor.user_id, why }, 'event queue dropped');
    this.persist(this.options.descriptors?.remove(queue.id));
  }

  private persist(write: Promise<void> | undefined): void {
    write?.catch((err: unknown) => this.options.log?.error({ err }, 'could not write an event queue descriptor'));
  }

  private expired(entry: Entry, now: number): boolean {
    return !entry.queue.hasWaiters && entry.queue.lastAccess + entry.descriptor.lifespan_ms < now;
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const entry of this.entries.values()) if (this.expired(entry, now)) this.drop(entry, 'expired');
  }
}

function serializedReply({ queue }: Polled) {
  return { value: { queue_id: queue.id }, json: `{"events":${queue.toJson()}}` };
}

function queueOptions(descriptor: QueueDescriptor): QueueOptions {
  return {
    user_id: descriptor.user_id,
    event_types: descriptor.event_types ? new Set(descriptor.event_types) : null,
    apply_markdown: descriptor.apply_markdown,
    client_gravatar: descriptor.client_gravatar,
    empty_topic_name: descriptor.empty_topic_name,
    narrow: parseQueueNarrow(descriptor.narrow, descriptor.user_id),
    stream_typing_notifications: descriptor.stream_typing_notifications === true,
    simplified_presence_events: descriptor.simplified_presence_events === true,
    include_deactivated_groups: descriptor.include_deactivated_groups === true,
    archived_channels: descriptor.archived_channels === true,
    individual_emoji_changes: descriptor.individual_emoji_changes === true,
    bulk_message_deletion: descriptor.bulk_message_deletion === true,
    linkifier_url_template: descriptor.linkifier_url_template === true,
  };
}
