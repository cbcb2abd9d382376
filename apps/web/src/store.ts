/**
 * The page's state, as zulip-flutter's PerAccountStore: the registration (POST /register
 * once per queue) kept current by the shared reducer (@teamchat/client-model) for every
 * event, plus the feeds' message lists, each handed the same events. Components read it
 * and re-render on `version` changes (one subscription, one counter).
 */
import {
  applyEvent,
  EventLoop,
  MESSAGE_LIMIT,
  MessageList,
  narrowKey,
  narrowTerms,
  stateOf,
  TypingPeople,
  typingTimingsOf,
  topicMuting,
  unreadCounts,
  type LoopStatus,
  type Narrow,
  type State,
  type UnreadCounts,
  type LocalEcho,
  type TypingEventLike,
} from '@teamchat/client-model';
import { api, ApiError, describeError, type RegisterReply, type Session } from './api';

export interface User {
  user_id: number;
  full_name: string;
  email: string;
  avatar_url: string | null;
  is_active?: boolean;
  is_bot?: boolean;
}

export interface Channel {
  stream_id: number;
  name: string;
  is_muted: boolean;
  pin_to_top: boolean;
  color: string;
}

export interface Topic {
  name: string;
  max_id: number;
}

const PAGE = 100;
/** Feeds kept beside the open one: going back to a recent narrow is instant, and a long session does not keep every narrow it opened. */
const KEPT_FEEDS = 6;
/** Messages a feed out of view keeps (its newest): two pages; the open feed keeps MESSAGE_LIMIT. */
const KEPT_OUT_OF_VIEW = 200;
/** Topics remembered per channel (the sidebar shows ten, the topic suggestions eight). */
const KEPT_TOPICS = 100;
/** Events that can change the channels, the muting or the unread counts; the others (presence, typing, reactions…) leave what is derived from them as it is. */
const SHAPING = new Set(['message', 'update_message_flags', 'delete_message', 'update_message', 'subscription', 'user_topic', 'stream', 'realm_user']);
/** The sidebar's topics are fetched after the feed's first page, or after this long regardless. */
const TOPICS_AT_THE_LATEST_MS = 2000;

export class ClientStore {
  state: State = {};
  registration: RegisterReply | undefined;
  users = new Map<number, User>();
  topics = new Map<number, Topic[]>();
  lists = new Map<string, MessageList>();
  status: LoopStatus = { kind: 'connecting' };
  /**
   * Said once the page had to start over from a new registration (its event queue had
   * expired, as after a long sleep): the person learns why the feed was reloaded.
   */
  notice: string | undefined;
  version = 0;
  /** Who is typing where (typing events; shown for the open conversation). */
  readonly typing: TypingPeople;
  /** Bumped by the events in SHAPING: the sorted channels, the muting and the unread counts are recomputed only then. */
  private shape = 0;
  private derived: { shape: number; channels: Channel[]; byId: Map<number, Channel>; muted: (streamId: number, topic: string) => boolean; unread?: UnreadCounts } | undefined;
  private listeners = new Set<() => void>();
  private loop: EventLoop<RegisterReply>;
  private localSerial = 0;
  /** Ids being marked read, so that one is sent once. */
  private markingRead = new Set<number>();

  constructor(readonly session: Session) {
    this.typing = new TypingPeople(session.user_id);
    this.loop = new EventLoop<RegisterReply>(
      {
        register: () =>
          api.register({ apply_markdown: true, client_gravatar: false, slim_presence: true, include_subscribers: false, client_capabilities: { notification_settings_null: true, simplified_presence_events: true, user_settings_object: true, stream_typing_notifications: true, linkifier_url_template: true } }),
        getEvents: (queueId, lastEventId, abort) => {
          const controller = new AbortController();
          abort.onAbort(() => controller.abort());
          return api.getEvents(queueId, lastEventId, controller.signal).then((r) => r.events);
        },
      },
      {
        onRegistered: (registration, reset) => this.registered(registration, reset),
        onEvents: (events) => this.handleEvents(events),
        onStatus: (status) => {
          this.status = status;
          this.changed();
        },
      },
    );
  }

  get self(): number {
    return this.session.user_id;
  }

  get ready(): boolean {
    return this.registration !== undefined;
  }

  get queueId(): string | undefined {
    return this.loop.queue;
  }

  start(): void {
    this.loop.start();
    window.addEventListener('online', () => this.loop.retryNow());
  }

  stop(): void {
    this.loop.stop();
  }

  dismissNotice(): void {
    this.notice = undefined;
    this.changed();
  }

