/** What the fan-out hands the queues: recipients, and the event each queue sees. */
import type { ClientEvent } from '@teamchat/contracts';
import type { QueueOptions } from '../domain/event-queue';

export interface Delivery {
  user_ids: number[];
  /**
   * The event as this queue should see it (formats and echo ids differ per queue), or
   * null when the queue's narrow leaves it out.
   */
  eventFor: (queue: { readonly id: string; readonly options: QueueOptions }) => ClientEvent | null;
}

/** The same event for every queue (no per-queue format, narrow or echo). */
export const same = (event: ClientEvent): Delivery['eventFor'] => () => event;
