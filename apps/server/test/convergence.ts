/**
 * The convergence check, in the spirit of Zulip's test_events.py verify_action: register
 * a queue, perform an action, apply the events the queue received to the registration's
 * state with the web client's own reducer (libs/client-model, never shared with the
 * server), and require the result to equal a fresh registration's state.
 *
 * A second registration also tells when the first queue has everything: the events
 * service catches up with the caller's last write before it registers, so once the fresh
 * state is in, the first queue holds every event of the action.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyEvent, MAX_ID_UNKNOWN, stateOf, type State } from '@teamchat/client-model';
import { Client } from './harness';

export { applyEvent, stateOf, type ReducerOptions, type State } from '@teamchat/client-model';

type Event = Record<string, any>;

const byId = (list: Event[]) => [...list].sort((a, b) => a.stream_id - b.stream_id);
const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** Sorts what a client would not rely on the order of, so that two states compare by content. */
export function normalize(state: State): State {
  const copy = JSON.parse(JSON.stringify(state)) as State;
  for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
    if (Array.isArray(copy[key])) {
      copy[key] = byId(copy[key]);
      for (const channel of copy[key]) if (Array.isArray(channel.subscribers)) channel.subscribers = sortedIds(channel.subscribers);
    }
  }
  if (copy.unread_msgs) {
    const u = copy.unread_msgs;
    u.streams?.sort((a: Event, b: Event) => a.stream_id - b.stream_id || String(a.topic).localeCompare(String(b.topic)));
    u.pms?.sort((a: Event, b: Event) => a.other_user_id - b.other_user_id);
    u.huddles?.sort((a: Event, b: Event) => String(a.user_ids_string).localeCompare(String(b.user_ids_string)));
  }
  if (Array.isArray(copy.user_topics)) copy.user_topics.sort((a: Event, b: Event) => a.stream_id - b.stream_id || String(a.topic_name).localeCompare(String(b.topic_name)));
  if (Array.isArray(copy.realm_default_streams)) copy.realm_default_streams.sort();
  // Most recently edited first, as GET /drafts orders them.
  if (Array.isArray(copy.drafts)) copy.drafts.sort((a: Event, b: Event) => b.timestamp - a.timestamp || b.id - a.id);
  if (Array.isArray(copy.saved_snippets)) copy.saved_snippets.sort((a: Event, b: Event) => a.id - b.id);
  if (copy.presences && typeof copy.presences === 'object') copy.presences = presenceAsSeen(copy.presences);
  // In delivery order, as GET /scheduled_messages and GET /reminders list them.
  const byDelivery = (key: string) => (a: Event, b: Event) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a[key] - b[key];
  if (Array.isArray(copy.scheduled_messages)) copy.scheduled_messages.sort(byDelivery('scheduled_message_id'));
  if (Array.isArray(copy.reminders)) copy.reminders.sort(byDelivery('reminder_id'));
  return copy;
}

/** Zulip's OFFLINE_THRESHOLD_SECS: a timestamp this recent makes a user active or idle. */
const PRESENCE_WINDOW_SECONDS = 140;

/**
 * Presence as a client reads it: active, idle or offline now. A report that only moves a
 * timestamp within the window is not announced (Zulip sends presence events when a user
 * comes online or active), so a fresh state may hold a timestamp a second later than the
 * events gave; what a client shows from either is the same.
 */
function presenceAsSeen(presences: Record<string, Event>): Record<string, unknown> {
  const now = Date.now() / 1000;
  const recent = (t: unknown) => typeof t === 'number' && now - t < PRESENCE_WINDOW_SECONDS;
  // Only the modern (slim) form; the legacy one is compared as it is.
  const seen = (p: Event) => ('active_timestamp' in p ? (recent(p.active_timestamp) ? 'active' : recent(p.idle_timestamp) ? 'idle' : 'offline') : p);
  return Object.fromEntries(Object.entries(presences).map(([id, p]) => [id, seen(p)]));
}

const capabilityOf = (params: Record<string, unknown>, name: string): boolean => {
  const capabilities = typeof params.client_capabilities === 'string' ? JSON.parse(params.client_capabilities) : params.client_capabilities;
  return (capabilities as Record<string, unknown> | undefined)?.[name] === true;
};

/**
 * For a registration without `notification_settings_null`, the null channel notification
 * settings events bring (a new subscription's) as the user's defaults, as Zulip's
 * test_events post-processes its applied state: register sends such a client the
 * defaults, while events carry null for every client (Zulip's form too), so what a fresh
 * registration shows is the state after events as the server would present it.
 */
function fillNotificationDefaults(state: State): void {
  const settings = state.user_settings as Record<string, unknown> | undefined;
  if (!settings) return;
  for (const key of ['subscriptions', 'unsubscribed']) {
    for (const sub of (state[key] ?? []) as Event[]) {
      for (const kind of ['desktop', 'audible', 'push', 'email']) {
        if (sub[`${kind}_notifications`] === null) sub[`${kind}_notifications`] = settings[`enable_stream_${kind}_notifications`];
      }
    }
  }
}

export interface Verified {
  events: Event[];
  expected: State;
  actual: State;
}

/**
 * Registers `observer`, runs `action`, applies what the queue received, and returns the
 * reduced state beside a fresh registration's (both normalized) for the caller to compare.
 */
export async function verifyAction(
  observer: Client,
  selfId: number,
  action: () => Promise<unknown>,
  registerParams: Record<string, unknown> = {},
): Promise<Verified> {
  const first = await observer.post('/register', registerParams);
  if (first.body.result !== 'success') throw new Error(`register: ${first.body.msg}`);
  await action();
  const fresh = await observer.post('/register', registerParams);
  if (fresh.body.result !== 'success') throw new Error(`register: ${fresh.body.msg}`);
  const queue_id = first.body.queue_id;
  const poll = async (after: number) => (await observer.get('/events', { queue_id, last_event_id: after, dont_block: true })).body.events as Event[];
  const events = await poll(first.body.last_event_id);
  const state = stateOf(first.body);
  const flag = (name: string) => registerParams[name] === true || registerParams[name] === 'true';
  const options = { self: selfId, includeSubscribers: flag('include_subscribers'), clientGravatar: flag('client_gravatar') };
  for (const event of events) applyEvent(state, event, options);
  const expected = normalize(stateOf(fresh.body));
  const actual = () => {
    const reduced = structuredClone(state);
    if (reduced[MAX_ID_UNKNOWN]) {
      delete reduced[MAX_ID_UNKNOWN];
      if (expected.max_message_id <= reduced.max_message_id) reduced.max_message_id = expected.max_message_id;
    }
    if (!capabilityOf(registerParams, 'notification_settings_null')) fillNotificationDefaults(reduced);
    return normalize(reduced);
  };
  // A service's reaction to another's fact (channels to a group or role change) is appended
  // after the action's reply, so its events may trail the fresh registration that already
  // reflects it; give them a moment (at most 3 s) before comparing.
  for (const deadline = Date.now() + 3000; !isDeepStrictEqual(actual(), expected) && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const more = await poll(events.at(-1)?.id ?? first.body.last_event_id);
    for (const event of more) applyEvent(state, event, options);
    events.push(...more);
  }
  await observer.request('DELETE', '/events', { queue_id });
  await observer.request('DELETE', '/events', { queue_id: fresh.body.queue_id });
  return { events, expected, actual: actual() };
}
