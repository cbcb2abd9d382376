/**
 * Recipient ids: one per channel and one per set of direct-message participants, the
 * same for everyone in the conversation. Allocated once, by the first message to the
 * conversation, in one registry stream so that concurrent senders agree.
 */
import type { Fact, FactOf } from '@teamchat/contracts';

export interface RecipientRegistry {
  /**
   * The allocations folded into this state: every one when folded from the stream's start;
   * only those after the snapshot it was seeded from otherwise (handlers/conversation-ids.ts
   * looks a key up in the snapshot first, so a decision here never sees an older key).
   */
  byKey: Map<string, number>;
  lastId: number;
}

export const initialRecipients = (): RecipientRegistry => ({ byKey: new Map(), lastId: 0 });

/**
 * Adds the allocation to the registry's map in place rather than to a copy: copying made
 * folding the stream quadratic in conversations (seconds for the first send after a
 * restart at 100,000 messages). Safe because a state is never used once evolved: the
 * repository replaces its cached state with the result, and allocations only ever add
 * keys, so a reader holding the previous state sees at most allocations that exist.
 */
export function evolveRecipients(state: RecipientRegistry, fact: Fact): RecipientRegistry {
  if (fact.type !== 'RecipientAllocated') return state;
  state.byKey.set(fact.key, fact.recipient_id);
  return { byKey: state.byKey, lastId: Math.max(state.lastId, fact.recipient_id) };
}

export function decideAllocateRecipient(state: RecipientRegistry, key: string): FactOf<'RecipientAllocated'>[] {
  if (state.byKey.has(key)) return [];
  return [{ type: 'RecipientAllocated', key, recipient_id: state.lastId + 1 }];
}
