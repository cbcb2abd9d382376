/**
 * Recipient ids: one per channel and one per set of direct-message participants, the
 * same for everyone in the conversation. Allocated once, by the first message to the
 * conversation, in one registry stream so that concurrent senders agree.
 */
import type { Fact, FactOf } from '@teamchat/contracts';

export interface RecipientRegistry {
  byKey: Map<string, number>;
  lastId: number;
}

export const initialRecipients = (): RecipientRegistry => ({ byKey: new Map(), lastId: 0 });

export function evolveRecipients(state: RecipientRegistry, fact: Fact): RecipientRegistry {
  if (fact.type !== 'RecipientAllocated') return state;
  return { byKey: new Map(state.byKey).set(fact.key, fact.recipient_id), lastId: Math.max(state.lastId, fact.recipient_id) };
}

export function decideAllocateRecipient(state: RecipientRegistry, key: string): FactOf<'RecipientAllocated'>[] {
  if (state.byKey.has(key)) return [];
  return [{ type: 'RecipientAllocated', key, recipient_id: state.lastId + 1 }];
}
