/**
 * Zulip's common keyboard shortcuts: j/k (or the arrow keys) move the selected message,
 * r replies to it, c composes to a channel, x a direct message, / goes to the search
 * box, n opens the next unread topic, ? lists them, Esc closes or cancels. None fires
 * while a person types in a field, or with Ctrl, Alt or Meta held (the browser's).
 *
 * The selected message is the feed's `article` marked `data-selected`, which holds the
 * focus (so the focus ring shows it, and a screen reader reads it); the feed keeps its
 * elements by message id, so the mark stays on it while the feed re-renders.
 */
import { narrowKey, type Narrow } from '@teamchat/client-model';
import { useEffect, useRef } from 'preact/hooks';
import { hrefOf } from './links';
import type { ClientStore } from './store';

/** Asks the compose box to address itself (and take the focus); compose.tsx listens. */
export const COMPOSE_EVENT = 'teamchat-compose';
export interface ComposeRequest {
  to: string;
  topic?: string;
  focus: 'to' | 'topic' | 'content';
}
const compose = (request: ComposeRequest) => window.dispatchEvent(new CustomEvent<ComposeRequest>(COMPOSE_EVENT, { detail: request }));

export const SHORTCUTS: [keys: string, what: string][] = [
  ['j or ↓', 'Next message'],
  ['k or ↑', 'Previous message'],
  ['r', 'Reply to the selected message'],
  ['c', 'New message to a channel'],
  ['x', 'New direct message'],
  ['n', 'Next unread topic'],
  ['/', 'Search'],
  ['Esc', 'Close, or leave the compose box'],
  ['?', 'This list of shortcuts'],
];

const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

const articles = () => [...document.querySelectorAll<HTMLElement>('.feed article.message[data-id]')];
const selectedArticle = () => document.querySelector<HTMLElement>('.feed article.message[data-selected="true"]');

function select(article: HTMLElement | undefined): void {
  if (!article) return;
  for (const old of document.querySelectorAll<HTMLElement>('article.message[data-selected]')) old.removeAttribute('data-selected');
  article.dataset.selected = 'true';
  article.tabIndex = -1;
  article.focus({ preventScroll: true });
  article.scrollIntoView({ block: 'nearest' });
}

/** The first message wholly or partly in view: where moving starts from when none is selected. */
function firstInView(all: HTMLElement[]): HTMLElement | undefined {
  const feed = document.querySelector('.feed')?.getBoundingClientRect();
  if (!feed) return all[0];
  return all.find((a) => a.getBoundingClientRect().bottom > feed.top + 8) ?? all[all.length - 1];
}

function move(by: 1 | -1): void {
  const all = articles();
  const current = selectedArticle();
  const at = current ? all.indexOf(current) : -1;
  if (at < 0) return select(firstInView(all));
  select(all[Math.max(0, Math.min(all.length - 1, at + by))]);
}

function reply(store: ClientStore, narrow: Narrow): void {
  const article = selectedArticle() ?? articles().at(-1);
  const id = Number(article?.dataset.id);
  const message = store.lists.get(narrowKey(narrow))?.messages.find((m) => m.id === id);
  if (!message) return;
  if (message.type === 'stream') {
    compose({ to: `#${store.channel(message.stream_id!)?.name ?? message.display_recipient}`, topic: message.subject, focus: 'content' });
    return;
  }
  const others = (Array.isArray(message.display_recipient) ? message.display_recipient : []).map((u) => u.id).filter((id) => id !== store.self);
  compose({ to: others.length ? others.map((id) => store.userName(id)).join(', ') : store.userName(store.self), focus: 'content' });
}

/** The unread topics in the sidebar's order (channels as listed, then oldest unread first), muted ones left out. */
function unreadTopics(store: ClientStore): { streamId: number; topic: string }[] {
  const order = new Map(store.channels.map((c, i) => [c.stream_id, i]));
  const entries = ((store.state.unread_msgs?.streams ?? []) as { stream_id: number; topic: string; unread_message_ids: number[] }[]).filter(
    (e) => e.unread_message_ids.length > 0 && order.has(e.stream_id) && !store.topicMuted(e.stream_id, e.topic),
  );
  entries.sort((a, b) => order.get(a.stream_id)! - order.get(b.stream_id)! || Math.min(...a.unread_message_ids) - Math.min(...b.unread_message_ids));
  return entries.map((e) => ({ streamId: e.stream_id, topic: e.topic }));
}

function nextUnreadTopic(store: ClientStore, narrow: Narrow): void {
  const topics = unreadTopics(store);
  const here = narrow.kind === 'topic' ? topics.findIndex((t) => t.streamId === narrow.streamId && t.topic.toLowerCase() === narrow.topic.toLowerCase()) : -1;
  // After the open topic, else the first; the open one only if it is the last left.
  const next = topics[here + 1] ?? topics[0];
  if (next) location.hash = hrefOf({ kind: 'topic', ...next });
}

/** Installs the shortcuts for the page's life; `narrow` and `help` are read when a key is pressed. */
export function useShortcuts(store: ClientStore, narrow: Narrow, help: { open: () => void; isOpen: () => boolean }): void {
  const current = useRef({ narrow, help });
  current.current = { narrow, help };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Not behind a dialog (this list, or a message's edit history or delete confirmation).
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || current.current.help.isOpen() || document.querySelector('dialog[open]')) return;
      const { narrow } = current.current;
      if (e.key === 'Escape') {
        // Leaving the compose box (or the search box) goes back to the message being read.
        const target = e.target as HTMLElement;
        if (target.closest?.('.compose') || target.id === 'search') {
          target.blur();
          (selectedArticle() ?? document.querySelector<HTMLElement>('.feed'))?.focus({ preventScroll: true });
        }
        return;
      }
      if (isTyping(e.target)) return;
      // The arrows are the page's only where nothing else uses them (not in a message's actions menu).
      const active = document.activeElement;
      const reading = active === document.body || !!active?.matches('.feed, .feed article.message');
      const act = (fn: () => void) => {
        e.preventDefault();
        fn();
      };
      switch (e.key) {
        case 'j':
          return act(() => move(1));
        case 'k':
          return act(() => move(-1));
        case 'ArrowDown':
        case 'ArrowUp':
          if (reading && store.ready) act(() => move(e.key === 'ArrowDown' ? 1 : -1));
          return;
        case 'r':
          return act(() => reply(store, narrow));
        case 'c': {
          const streamId = narrow.kind === 'channel' || narrow.kind === 'topic' ? narrow.streamId : undefined;
          const name = streamId === undefined ? undefined : store.channel(streamId)?.name;
          return act(() => compose(name ? { to: `#${name}`, topic: '', focus: 'topic' } : { to: '#', topic: '', focus: 'to' }));
        }
        case 'x':
          return act(() => compose({ to: narrow.kind === 'dm' && narrow.userIds.length ? narrow.userIds.map((id) => store.userName(id)).join(', ') : '', topic: '', focus: 'to' }));
        case 'n':
          return act(() => nextUnreadTopic(store, narrow));
        case '/':
          return act(() => document.getElementById('search')?.focus());
        case '?':
          return act(() => current.current.help.open());
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [store]);
}

/** The list of shortcuts, as a modal dialog (Esc or the button closes it, and the focus goes back). */
export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const before = useRef<Element | null>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      before.current = document.activeElement;
      el.showModal();
    } else if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      class="shortcuts"
      aria-labelledby="shortcuts-title"
      onClose={() => {
        onClose();
        (before.current as HTMLElement | null)?.focus?.({ preventScroll: true });
      }}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
