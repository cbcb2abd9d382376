/**
 * One narrow's feed, windowed: of the messages the list holds (which grows as a person
 * scrolls back), at most WINDOW are in the DOM at once. Scrolling near an edge slides the
 * window by STEP (and fetches the next page from the server once the window reaches the
 * end of what is loaded), keeping the message at the top of the view where it was, so the
 * page does not jump. A person at the bottom follows new messages.
 *
 * Each message is an `article` named by its sender and time, holding the HTML the server
 * rendered (inserted as it is; the strict CSP refuses scripts in it regardless). Unread
 * messages seen for a moment are marked read; a divider marks the first unread message
 * as it was when the feed opened.
 */
import { narrowKey, type FeedMessage, type LocalEcho, type Narrow } from '@teamchat/client-model';
import { Fragment } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { timeOfDay } from './clock';
import { openUserCard } from './user-card-event';
import { withoutMuted } from './channel-api';
import { hrefOf } from './links';
import { FeedTopicMenu } from './topic-menu';
import { MessageBody } from './message-actions';
import type { ClientStore } from './store';

export const WINDOW = 150;
/** The messages shown when a feed opens. */
const FIRST_WINDOW = 60;
const STEP = 50;
const EDGE_PX = 400;

interface Span {
  /** The first message in the DOM, by id; 0 for the oldest loaded. */
  startId: number;
  /** The last one; Infinity while following the newest. */
  endId: number;
}

