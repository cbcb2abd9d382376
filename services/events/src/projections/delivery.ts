/** What the fan-out hands the queues for one fact (apart from fan-out.ts, which the feature fan-outs and announce use). */
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
