/**
 * Which client events a stored fact becomes, and for whom: the one place that decides
 * who may see a fact. The events service applies the result to the queues of exactly
 * those users.
 */
import { Fact, formatMessage, initialMessageFlags, type FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import type { EventQueue } from '../domain/event-queue';

export interface Delivery {
  user_ids: number[];
  /** The event as this queue should see it (formats and echo ids differ per queue). */
  eventFor: (queue: EventQueue) => { type: string; [field: string]: unknown };
}

export function deliveriesFor(stored: StoredFact): Delivery[] {
  const parsed = Fact.safeParse(stored.data);
  if (!parsed.success) return [];
  const fact = parsed.data;
  switch (fact.type) {
    case 'MessageSent':
      return [messageDelivery(fact, stored.position)];
    default:
      return [];
  }
}

function messageDelivery(fact: FactOf<'MessageSent'>, id: number): Delivery {
  return {
    user_ids: fact.recipient_user_ids,
    eventFor: (queue) => {
      const message = formatMessage(
        { ...fact, id },
        { apply_markdown: queue.options.apply_markdown, client_gravatar: queue.options.client_gravatar, allow_empty_topic_name: false },
      );
      const echo = fact.local_echo;
      return {
        type: 'message',
        message,
        flags: initialMessageFlags(fact, queue.options.user_id),
        ...(echo && echo.queue_id === queue.id && fact.sender_id === queue.options.user_id
          ? { local_message_id: echo.local_id }
          : {}),
      };
    },
  };
}
