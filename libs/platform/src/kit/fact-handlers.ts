/**
 * How a projection (or the fan-out) declares what it does with each fact type: a map from
 * fact type to handler, typed so that a handler receives exactly its fact's shape. The
 * projector subscribes to the map's keys, so a handled type can never be missing from the
 * subscription filter.
 */
import { upcast, type Fact, type FactOf, type FactType } from '@teamchat/contracts';
import type { StoredFact } from '../ports/event-store';

export type FactCase<T extends FactType> = (fact: FactOf<T>, stored: StoredFact) => Promise<void> | void;

export type FactHandlers = { readonly [T in FactType]?: FactCase<T> };

/** The fact a stored record holds, in its current shape (see upcast in contracts). */
export function factOf(stored: StoredFact): Fact {
  return upcast(stored.data);
}

/** The fact types a map handles: what its projector subscribes to. */
export function handledTypes(handlers: FactHandlers): ReadonlySet<FactType> {
  return new Set(Object.keys(handlers) as FactType[]);
}

/** Several maps as one: for a type several handle, each runs in the order given. */
export function combineHandlers(...maps: FactHandlers[]): FactHandlers {
  const combined: Partial<Record<FactType, FactCase<FactType>[]>> = {};
  for (const map of maps) {
    for (const [type, handler] of Object.entries(map) as [FactType, FactCase<FactType>][]) {
      (combined[type] ??= []).push(handler);
    }
  }
  const result: Partial<Record<FactType, FactCase<FactType>>> = {};
  for (const [type, handlers] of Object.entries(combined) as [FactType, FactCase<FactType>[]][]) {
    result[type] =
      handlers.length === 1
        ? handlers[0]!
        : async (fact, stored) => {
            for (const handler of handlers) await handler(fact, stored);
          };
  }
  return result as FactHandlers;
}

/** Runs the map's handler for a stored fact, if it has one. */
export async function applyFact(handlers: FactHandlers, stored: StoredFact): Promise<boolean> {
  const fact = factOf(stored);
  const handler = handlers[fact.type] as FactCase<FactType> | undefined;
  if (!handler) return false;
  await handler(fact, stored);
  return true;
}
