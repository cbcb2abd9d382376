/**
 * The messages of one feed (one narrow), as zulip-flutter's MessageListView keeps them:
 * a contiguous range of the narrow's history, sorted by id, fetched from GET /messages
 * around an anchor and extended at either end, kept current by the same events the
 * registration's reducer takes (new, edited, moved, deleted messages; flags; reactions),
 * plus the local echoes of messages this client is sending.
 *
 * New messages are added only while the range reaches the newest (`foundNewest`); before
 * that, fetching the next page brings them.
 *
 * The range holds at most `limit` messages (default MESSAGE_LIMIT): a page left open
 * under live traffic would otherwise keep every message it ever received. What grows at
 * one end is let go at the other, which is then no longer the end of the history
 * (`foundOldest`/`foundNewest` false), so scrolling there fetches it again.
 */
import type { ApiMessage } from '@teamchat/contracts';
import { matches, type Narrow } from './narrow';

export interface FeedMessage extends ApiMessage {
  flags: string[];
  /** In a search narrow: the content and topic as HTML with the matches highlighted by the server. */
  match_content?: string;
  match_subject?: string;
}

/** A message being sent: shown at once, replaced by the server's copy when its event comes. */
export interface LocalEcho {
  localId: string;
  /** The queue it was sent for: only that queue's event names local_message_id. */
  queueId: string;
  type: 'stream' | 'private';
  streamId?: number;
  topic: string;
  /** For a direct message, the ids of the others. */
  to: number[];
  content: string;
  timestamp: number;
  state: 'sending' | 'failed';
  error?: string;
}

export interface FetchedPage {
  messages: FeedMessage[];
  found_oldest: boolean;
  found_newest: boolean;
}

type AnyEvent = { type: string } & Record<string, any>;

/** Seven pages of a hundred and more than six windows of the feed's 150. */
export const MESSAGE_LIMIT = 1_000;

export class MessageList {
  messages: FeedMessage[] = [];
  echoes: LocalEcho[] = [];
  foundOldest = false;
  foundNewest = false;
  /** Set once the first page is in. */
  loaded = false;

  constructor(
    readonly narrow: Narrow,
    readonly self: number,
    private limit = MESSAGE_LIMIT,
  ) {}

  /** Changes the limit (a feed out of view keeps fewer), letting go of the oldest at once if over it. */
  setLimit(limit: number): void {
    this.limit = limit;
    this.bound('newest');
  }

  /** Keeps `limit` messages, letting go of the oldest (`keep` 'newest') or the newest. */
  private bound(keep: 'newest' | 'oldest'): void {
    const over = this.messages.length - this.limit;
    if (over <= 0) return;
    if (keep === 'newest') {
      this.messages = this.messages.slice(over);
      this.foundOldest = false;
    } else {
      this.messages = this.messages.slice(0, this.limit);
      this.foundNewest = false;
    }
  }

  /** Adds a page from GET /messages, whichever end it extends. */
  addPage(page: FetchedPage, direction: 'initial' | 'older' | 'newer'): void {
    const known = new Set(this.messages.map((m) => m.id));
    const fresh = page.messages.filter((m) => !known.has(m.id));
    this.messages = [...this.messages, ...fresh].sort((a, b) => a.id - b.id);
    if (direction !== 'newer') this.foundOldest = this.foundOldest || page.found_oldest;
    if (direction !== 'older') this.foundNewest = this.foundNewest || page.found_newest;
    if (direction === 'initial') {
      this.foundOldest = page.found_oldest;
      this.foundNewest = page.found_newest;
    }
    this.bound(direction === 'older' ? 'oldest' : 'newest');
    this.loaded = true;
  }

  get oldestId(): number | undefined {
    return this.messages[0]?.id;
  }

  get newestId(): number | undefined {
    return this.messages.at(-1)?.id;
  }

  addEcho(echo: LocalEcho): void {
    this.echoes = [...this.echoes, echo];
  }

  failEcho(localId: string, error: string): void {
    this.echoes = this.echoes.map((e) => (e.localId === localId ? { ...e, state: 'failed', error } : e));
  }