  retryNow(): void {
    this.loop.retryNow();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** Re-renders after a change made beside the event stream (a presence poll's answer). */
  refresh(): void {
    this.changed();
  }

  private eventListeners = new Set<(event: { type: string; id: number }) => void>();

  /** Follows each event once the state has it (desktop notifications). */
  onEvent(listener: (event: { type: string; id: number }) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private registered(registration: RegisterReply, reset: boolean): void {
    this.registration = registration;
    this.state = stateOf(registration);
    this.typing.setTimings(typingTimingsOf(this.state));
    this.rebuildUsers();
    this.shape++;
    if (reset) {
      this.notice = 'This page was away too long to catch up event by event: your messages were reloaded.';
      // The events since the old queue are lost: every feed is refetched from the new state.
      const narrows = [...this.lists.values()].map((l) => ({ narrow: l.narrow, echoes: l.echoes }));
      this.lists.clear();
      for (const { narrow, echoes } of narrows) {
        const list = this.list(narrow);
        // Echoes of sends still under way stay (their request answers for them); they are sent on the new queue's terms.
        for (const echo of echoes) list.addEcho(echo);
      }
    }
    // The sidebar's topics (a request per channel) wait for the feed's first page: sent
    // beside it, they queued ahead of it on the server and doubled the time to the first
    // messages on screen (see the bench's "web first messages" line).
    this.topicsWanted = true;
    setTimeout(() => this.fetchTopicsOnce(), TOPICS_AT_THE_LATEST_MS);
    this.changed();
  }

  private topicsWanted = false;

  private fetchTopicsOnce(): void {
    if (!this.topicsWanted) return;
    this.topicsWanted = false;
    void this.fetchTopics();
  }

  private rebuildUsers(): void {
    this.users.clear();
    for (const key of ['realm_users', 'realm_non_active_users', 'cross_realm_bots']) {
      for (const user of (this.state[key] ?? []) as User[]) this.users.set(user.user_id, user);
    }
    this.searchable = undefined;
  }

  /** The active people (no bots) with their name and email lowercased once, for findPeople. */
  private searchable: { user: User; text: string }[] | undefined;

  /**
   * The first `limit` active people whose name or email holds `query` (any case), in the
   * registration's order. Each keystroke of a mention scans lowercased strings prepared
   * once (not 10,000 users copied, filtered and lowercased per key) and stops at `limit`.
   */
  findPeople(query: string, limit: number): User[] {
    this.searchable ??= [...this.users.values()].filter((u) => u.is_active !== false && !u.is_bot).map((user) => ({ user, text: `${user.full_name}\u0000${user.email}`.toLowerCase() }));
    const q = query.toLowerCase();
    const found: User[] = [];
    for (const { user, text } of this.searchable) {
      if (!text.includes(q)) continue;
      found.push(user);
      if (found.length === limit) break;
    }
    return found;
  }

  private handleEvents(events: { type: string; id: number }[]): void {
    const queueId = this.loop.queue;
    for (const event of events) {
      try {
        applyEvent(this.state, event, { self: this.self, includeSubscribers: false });
      } catch (e) {
        // An event this client does not know yet changes nothing it shows.
        console.warn('event not applied', event.type, e);
      }
      for (const list of this.lists.values()) list.handleEvent(event, queueId);
      if (event.type === 'update_message' || event.type === 'update_message_flags') this.adoptChanged(event as unknown as { message_ids?: number[]; message_id?: number; messages?: number[] });
      if (event.type === 'message') this.noteTopic((event as unknown as { message: { type: string; stream_id?: number; subject: string; id: number } }).message);
      if (event.type === 'realm_user' || event.type === 'realm_bot') this.rebuildUsers();
      for (const listener of this.eventListeners) listener(event);
      if (event.type === 'typing') this.typing.apply(event as unknown as TypingEventLike, Date.now());
      if (SHAPING.has(event.type)) this.shape++;
    }
    this.changed();
  }

  /** Messages an event made belong to other open feeds (starred, moved) join those feeds, from the feed that holds them. */
  private adoptChanged(event: { message_ids?: number[]; message_id?: number; messages?: number[] }): void {
    const ids = event.messages ?? event.message_ids ?? (event.message_id === undefined ? [] : [event.message_id]);
    if (ids.length > 200) return;
    const lists = [...this.lists.values()];
    for (const id of ids) {
      const message = lists.map((l) => l.messages.find((m) => m.id === id)).find((m) => m !== undefined);
      if (message) for (const list of lists) list.adopt(message);
    }
  }

  // --- What the sidebar shows ---------------------------------------------------------

  /** What the sidebar, the feeds and the suggestions read on every render, computed once per change of shape (1,000 channels sorted on every event cost more than the render). */
  private get shaped() {
    if (this.derived?.shape === this.shape) return this.derived;
    const subscriptions = (this.state.subscriptions ?? []) as Channel[];
    const byId = new Map<number, Channel>();
    for (const s of (this.state.streams ?? []) as Channel[]) byId.set(s.stream_id, s);
    for (const s of subscriptions) byId.set(s.stream_id, s);
    const channels = subscriptions.slice().sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
    this.derived = { shape: this.shape, channels, byId, muted: topicMuting(this.state) };
    return this.derived;
  }

  get channels(): Channel[] {
    return this.shaped.channels;
  }

  channel(streamId: number): Channel | undefined {
    return this.shaped.byId.get(streamId);
  }

  /** Whether a topic is muted (its own policy, else its channel's). */
  topicMuted(streamId: number, topic: string): boolean {
    return this.shaped.muted(streamId, topic);
  }

  get unread(): UnreadCounts {
    const shaped = this.shaped;
    shaped.unread ??= unreadCounts(this.state, this.self, shaped.muted);
    return shaped.unread;
  }

  /** Direct-message conversations, most recent first: the others' ids. */
  get conversations(): number[][] {
    const recent = ((this.state.recent_private_conversations ?? []) as { user_ids: number[]; max_message_id: number }[]).map((c) => c.user_ids);
    const keys = new Set(recent.map((ids) => ids.join(',')));
    for (const key of this.unread.dms.keys()) if (!keys.has(key)) recent.unshift(key === '' ? [] : key.split(',').map(Number));
    return recent;
  }

  userName(id: number): string {
    return this.users.get(id)?.full_name ?? `Unknown user ${id}`;
  }

  peopleNames(ids: number[]): string {
    return ids.length === 0 ? `${this.userName(this.self)} (you)` : ids.map((id) => this.userName(id)).join(', ');
  }

  private async fetchTopics(): Promise<void> {
    // The first channels' recent topics; others are fetched when opened.
    await Promise.all(this.channels.slice(0, 20).map((c) => this.loadTopics(c.stream_id)));
  }

  async loadTopics(streamId: number): Promise<void> {
    try {
      const { topics } = await api.topics(streamId);
      const known = this.topics.get(streamId) ?? [];
      const merged = new Map<string, Topic>();
      for (const t of [...topics, ...known]) {
        const key = t.name.toLowerCase();
        if ((merged.get(key)?.max_id ?? -1) < t.max_id) merged.set(key, t);
      }
      this.topics.set(streamId, [...merged.values()].sort((a, b) => b.max_id - a.max_id).slice(0, KEPT_TOPICS));
      this.changed();
    } catch {
      // The sidebar shows the topics it has; the banner reports connection trouble.
    }
  }

  private noteTopic(message: { type: string; stream_id?: number; subject: string; id: number }): void {
    if (message.type !== 'stream' || message.stream_id === undefined) return;
    const topics = (this.topics.get(message.stream_id) ?? []).filter((t) => t.name.toLowerCase() !== message.subject.toLowerCase());
    this.topics.set(message.stream_id, [{ name: message.subject, max_id: message.id }, ...topics].slice(0, KEPT_TOPICS));
  }

  // --- Feeds --------------------------------------------------------------------------

  /** The feed of a narrow; `near`, a message a link points at, is fetched around if the feed does not hold it. */
  list(narrow: Narrow, near?: number): MessageList {
    const key = narrowKey(narrow);
    let list = this.lists.get(key);
    if (list && [...this.lists.keys()].at(-1) !== key) {
      // The most recently opened last: the first are the ones let go. The one left keeps only its newest.
      [...this.lists.values()].at(-1)?.setLimit(KEPT_OUT_OF_VIEW);
      list.setLimit(MESSAGE_LIMIT);
      this.lists.delete(key);
      this.lists.set(key, list);
    }
    if (list && near !== undefined && list.loaded && !list.messages.some((m) => m.id === near) && this.anchors.get(key) !== near) list = undefined;
    if (!list) {
      list = new MessageList(narrow, this.self);
      [...this.lists.values()].at(-1)?.setLimit(KEPT_OUT_OF_VIEW);
      this.lists.set(key, list);
      for (const old of [...this.lists.keys()].slice(0, Math.max(0, this.lists.size - KEPT_FEEDS))) {
        this.lists.delete(old);
        this.anchors.delete(old);
        this.fetchErrors.delete(old);
      }
      if (near !== undefined) this.anchors.set(key, near);
      void this.fetch(list, 'initial');
    }
    return list;
  }

  /** Drops a feed's messages (and its last error), so that opening it fetches it anew. */
  forget(narrow: Narrow): void {
    this.lists.delete(narrowKey(narrow));
    this.fetchErrors.delete(narrowKey(narrow));
    this.changed();
  }

  private fetching = new Set<string>();
  /** Where a feed opened by a link to a message starts (else at the first unread). */
  private anchors = new Map<string, number>();
  /** The last failure of each feed's fetch, shown in the feed with a retry. */
  fetchErrors = new Map<string, string>();

  async fetch(list: MessageList, direction: 'initial' | 'older' | 'newer'): Promise<void> {
    const key = `${narrowKey(list.narrow)}:${direction}`;
    if (this.fetching.has(key)) return;
    if (direction === 'older' && (list.foundOldest || list.oldestId === undefined)) return;
    if (direction === 'newer' && (list.foundNewest || list.newestId === undefined)) return;
    this.fetching.add(key);
    try {
      // A link to a message opens there; a search shows its newest matches first (as Zulip's); other feeds open at the first unread.
      const anchor = direction === 'initial' ? (this.anchors.get(narrowKey(list.narrow)) ?? (list.narrow.kind === 'search' ? 'newest' : 'first_unread')) : direction === 'older' ? list.oldestId! : list.newestId!;
      const reply = await api.getMessages({
        anchor,
        include_anchor: direction === 'initial',
        num_before: direction === 'newer' ? 0 : PAGE,
        num_after: direction === 'older' ? 0 : PAGE,
        narrow: narrowTerms(list.narrow),
        apply_markdown: true,
        client_gravatar: false,
      });
      // A registration replaced in the meantime made a new list; this one is forgotten.
      if (this.lists.get(narrowKey(list.narrow)) !== list) return;
      list.addPage(reply, direction);
      this.fetchErrors.delete(narrowKey(list.narrow));
    } catch (e) {
      this.fetchErrors.set(narrowKey(list.narrow), describeError(e));
    } finally {
      this.fetching.delete(key);
      if (direction === 'initial') this.fetchTopicsOnce();
      this.changed();
    }
  }

  isFetching(list: MessageList, direction: 'initial' | 'older' | 'newer'): boolean {
    return this.fetching.has(`${narrowKey(list.narrow)}:${direction}`);
  }

  retryFetch(list: MessageList): void {
    void this.fetch(list, list.loaded ? 'older' : 'initial');
  }

  // --- Quote and reply ---------------------------------------------------------------

  /** What the compose box is asked to hold (quote and reply); `serial` tells a new request from an old one. */
  composeFill: { serial: number; to: string; topic: string; text: string } | undefined;

  /** Addresses the compose box to a message's conversation and adds `text` to what it holds. */
  fillCompose(message: { type: string; stream_id?: number; subject: string; display_recipient: unknown }, text: string): void {
    const people = (Array.isArray(message.display_recipient) ? (message.display_recipient as { id: number }[]) : []).map((u) => u.id).filter((id) => id !== this.self);
    const to = message.type === 'stream' ? `#${this.channel(message.stream_id!)?.name ?? ''}` : people.length ? people.map((id) => this.userName(id)).join(', ') : this.userName(this.self);
    this.composeFill = { serial: (this.composeFill?.serial ?? 0) + 1, to, topic: message.type === 'stream' ? message.subject : '', text };
    this.changed();
  }

  // --- Sending ------------------------------------------------------------------------

  /**
   * Sends a message with a local echo in the feed it belongs to. Resolves when the server
   * took it; rejects with the error in words (the caller keeps the text in the box).
   */
  async send(target: { type: 'stream'; streamId: number; topic: string } | { type: 'private'; to: number[] }, content: string, feed: MessageList | undefined): Promise<void> {
    const localId = `${this.state.max_message_id ?? 0}.${++this.localSerial}`;
    const queueId = this.loop.queue;
    const echo: LocalEcho | undefined = queueId
      ? {
          localId,
          queueId,
          type: target.type,
          streamId: target.type === 'stream' ? target.streamId : undefined,
          topic: target.type === 'stream' ? target.topic : '',
          to: target.type === 'private' ? target.to : [],
          content,
          timestamp: Math.floor(Date.now() / 1000),
          state: 'sending',
        }
      : undefined;
    if (echo && feed) {
      feed.addEcho(echo);
      this.changed();
    }
    try {
      await api.sendMessage(
        target.type === 'stream'
          ? { type: 'stream', to: target.streamId, topic: target.topic, content, queue_id: queueId, local_id: localId }
          : { type: 'direct', to: target.to.length ? target.to : [this.self], content, queue_id: queueId, local_id: localId },
      );
      // The event replaces the echo; a feed not showing the newest never gets it, so drop it there.
      if (feed && !feed.foundNewest) feed.dropEcho(localId);
    } catch (e) {
      feed?.dropEcho(localId);
      this.changed();
      throw new Error(describeError(e));
    }
    this.changed();
  }

  /** Marks messages read once they have been on screen (batched by the caller). */
  async markRead(ids: number[]): Promise<void> {
    const fresh = ids.filter((id) => !this.markingRead.has(id) && this.unread.ids.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) this.markingRead.add(id);
    try {
      await api.updateFlags({ messages: fresh, op: 'add', flag: 'read' });
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 401) console.warn('marking read failed', e);
    } finally {
      for (const id of fresh) this.markingRead.delete(id);
    }
  }
}
