/**
 * The client's state logic, fed events as the server sends them (zulip-flutter's test/model
 * style): the reducer's unread bookkeeping, the counts the sidebar shows, a feed's message
 * list with local echo, narrows, and the event loop's recovery paths.
 */
import { describe, expect, it } from '@jest/globals';
import {
  ApiError,
  applyEvent,
  backoffMs,
  EventLoop,
  MessageList,
  narrowKey,
  parseNarrowKey,
  unreadCounts,
  matches,
  type Clock,
  type FeedMessage,
  type LoopStatus,
  type Narrow,
  type State,
} from '@teamchat/client-model';

const ME = 10;
const MARY = 11;
const OWEN = 12;

function freshState(): State {
  return {
    max_message_id: 0,
    unread_msgs: { count: 0, streams: [], pms: [], huddles: [], mentions: [], old_unreads_missing: false },
    subscriptions: [
      { stream_id: 1, name: 'general', is_muted: false, pin_to_top: false },
      { stream_id: 2, name: 'random', is_muted: true, pin_to_top: false },
    ],
    user_topics: [],
    recent_private_conversations: [],
    starred_messages: [],
  };
}

let nextId = 100;
function message(over: Partial<FeedMessage> = {}): FeedMessage {
  const id = over.id ?? ++nextId;
  return {
    id,
    sender_id: MARY,
    sender_email: 'mary@example.com',
    sender_full_name: 'Mary',
    sender_realm_str: 'zulip',
    avatar_url: null,
    client: 'test',
    content: '<p>hi</p>',
    content_type: 'text/html',
    recipient_id: 1,
    timestamp: 1_700_000_000,
    is_me_message: false,
    reactions: [],
    submessages: [],
    topic_links: [],
    type: 'stream',
    display_recipient: 'general',
    subject: 'lunch',
    stream_id: 1,
    flags: [],
    ...over,
  };
}

const dm = (over: Partial<FeedMessage> = {}) =>
  message({ type: 'private', stream_id: undefined, subject: '', display_recipient: [{ id: ME, email: 'me@x', full_name: 'Me', is_mirror_dummy: false }, { id: MARY, email: 'm@x', full_name: 'Mary', is_mirror_dummy: false }], ...over });

const options = { self: ME, includeSubscribers: false };

describe('the reducer keeps unread counts incrementally', () => {
  it('counts new messages per channel, topic and conversation, and clears them when read', () => {
    const state = freshState();
    const a = message();
    const b = message();
    const c = dm();
    const d = message({ stream_id: 2, display_recipient: 'random', subject: 'noise' });
    for (const m of [a, b, c, d]) applyEvent(state, { type: 'message', message: m, flags: [] }, options);
    const counts = unreadCounts(state, ME);
    expect(counts.channels.get(1)).toBe(2);
    // A muted channel's messages are counted apart, not in the total.
    expect(counts.channels.get(2)).toBeUndefined();
    expect(counts.channelsAll.get(2)).toBe(1);
    expect(counts.dms.get(String(MARY))).toBe(1);
    expect(state.unread_msgs.count).toBe(3);
    expect(state.max_message_id).toBe(d.id);

    applyEvent(state, { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [a.id, c.id], all: false }, options);
    const after = unreadCounts(state, ME);
    expect(after.channels.get(1)).toBe(1);
    expect(after.dms.size).toBe(0);
    expect(state.unread_msgs.count).toBe(1);
  });

  it('counts a message that arrives read as read, and a mention among the mentions', () => {
    const state = freshState();
    applyEvent(state, { type: 'message', message: message(), flags: ['read'] }, options);
    const mention = message();
    applyEvent(state, { type: 'message', message: mention, flags: ['mentioned'] }, options);
    expect(unreadCounts(state, ME).mentions).toBe(1);
    expect(state.unread_msgs.count).toBe(1);
  });

  it('makes a message unread again from the event\'s details', () => {
    const state = freshState();
    applyEvent(state, { type: 'update_message_flags', op: 'remove', operation: 'remove', flag: 'read', messages: [5], all: false, message_details: { 5: { type: 'stream', stream_id: 1, topic: 'back' } } }, options);
    expect(unreadCounts(state, ME).topics.size).toBe(1);
  });

  it('refuses an event type it does not know, so a new one cannot be missed', () => {
    expect(() => applyEvent(freshState(), { type: 'no_such_event' }, options)).toThrow(/no case/);
  });
});