  dropEcho(localId: string): void {
    this.echoes = this.echoes.filter((e) => e.localId !== localId);
  }

  /**
   * Takes a message another feed holds that now belongs here (starred, or moved into this
   * channel or topic), if it falls within the range this feed has loaded: outside it, the
   * next page brings it.
   */
  adopt(message: FeedMessage): boolean {
    if (!this.loaded || this.messages.some((m) => m.id === message.id) || !matches(this.narrow, message, message.flags, this.self)) return false;
    const afterStart = this.foundOldest || (this.oldestId !== undefined && message.id > this.oldestId);
    const beforeEnd = this.foundNewest || (this.newestId !== undefined && message.id < this.newestId);
    if (!afterStart || !beforeEnd) return false;
    this.messages = [...this.messages, message].sort((a, b) => a.id - b.id);
    this.bound('newest');
    return true;
  }

  /** Applies an event to the loaded messages; true when what the feed shows changed. */
  handleEvent(event: AnyEvent, queueId: string | undefined): boolean {
    switch (event.type) {
      case 'message': {
        const message = { ...(event.message as ApiMessage), flags: event.flags as string[] };
        let changed = false;
        if (event.local_message_id !== undefined && queueId !== undefined) {
          const before = this.echoes.length;
          this.echoes = this.echoes.filter((e) => !(e.localId === event.local_message_id && e.queueId === queueId));
          changed = this.echoes.length !== before;
        }
        if (!this.foundNewest || !matches(this.narrow, message, message.flags, this.self)) return changed;
        if (this.messages.some((m) => m.id === message.id)) return changed;
        this.messages = [...this.messages, message].sort((a, b) => a.id - b.id);
        this.bound('newest');
        return true;
      }
      case 'update_message': {
        const ids = new Set<number>(event.message_ids ?? [event.message_id]);
        let changed = false;
        this.messages = this.messages.map((m) => {
          if (!ids.has(m.id)) return m;
          changed = true;
          const next = { ...m };
          if (event.message_id === m.id && event.rendered_content !== undefined) {
            next.content = event.rendered_content;
            // The highlighting was of the old text.
            delete next.match_content;
          }
          if (event.subject !== undefined) {
            next.subject = event.subject;
            delete next.match_subject;
          }
          if (event.new_stream_id !== undefined) next.stream_id = event.new_stream_id;
          if (event.topic_links !== undefined && event.message_id === m.id) next.topic_links = event.topic_links;
          if (event.message_id === m.id && !event.rendering_only) next.last_edit_timestamp = event.edit_timestamp;
          return next;
        });
        // Moved out of this narrow: gone from it.
        const before = this.messages.length;
        this.messages = this.messages.filter((m) => matches(this.narrow, m, m.flags, this.self));
        return changed || before !== this.messages.length;
      }
      case 'delete_message': {
        const gone = new Set<number>(event.message_ids ?? [event.message_id]);
        const before = this.messages.length;
        this.messages = this.messages.filter((m) => !gone.has(m.id));
        return before !== this.messages.length;
      }
      case 'update_message_flags': {
        const ids = new Set<number>(event.messages);
        let changed = false;
        this.messages = this.messages.map((m) => {
          if (!event.all && !ids.has(m.id)) return m;
          const has = m.flags.includes(event.flag);
          if ((event.op === 'add') === has) return m;
          changed = true;
          return { ...m, flags: event.op === 'add' ? [...m.flags, event.flag] : m.flags.filter((f) => f !== event.flag) };
        });
        return changed;
      }
      case 'reaction': {
        let changed = false;
        this.messages = this.messages.map((m) => {
          if (m.id !== event.message_id) return m;
          changed = true;
          const same = (r: ApiMessage['reactions'][number]) => r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type;
          const reactions =
            event.op === 'add'
              ? [...m.reactions.filter((r) => !same(r)), { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id }]
              : m.reactions.filter((r) => !same(r));
          return { ...m, reactions };
        });
        return changed;
      }
      default:
        return false;
    }
  }
}