function lowerBound(messages: FeedMessage[], id: number): number {
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (messages[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

export function Feed({ store, narrow, near }: { store: ClientStore; narrow: Narrow; near?: number }) {
  const list = store.list(narrow, near);
  const messages = narrow.kind === 'all' ? withoutMuted(store, list.messages) : list.messages;
  const scroller = useRef<HTMLDivElement>(null);
  const [moved, setSpan] = useState<Span | null>(null);
  /** Where the feed opened, taken in the render that has the first page (an effect would cost a frame and a render more). */
  const opened = useRef<{ span: Span; dividerId: number | null } | null>(null);
  /** The message a link pointed at (`…/near/<id>`), until it has been scrolled to. */
  const target = useRef<number | undefined>(near);
  /** The message at the top of the view and its offset, captured before each render. */
  const anchor = useRef<{ id: string; top: number } | null>(null);
  const atBottom = useRef(true);
  const pendingRead = useRef(new Set<number>());

  // The first unread message when the feed opened, and the window around it: at first
  // only what fills a screen or two (laying out a whole window took most of the time
  // from the page's arrival to the first frame); it grows as the person scrolls.
  if (!opened.current && list.loaded) {
    const first = messages.find((m) => !m.flags.includes('read'));
    const linked = near === undefined ? -1 : messages.findIndex((m) => m.id === near);
    if (linked >= 0) {
      const start = Math.max(0, linked - FIRST_WINDOW / 2);
      const end = Math.min(messages.length - 1, start + FIRST_WINDOW - 1);
      opened.current = { dividerId: first?.id ?? null, span: { startId: messages[start]!.id, endId: end === messages.length - 1 && list.foundNewest ? Infinity : messages[end]!.id } };
      atBottom.current = false;
    } else if (first) {
      const i = messages.indexOf(first);
      const start = Math.max(0, i - 20);
      const end = Math.min(messages.length - 1, start + FIRST_WINDOW - 1);
      opened.current = { dividerId: first.id, span: { startId: messages[start]!.id, endId: end === messages.length - 1 && list.foundNewest ? Infinity : messages[end]!.id } };
      atBottom.current = false;
    } else {
      opened.current = { dividerId: null, span: { startId: messages[Math.max(0, messages.length - FIRST_WINDOW)]?.id ?? 0, endId: Infinity } };
    }
  }
  const span = moved ?? opened.current?.span ?? null;
  const dividerId = opened.current?.dividerId;

  let startIdx = 0;
  let endIdx = -1;
  if (span) {
    startIdx = lowerBound(messages, span.startId);
    endIdx = span.endId === Infinity ? messages.length - 1 : lowerBound(messages, span.endId + 1) - 1;
    // Following the newest at the bottom: the oldest in the DOM make way for new ones.
    if (endIdx - startIdx + 1 > WINDOW && span.endId === Infinity && atBottom.current) startIdx = endIdx - WINDOW + 1;
    if (endIdx - startIdx + 1 > WINDOW) endIdx = startIdx + WINDOW - 1;
  }
  const shown = span ? messages.slice(startIdx, endIdx + 1) : [];
  const showsNewest = span !== null && endIdx === messages.length - 1 && list.foundNewest;

  // Before the DOM changes: where the reader is.
  const el = scroller.current;
  if (el) {
    const box = el.getBoundingClientRect();
    const articles = el.querySelectorAll<HTMLElement>('article[data-id]');
    anchor.current = null;
    for (const article of articles) {
      const top = article.getBoundingClientRect().top - box.top;
      if (top + article.offsetHeight > 0) {
        anchor.current = { id: article.dataset.id!, top };
        break;
      }
    }
  }

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const linked = target.current === undefined ? null : el.querySelector<HTMLElement>(`article[data-id="${target.current}"]`);
    if (linked) {
      target.current = undefined;
      linked.scrollIntoView({ block: 'center' });
      linked.focus({ preventScroll: true });
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    } else if (anchor.current) {
      const article = el.querySelector<HTMLElement>(`article[data-id="${anchor.current.id}"]`);
      if (article) el.scrollTop += article.getBoundingClientRect().top - el.getBoundingClientRect().top - anchor.current.top;
    } else if (dividerId) {
      el.querySelector('.unread-divider')?.scrollIntoView({ block: 'start' });
    }
    check();
  });

  // Marking read: unread messages that have been at least half on screen.
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const id = Number((entry.target as HTMLElement).dataset.id);
          if (entry.isIntersecting && document.visibilityState === 'visible') pendingRead.current.add(id);
        }
      },
      { root: el, threshold: 0.5 },
    );
    for (const article of el.querySelectorAll('article[data-unread="true"]')) observer.observe(article);
    const timer = setInterval(() => {
      if (pendingRead.current.size === 0 || document.visibilityState !== 'visible') return;
      const ids = [...pendingRead.current];
      pendingRead.current.clear();
      void store.markRead(ids);
    }, 400);
    return () => {
      observer.disconnect();
      clearInterval(timer);
    };
  });

  function check() {
    const el = scroller.current;
    if (!el || !span) return;
    atBottom.current = showsNewest && el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < EDGE_PX) {
      if (startIdx > 0) {
        const start = Math.max(0, startIdx - STEP);
        const end = Math.min(endIdx, start + WINDOW - 1);
        setSpan({ startId: messages[start]!.id, endId: end === messages.length - 1 && span.endId === Infinity ? Infinity : messages[end]!.id });
        return;
      }
      if (!list.foundOldest) void store.fetch(list, 'older');
    }
    if (el.scrollHeight - el.scrollTop - el.clientHeight < EDGE_PX) {
      if (endIdx < messages.length - 1) {
        const end = Math.min(messages.length - 1, endIdx + STEP);
        const start = Math.max(startIdx, end - WINDOW + 1);
        setSpan({ startId: messages[start]!.id, endId: end === messages.length - 1 && list.foundNewest ? Infinity : messages[end]!.id });
        return;
      }
      if (!list.foundNewest) void store.fetch(list, 'newer');
      else if (span.endId !== Infinity) setSpan({ ...span, endId: Infinity });
    }
  }

  const error = store.fetchErrors.get(narrowKeyOf(list.narrow));
  const echoes = showsNewest || messages.length === 0 ? list.echoes : [];

  return (
    <div class="feed" ref={scroller} onScroll={check} tabIndex={0} aria-label="Messages" role="region">
      {/* A search's failure is said beside the search box, where it was typed. */}
      {error && narrow.kind !== 'search' && (
        <p class="banner error" role="alert">
          {error}{' '}
          <button type="button" onClick={() => store.retryFetch(list)}>
            Try again
          </button>
        </p>
      )}
      {!list.loaded && !error && <p class="loading" role="status">Loading messages…</p>}
      {list.loaded && startIdx === 0 && list.foundOldest && <p class="history-start">{historyStart(narrow, messages.length > 0)}</p>}
      {list.loaded && startIdx === 0 && !list.foundOldest && <p class="loading">Loading older messages…</p>}
      <div class="messages">
        {shown.map((m, i) => {
          const prev = i > 0 ? shown[i - 1] : startIdx > 0 ? messages[startIdx - 1] : undefined;
          const newRecipient = !prev || recipientKey(prev) !== recipientKey(m);
          const continued = !newRecipient && prev!.sender_id === m.sender_id && m.timestamp - prev!.timestamp < 300;
          return (
            <Fragment key={m.id}>
              {m.id === dividerId && (
                <div class="unread-divider" role="separator" aria-label="New messages">
                  <span>New messages</span>
                </div>
              )}
              {newRecipient && <RecipientHeader store={store} message={m} />}
              <Message store={store} message={m} continued={continued} linked={m.id === near} />
            </Fragment>
          );
        })}
        {echoes.map((e) => (
          <EchoView key={e.localId} store={store} echo={e} />
        ))}
      </div>
    </div>
  );
}

const narrowKeyOf = (narrow: Narrow) => narrowKey(narrow);

