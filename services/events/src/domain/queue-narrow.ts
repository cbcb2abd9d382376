/**
 * The narrow a client registers its queue with: only `message` events that match it are
 * queued (other event types are not narrowed, as in Zulip). Matched against the message
 * as the fact recorded it, so the events service needs no directory of its own.
 */
import { badRequest, displayTopic, normalizeNarrowTerm, type FactOf, type NarrowTerm } from '@teamchat/contracts';

type Sent = FactOf<'MessageSent'>;
export type QueueNarrow = ((message: Sent) => boolean)[];

const matchesUser = (operand: string | number, user: { id: number; email: string }) =>
  typeof operand === 'number' ? user.id === operand : user.email.toLowerCase() === operand.trim().toLowerCase();

function predicate(operator: string, operand: unknown, ownerId: number): (m: Sent) => boolean {
  switch (operator) {
    case 'channel':
      if (typeof operand !== 'string' && typeof operand !== 'number') break;
      return (m) =>
        m.recipient.type === 'channel' &&
        (typeof operand === 'number' || /^\d+$/.test(operand)
          ? m.recipient.channel_id === Number(operand)
          : m.recipient.channel_name.toLowerCase() === operand.toLowerCase());
    case 'topic':
      if (typeof operand !== 'string') break;
      return (m) =>
        m.recipient.type === 'channel' &&
        (m.recipient.topic.toLowerCase() === operand.toLowerCase() || displayTopic(m.recipient.topic, false) === operand);
    case 'dm': {
      const wanted = Array.isArray(operand) ? operand : typeof operand === 'string' ? operand.split(',') : typeof operand === 'number' ? [operand] : null;
      if (!wanted || wanted.some((w) => typeof w !== 'string' && typeof w !== 'number')) break;
      const items = wanted as (string | number)[];
      // Exactly the conversation with those users (and the queue's owner).
      return (m) => {
        if (m.recipient.type !== 'direct') return false;
        const users = m.recipient.users;
        return (
          items.every((w) => users.some((u) => matchesUser(w, u))) &&
          users.every((u) => u.id === ownerId || items.some((w) => matchesUser(w, u)))
        );
      };
    }
    case 'sender':
      if (typeof operand !== 'string' && typeof operand !== 'number') break;
      return (m) => matchesUser(operand, { id: m.sender_id, email: m.sender_email });
    case 'is':
      if (operand === 'dm' || operand === 'private') return (m) => m.recipient.type === 'direct';
      break;
  }
  throw badRequest(`Invalid narrow operator: '${operator}' with this operand is not supported for event queues`);
}

export function parseQueueNarrow(narrow: NarrowTerm[] | undefined, ownerId: number): QueueNarrow {
  return (narrow ?? []).map((term) => {
    const { operator, operand, negated } = normalizeNarrowTerm(term);
    const test = predicate(operator, operand, ownerId);
    return negated ? (m: Sent) => !test(m) : test;
  });
}

export const matchesQueueNarrow = (narrow: QueueNarrow, message: Sent) => narrow.every((test) => test(message));
