/**
 * Keeps a new queue consistent with the initial state POST /register returned with it.
 *
 * The queue is created at the fan-out's position P, so it receives every event after P.
 * Each owning service then answers with its state as of its own position Ps >= P; events
 * of that owner's types from facts at or before Ps are already in the state and must not
 * reach the queue again, those after Ps must. Until the answers are in, the queue's events
 * are held here with their facts' positions, then released through the cutoffs.
 */

export interface Held<E> {
  event: E;
  position: number | undefined;
}

/** Client event type → the store position up to which the initial state holds its changes. */
export type Cutoffs = ReadonlyMap<string, number>;

export class StateCutoffs<E extends { type: string }> {
  private held = new Map<string, Held<E>[]>();
  private cutoffs = new Map<string, { byType: Cutoffs; highest: number }>();

  /** From now until `release`, events for this queue wait. */
  hold(queueId: string): void {
    this.held.set(queueId, []);
  }

  /**
   * Whether an event may go into the queue now; a held one is kept for `release`.
   * Events without a position (not from a stored fact) are never part of any state.
   */
  admit(queueId: string, event: E, position: number | undefined): boolean {
    const held = this.held.get(queueId);
    if (held) {
      held.push({ event, position });
      return false;
    }
    const cut = this.cutoffs.get(queueId);
    if (!cut || position === undefined) return true;
    // Past every cutoff, nothing more can be in the state: stop checking.
    if (position > cut.highest) {
      this.cutoffs.delete(queueId);
      return true;
    }
    return !covered(cut.byType, event.type, position);
  }

  /** Ends the hold: returns the held events the state does not already hold, in order, with their positions. */
  release(queueId: string, byType: Cutoffs): Held<E>[] {
    const held = this.held.get(queueId) ?? [];
    this.held.delete(queueId);
    this.restore(queueId, byType);
    return held.filter((h) => h.position === undefined || !covered(byType, h.event.type, h.position));
  }

  /** The cutoffs of a queue rebuilt after a restart, whose facts are replayed through `admit`. */
  restore(queueId: string, byType: Cutoffs): void {
    if (byType.size > 0) this.cutoffs.set(queueId, { byType, highest: Math.max(...byType.values()) });
  }

  forget(queueId: string): void {
    this.held.delete(queueId);
    this.cutoffs.delete(queueId);
  }
}

function covered(byType: Cutoffs, type: string, position: number): boolean {
  const cutoff = byType.get(type);
  return cutoff !== undefined && position <= cutoff;
}
