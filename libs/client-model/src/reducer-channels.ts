/** The reducer's cases for channels and subscriptions (reducer.ts). */
import { byId, type Event, type ReducerOptions, sortedIds, type State, without } from './reducer-shared';

// Global in browsers and Node 17+; declared here so that the library needs neither DOM nor Node types.
declare const structuredClone: <T>(value: T) => T;

export function applyStreamEvent(state: State, event: Event): void {
  const lists = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'].filter((key) => key in state);
  if (event.op === 'create') {
    // Each list keeps its own copy, as the objects are changed in place later.
    const copies = () => (event.streams as Event[]).map((s) => structuredClone(s));
    if ('streams' in state) state.streams = byId([...without(state.streams, (s: Event) => event.streams.some((n: Event) => n.stream_id === s.stream_id)), ...copies()]);
    if ('never_subscribed' in state) {
      const known = new Set(['subscriptions', 'unsubscribed'].flatMap((key) => (state[key] ?? []).map((s: Event) => s.stream_id)));
      const fresh = copies().filter((s) => !known.has(s.stream_id));
      state.never_subscribed = byId([...without(state.never_subscribed, (s: Event) => fresh.some((n) => n.stream_id === s.stream_id)), ...fresh]);
    }
    return;
  }
  if (event.op === 'delete') {
    const gone = new Set<number>(event.stream_ids);
    for (const key of lists) state[key] = without(state[key], (s: Event) => gone.has(s.stream_id));
    return;
  }
  if (event.op === 'update') {
    for (const key of lists) {
      for (const channel of state[key] as Event[]) {
        if (channel.stream_id !== event.stream_id) continue;
        channel[event.property] = event.value;
        if (event.rendered_description !== undefined) channel.rendered_description = event.rendered_description;
        if (event.history_public_to_subscribers !== undefined) channel.history_public_to_subscribers = event.history_public_to_subscribers;
        if (event.is_web_public !== undefined) channel.is_web_public = event.is_web_public;
      }
    }
  }
}

const CHANNEL_LISTS = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'];

export function applySubscriptionEvent(state: State, event: Event, { self, includeSubscribers }: ReducerOptions): void {
  if (event.op === 'add') {
    const added = new Map((event.subscriptions as Event[]).map((s) => [s.stream_id, s]));
    // A client that did not ask for subscriber lists drops them, as Zulip's does.
    const subscriptions = (event.subscriptions as Event[]).map(({ subscribers, ...rest }) => (includeSubscribers ? { ...rest, subscribers } : rest));
    if ('subscriptions' in state) state.subscriptions = byId([...without(state.subscriptions, (s: Event) => added.has(s.stream_id)), ...subscriptions]);
    for (const key of ['unsubscribed', 'never_subscribed'].filter((k) => k in state)) state[key] = without(state[key], (s: Event) => added.has(s.stream_id));
    // One count per channel, wherever the client keeps it.
    for (const channel of (state.streams ?? []) as Event[]) {
      const sub = added.get(channel.stream_id);
      if (sub) channel.subscriber_count = sub.subscriber_count;
    }
    return;
  }
  if (event.op === 'peer_add') {
    for (const key of CHANNEL_LISTS.filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!event.stream_ids.includes(channel.stream_id)) continue;
        channel.subscriber_count += event.user_ids.length;
        if (Array.isArray(channel.subscribers)) channel.subscribers = sortedIds([...channel.subscribers, ...event.user_ids]);
      }
    }
    return;
  }
  if (event.op === 'peer_remove') {
    const gone = new Set<number>(event.user_ids);
    for (const key of CHANNEL_LISTS.filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!event.stream_ids.includes(channel.stream_id)) continue;
        channel.subscriber_count -= event.user_ids.length;
        if (Array.isArray(channel.subscribers)) channel.subscribers = channel.subscribers.filter((id: number) => !gone.has(id));
      }
    }
    return;
  }
  if (event.op === 'remove') {
    // The channel moves to the user's left channels, without their own settings; they are
    // no longer among its subscribers (no peer_remove tells them so).
    const removed = new Set((event.subscriptions as Event[]).map((s) => s.stream_id));
    const left = ((state.subscriptions ?? []) as Event[]).filter((s) => removed.has(s.stream_id));
    if ('subscriptions' in state) state.subscriptions = without(state.subscriptions, (s: Event) => removed.has(s.stream_id));
    if ('unsubscribed' in state) {
      const channels = left.map((s) => {
        const { color: _c, is_muted: _m, in_home_view: _h, pin_to_top: _p, desktop_notifications: _d, email_notifications: _e,
          wildcard_mentions_notify: _w, push_notifications: _u, audible_notifications: _a, ...channel } = s;
        return channel;
      });
      state.unsubscribed = byId([...state.unsubscribed, ...channels]);
    }
    for (const key of ['unsubscribed', 'streams'].filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!removed.has(channel.stream_id) || !left.some((s) => s.stream_id === channel.stream_id)) continue;
        if (key === 'streams') channel.subscriber_count -= 1;
        else if (Array.isArray(channel.subscribers)) channel.subscribers = channel.subscribers.filter((id: number) => id !== self);
      }
    }
    for (const channel of (state.unsubscribed ?? []) as Event[]) {
      if (left.some((s) => s.stream_id === channel.stream_id)) channel.subscriber_count = left.find((s) => s.stream_id === channel.stream_id)!.subscriber_count - 1;
    }
    return;
  }
  if (event.op === 'update') {
    for (const sub of (state.subscriptions ?? []) as Event[]) if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
    return;
  }
  throw new Error(`the reducer has no case for subscription op ${event.op} (user ${self})`);
}

// unread_msgs, grouped as Zulip groups them: streams by channel and topic, pms by the other
// user, huddles by everyone's ids; mentions and count beside them.