function historyStart(narrow: Narrow, any: boolean): string {
  if (narrow.kind === 'search') return any ? 'No earlier messages match this search.' : 'No messages match this search.';
  return any ? 'This is the start of the conversation.' : 'No messages here yet.';
}

function recipientKey(m: FeedMessage): string {
  return m.type === 'stream' ? `s${m.stream_id}\u0000${m.subject.toLowerCase()}` : `p${Array.isArray(m.display_recipient) ? m.display_recipient.map((u) => u.id).sort().join(',') : ''}`;
}

function RecipientHeader({ store, message }: { store: ClientStore; message: FeedMessage }) {
  if (message.type === 'stream') {
    const streamId = message.stream_id!;
    const name = store.channel(streamId)?.name ?? String(message.display_recipient);
    return (
      <h2 class="recipient">
        <a href={hrefOf({ kind: 'channel', streamId })}>#{name}</a>
        <span aria-hidden="true"> › </span>
        {/* In a search, the server's copy of the topic with the matches highlighted (escaped by it). */}
        {message.match_subject ? (
          <a href={hrefOf({ kind: 'topic', streamId, topic: message.subject })} dangerouslySetInnerHTML={{ __html: message.match_subject }} />
        ) : (
          <a href={hrefOf({ kind: 'topic', streamId, topic: message.subject })}>{message.subject || '(no topic)'}</a>
        )}
        <FeedTopicMenu store={store} streamId={streamId} topic={message.subject} />
      </h2>
    );
  }
  const others = (Array.isArray(message.display_recipient) ? message.display_recipient : []).map((u) => u.id).filter((id) => id !== store.self).sort((a, b) => a - b);
  return (
    <h2 class="recipient dm">
      <a href={hrefOf({ kind: 'dm', userIds: others })}>You and {others.length ? store.peopleNames(others) : 'yourself'}</a>
    </h2>
  );
}

export function Avatar({ url, name, id, size }: { url: string | null | undefined; name: string; id: number; size?: 'large' }) {
  const large = size === 'large';
  // Only the server's own images (the CSP allows no other host): else the initials.
  if (url && (url.startsWith('/') || url.startsWith(location.origin))) return <img class={large ? 'avatar large' : 'avatar'} src={url} alt="" width={large ? 64 : 36} height={large ? 64 : 36} />;
  const initials = name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0]!.toUpperCase()).join('');
  return (
    <span class={`avatar initials hue${id % 8}${large ? ' large' : ''}`} aria-hidden="true">
      {initials}
    </span>
  );
}

function Message({ store, message, continued, linked }: { store: ClientStore; message: FeedMessage; continued: boolean; linked: boolean }) {
  const when = new Date(message.timestamp * 1000);
  const unread = !message.flags.includes('read');
  const sender = store.users.get(message.sender_id);
  return (
    <article
      class={`message${continued ? ' continued' : ''}${unread ? ' unread' : ''}${linked ? ' linked' : ''}`}
      data-id={message.id}
      tabIndex={linked ? -1 : undefined}
      data-unread={unread ? 'true' : 'false'}
      aria-labelledby={`m${message.id}-sender m${message.id}-time`}
    >
      {continued ? <span class="avatar-space" /> : <Avatar url={sender?.avatar_url ?? message.avatar_url} name={message.sender_full_name} id={message.sender_id} />}
      <div class="body">
        <div class={`meta${continued ? ' visually-hidden' : ''}`}>
          <button type="button" class="sender" id={`m${message.id}-sender`} tabIndex={continued ? -1 : undefined} onClick={() => openUserCard(message.sender_id)}>
            {message.sender_full_name}
          </button>{' '}
          <time id={`m${message.id}-time`} dateTime={when.toISOString()} title={dateFormat.format(when)}>
            {timeOfDay(store, when)}
          </time>
          {message.flags.includes('starred') && <span class="star" aria-label="starred">★</span>}
        </div>
        <MessageBody store={store} message={message} />
      </div>
    </article>
  );
}

function EchoView({ store, echo }: { store: ClientStore; echo: LocalEcho }) {
  return (
    <article class={`message echo ${echo.state}`} aria-labelledby={`e${echo.localId}-sender e${echo.localId}-state`}>
      <Avatar url={store.users.get(store.self)?.avatar_url} name={store.userName(store.self)} id={store.self} />
      <div class="body">
        <div class="meta">
          <span class="sender" id={`e${echo.localId}-sender`}>
            {store.userName(store.self)}
          </span>{' '}
          <span class="sending" id={`e${echo.localId}-state`}>
            {echo.state === 'sending' ? 'Sending…' : `Not sent: ${echo.error}`}
          </span>
        </div>
        {/* The text as typed, not rendered: the server's rendering replaces it. */}
        <div class="content plain">{echo.content}</div>
      </div>
    </article>
  );
}
