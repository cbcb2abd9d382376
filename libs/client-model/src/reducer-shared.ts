/**
 * What the reducer's modules share (reducer.ts applies events; reducer-people.ts,
 * reducer-channels.ts and reducer-unread.ts hold the cases of their part of the state):
 * the state's and an event's shape, the registration's options, and the list helpers
 * that keep lists in the order a registration gives them.
 */

/** A registration's state: POST /register's reply less the members that are not state. */
export type State = Record<string, any>;
export type Event = Record<string, any>;

/** What the reducer knows of the registration besides its state. */
export interface ReducerOptions {
  self: number;
  /** Whether the registration asked for subscriber lists (include_subscribers). */
  includeSubscribers: boolean;
  /** Whether the registration computes the provider's avatar URLs itself (client_gravatar). */
  clientGravatar?: boolean;
}

export const byId = (list: Event[]) => [...list].sort((a, b) => a.stream_id - b.stream_id);
export const without = <T>(list: T[], drop: (item: T) => boolean) => list.filter((item) => !drop(item));
export const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);
