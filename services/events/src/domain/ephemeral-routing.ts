/**
 * Which queues take a typing notification. Zulip's rule: channel typing only reaches
 * clients that declared the `stream_typing_notifications` capability, since older
 * clients would show it as direct-message typing. (The queue's event_types filter is
 * applied by the queue itself.)
 */
import type { TypingEditMessageEvent, TypingEvent } from '@teamchat/contracts';
import type { QueueOptions } from './event-queue';

export function typingEventFor(
  event: TypingEvent | TypingEditMessageEvent,
  queue: Pick<QueueOptions, 'stream_typing_notifications'>,
): TypingEvent | TypingEditMessageEvent | null {
  if (event.type === 'typing' && event.message_type === 'stream' && !queue.stream_typing_notifications) return null;
  return event;
}