describe('a feed\'s message list', () => {
  const topic: Narrow = { kind: 'topic', streamId: 1, topic: 'lunch' };

  it('adds live messages of its narrow only once the newest is loaded', () => {
    const list = new MessageList(topic, ME);
    list.addPage({ messages: [message({ id: 1 })], found_oldest: true, found_newest: false }, 'initial');
    expect(list.handleEvent({ type: 'message', message: message({ id: 2 }), flags: [] }, 'q')).toBe(false);
    list.addPage({ messages: [message({ id: 2 })], found_oldest: false, found_newest: true }, 'newer');
    expect(list.handleEvent({ type: 'message', message: message({ id: 3 }), flags: [] }, 'q')).toBe(true);
    expect(list.handleEvent({ type: 'message', message: message({ id: 4, subject: 'other' }), flags: [] }, 'q')).toBe(false);
    expect(list.messages.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it('replaces a local echo by the server\'s copy when its event names the local id', () => {
    const list = new MessageList(topic, ME);
    list.addPage({ messages: [], found_oldest: true, found_newest: true }, 'initial');
    list.addEcho({ localId: '1.01', queueId: 'q', type: 'stream', streamId: 1, topic: 'lunch', to: [], content: 'soup?', timestamp: 0, state: 'sending' });
    // Another queue's event with the same local id is someone else's echo.
    list.handleEvent({ type: 'message', message: message({ id: 9, sender_id: ME }), flags: ['read'], local_message_id: '1.01' }, 'other');
    expect(list.echoes).toHaveLength(1);
    list.handleEvent({ type: 'message', message: message({ id: 10, sender_id: ME }), flags: ['read'], local_message_id: '1.01' }, 'q');
    expect(list.echoes).toHaveLength(0);
    expect(list.messages.map((m) => m.id)).toEqual([9, 10]);
  });

  it('keeps a failed echo with its error until it is dropped', () => {
    const list = new MessageList({ kind: 'all' }, ME);
    list.addEcho({ localId: 'x', queueId: 'q', type: 'private', topic: '', to: [MARY], content: 'hi', timestamp: 0, state: 'sending' });
    list.failEcho('x', 'The server is not reachable.');
    expect(list.echoes[0]).toMatchObject({ state: 'failed', error: 'The server is not reachable.' });
    list.dropEcho('x');
    expect(list.echoes).toEqual([]);
  });

  it('holds at most its limit of messages: live ones let the oldest go, older pages the newest', () => {
    const list = new MessageList(topic, ME, 3);
    list.addPage({ messages: [message({ id: 1 }), message({ id: 2 })], found_oldest: true, found_newest: true }, 'initial');
    for (const id of [3, 4, 5]) list.handleEvent({ type: 'message', message: message({ id }), flags: [] }, 'q');
    expect(list.messages.map((m) => m.id)).toEqual([3, 4, 5]);
    // The oldest are no longer the start of the history: scrolling back fetches them again.
    expect(list.foundOldest).toBe(false);
    expect(list.foundNewest).toBe(true);
    list.addPage({ messages: [message({ id: 1 }), message({ id: 2 })], found_oldest: true, found_newest: false }, 'older');
    expect(list.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(list.foundOldest).toBe(true);
    expect(list.foundNewest).toBe(false);
    // Not at the newest any more: live messages wait for the next page.
    expect(list.handleEvent({ type: 'message', message: message({ id: 6 }), flags: [] }, 'q')).toBe(false);
    expect(list.messages).toHaveLength(3);
    list.setLimit(1);
    expect(list.messages.map((m) => m.id)).toEqual([3]);
  });

  it('follows edits, moves out of the narrow, deletions and flags', () => {
    const list = new MessageList(topic, ME);
    list.addPage({ messages: [message({ id: 1 }), message({ id: 2 }), message({ id: 3 })], found_oldest: true, found_newest: true }, 'initial');
    list.handleEvent({ type: 'update_message', message_id: 1, message_ids: [1], rendered_content: '<p>edited</p>', rendering_only: false, edit_timestamp: 5, flags: [], user_id: MARY }, 'q');
    expect(list.messages[0]!.content).toBe('<p>edited</p>');
    list.handleEvent({ type: 'update_message', message_id: 2, message_ids: [2], subject: 'dinner', orig_subject: 'lunch', stream_id: 1, rendering_only: false, edit_timestamp: 5, flags: [], user_id: MARY }, 'q');
    list.handleEvent({ type: 'delete_message', message_ids: [3], message_type: 'stream' }, 'q');
    expect(list.messages.map((m) => m.id)).toEqual([1]);
    list.handleEvent({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [1], all: false }, 'q');
    expect(list.messages[0]!.flags).toContain('starred');
  });
});

describe('narrows', () => {
  it('round-trip through their keys', () => {
    const narrows: Narrow[] = [{ kind: 'all' }, { kind: 'channel', streamId: 3 }, { kind: 'topic', streamId: 3, topic: 'a/b c?' }, { kind: 'dm', userIds: [4, 7] }, { kind: 'mentions' }, { kind: 'starred' }];
    for (const narrow of narrows) expect(parseNarrowKey(narrowKey(narrow))).toEqual(narrow);
    expect(parseNarrowKey('garbage/<script>')).toEqual({ kind: 'all' });
  });

  it('match direct messages by everyone but oneself', () => {
    expect(matches({ kind: 'dm', userIds: [MARY] }, dm(), [], ME)).toBe(true);
    expect(matches({ kind: 'dm', userIds: [MARY, OWEN] }, dm(), [], ME)).toBe(false);
    expect(matches({ kind: 'topic', streamId: 1, topic: 'LUNCH' }, message(), [], ME)).toBe(true);
  });
});

/** A clock whose timers run when the test says. */
function manualClock(): Clock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let timers: { at: number; f: () => void; id: number }[] = [];
  let serial = 0;
  return {
    setTimeout: (f, ms) => {
      timers.push({ at: now + ms, f, id: ++serial });
      return serial;
    },
    clearTimeout: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
    random: () => 1,
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.f();
    },
    pending: () => timers.length,
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the event loop', () => {
  function harness() {
    const calls: string[] = [];
    const registrations: { reset: boolean; queue: string }[] = [];
    const batches: number[][] = [];
    const statuses: LoopStatus[] = [];
    let polls: { resolve: (events: { type: string; id: number }[]) => void; reject: (e: unknown) => void; lastEventId: number; aborted: () => boolean }[] = [];
    let registerFails: ApiError[] = [];
    let queueSerial = 0;
    const clock = manualClock();
    const loop = new EventLoop(
      {
        register: async () => {
          calls.push('register');
          const failure = registerFails.shift();
          if (failure) throw failure;
          return { queue_id: `q${++queueSerial}`, last_event_id: -1, event_queue_longpoll_timeout_seconds: 60 };
        },
        getEvents: (queueId, lastEventId, abort) =>
          new Promise((resolve, reject) => {
            calls.push(`poll ${queueId} ${lastEventId}`);
            polls.push({ resolve, reject, lastEventId, aborted: () => abort.token.aborted });
          }),
      },
      {
        onRegistered: (r, reset) => registrations.push({ reset, queue: r.queue_id }),
        onEvents: (events) => batches.push(events.map((e) => e.id)),
        onStatus: (s) => statuses.push(s),
      },
      clock,
    );
    return {
      loop, calls, registrations, batches, statuses, clock,
      lastPoll: () => polls.at(-1)!,
      failRegister: (e: ApiError) => registerFails.push(e),
      reset: () => { polls = []; },
    };
  }

  it('registers once and polls with the last event id, handing over each batch', async () => {
    const h = harness();
    h.loop.start();
    await flush();
    expect(h.registrations).toEqual([{ reset: false, queue: 'q1' }]);
    h.lastPoll().resolve([{ type: 'message', id: 0 }, { type: 'heartbeat', id: 1 }]);
    await flush();
    h.lastPoll().resolve([{ type: 'message', id: 2 }]);
    await flush();
    expect(h.calls).toEqual(['register', 'poll q1 -1', 'poll q1 1', 'poll q1 2']);
    expect(h.batches).toEqual([[0, 1], [2]]);
    h.loop.stop();
  });

  it('backs off on errors, saying what failed, and goes on when the server answers again', async () => {
    const h = harness();
    h.loop.start();
    await flush();
    h.lastPoll().reject(new ApiError('Failed to fetch', 'NETWORK', 0));
    await flush();
    const retrying = h.statuses.at(-1)!;
    expect(retrying).toMatchObject({ kind: 'retrying', attempt: 1, retryInMs: backoffMs(1, () => 1) });
    expect(h.calls.filter((c) => c.startsWith('poll'))).toHaveLength(1);
    h.clock.advance(200);
    await flush();
    expect(h.calls.filter((c) => c.startsWith('poll'))).toHaveLength(2);
    h.lastPoll().reject(new ApiError('Service unavailable', 'SERVICE_UNAVAILABLE', 503));
    await flush();
    expect(h.statuses.at(-1)).toMatchObject({ kind: 'retrying', attempt: 2, retryInMs: 400 });
    // The wait can be cut short.
    h.loop.retryNow();
    await flush();
    h.lastPoll().resolve([]);
    await flush();
    expect(h.statuses.at(-1)).toEqual({ kind: 'live' });
    h.loop.stop();
  });

  it('registers again on BAD_EVENT_QUEUE_ID and hands over the new state as a reset', async () => {
    const h = harness();
    h.loop.start();
    await flush();
    h.lastPoll().reject(new ApiError('Bad event queue ID: q1', 'BAD_EVENT_QUEUE_ID', 400));
    await flush();
    expect(h.registrations).toEqual([{ reset: false, queue: 'q1' }, { reset: true, queue: 'q2' }]);
    expect(h.calls.at(-1)).toBe('poll q2 -1');
    h.loop.stop();
  });

  it('abandons a stalled poll after the long-poll timeout and polls again', async () => {
    const h = harness();
    h.loop.start();
    await flush();
    const stalled = h.lastPoll();
    h.clock.advance(60_000);
    await flush();
    expect(stalled.aborted()).toBe(false);
    h.clock.advance(5_000);
    await flush();
    expect(stalled.aborted()).toBe(true);
    expect(h.statuses.at(-1)).toMatchObject({ kind: 'retrying', error: { code: 'STALLED' } });
    h.clock.advance(1_000);
    await flush();
    expect(h.calls.filter((c) => c.startsWith('poll'))).toHaveLength(2);
    h.loop.stop();
  });

  it('stops on 401: the session is over', async () => {
    const h = harness();
    h.failRegister(new ApiError('Not logged in', 'UNAUTHORIZED', 401));
    h.loop.start();
    await flush();
    expect(h.statuses.at(-1)).toMatchObject({ kind: 'unauthorized' });
    expect(h.calls).toEqual(['register']);
  });

  it('retries a failed registration with backoff', async () => {
    const h = harness();
    h.failRegister(new ApiError('down', 'NETWORK', 0));
    h.loop.start();
    await flush();
    expect(h.statuses.at(-1)).toMatchObject({ kind: 'retrying' });
    h.clock.advance(1000);
    await flush();
    expect(h.registrations).toHaveLength(1);
    h.loop.stop();
  });
});
