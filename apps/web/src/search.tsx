/**
 * The search box: what a person types (free text and Zulip's operators) becomes a narrow
 * in the address bar, so a search can be bookmarked, shared and gone back to. While they
 * type, the token under the caret is completed: operators, channel names, the channel's
 * topics, people; chosen with the arrow keys and Enter (Enter with nothing chosen
 * searches). A search the server refuses is said in words beside the box, and the text
 * stays as typed.
 */
import {
  lastToken,
  narrowKey,
  narrowOfTerms,
  parseSearchQuery,
  SEARCH_OPERATORS,
  searchText,
  type Narrow,
  type SearchTerm,
} from '@teamchat/client-model';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { displayTerms, hrefOf } from './links';
import type { ClientStore } from './store';
import { SuggestionList } from './suggestion-list';

interface Suggestion {
  label: string;
  detail?: string;
  /** What replaces the token being typed. */
  value: string;
}

const IS = ['starred', 'mentioned', 'unread', 'dm', 'resolved', 'followed'];
const HAS = ['link', 'image', 'attachment', 'reaction'];
const MAX = 8;

const quote = (text: string) => (/[\s"]/.test(text) ? `"${text.replace(/"/g, '')}"` : text);
const has = (text: string, q: string) => text.toLowerCase().includes(q.toLowerCase());

export function SearchBox({ store, narrow }: { store: ClientStore; narrow: Narrow }) {
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState(-1);
  const input = useRef<HTMLInputElement>(null);
  /** The narrow this box last asked for: arriving there keeps the text as typed. */
  const asked = useRef<string | null>(null);
  /** The narrow whose text the box last showed, and whether the user has typed since. */
  const shownFor = useRef<string | null>(null);
  const typed = useRef(false);
  const key = narrowKey(narrow);

  // A search narrow opened from an address (or back/forward) shows its query; others empty the box.
  useEffect(() => {
    if (asked.current === key) return;
    // The registration arriving (store.ready) only changes how a search narrow's query
    // reads (channel names for ids); it never takes away what the user typed meanwhile,
    // as it did on a loaded server, where the box is there before the state.
    if (shownFor.current === key && (narrow.kind !== 'search' || typed.current)) return;
    shownFor.current = key;
    typed.current = false;
    asked.current = null;
    const shown = narrow.kind === 'search' ? searchText(displayTerms(store, narrow.terms)) : '';
    setText(shown);
    setCaret(shown.length);
  }, [key, store.ready]);

  const suggestions = useMemo(() => (open && store.ready ? suggest(store, text.slice(0, caret)) : []), [open, text, caret, store.version]);
  const shown = suggestions.length > 0;
  const error = narrow.kind === 'search' ? store.fetchErrors.get(key) : undefined;

  const pick = (s: Suggestion) => {
    const { start } = lastToken(text.slice(0, caret));
    // An operator alone waits for its operand; anything else is a whole token.
    const before = `${text.slice(0, start)}${s.value}${s.value.endsWith(':') ? '' : ' '}`;
    const next = before + text.slice(caret).trimStart();
    typed.current = true;
    setText(next);
    setChoice(-1);
    requestAnimationFrame(() => {
      input.current?.setSelectionRange(before.length, before.length);
      setCaret(before.length);
    });
  };

  const submit = () => {
    const terms = resolveChannels(store, parseSearchQuery(text));
    const target = narrowOfTerms(terms);
    asked.current = narrowKey(target);
    setOpen(false);
    // Each search asks the server again: what matches may have changed since.
    if (target.kind === 'search') store.forget(target);
    location.hash = hrefOf(target, store);
  };

  const onKey = (e: KeyboardEvent) => {
    if (shown && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      const n = suggestions.length;
      setChoice((c) => (e.key === 'ArrowDown' ? (c + 1) % n : c <= 0 ? n - 1 : c - 1));
      return;
    }
    if (e.key === 'Enter' && !e.isComposing) {
      e.preventDefault();
      if (shown && choice >= 0 && choice < suggestions.length) pick(suggestions[choice]!);
      else submit();
      return;
    }
    if (e.key === 'Escape') {
      // The key is the box's: the page's own Esc handling does not see it.
      e.preventDefault();
      e.stopPropagation();
      if (shown) setOpen(false);
      else input.current?.blur();
    }
  };

  return (
    <form
      class="search"
      role="search"
      aria-label="Messages"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <input
        id="search"
        ref={input}
        type="search"
        aria-label="Search"
        placeholder="Search (/)"
        autocomplete="off"
        spellcheck={false}
        value={text}
        aria-autocomplete="list"
        aria-controls={shown ? 'search-suggestions' : undefined}
        aria-activedescendant={shown && choice >= 0 ? `search-suggestion-${choice}` : undefined}
        aria-describedby={error ? 'search-error' : undefined}
        aria-invalid={error ? true : undefined}
        onInput={(e) => {
          typed.current = true;
          setText(e.currentTarget.value);
          setCaret(e.currentTarget.selectionStart ?? e.currentTarget.value.length);
          setOpen(true);
          setChoice(-1);
        }}
        onKeyUp={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
        onFocus={() => setOpen(true)}
        // Later, so that a click on a suggestion lands first.
        onBlur={() => setTimeout(() => document.activeElement !== input.current && setOpen(false), 150)}
        onKeyDown={onKey}
      />
      {shown && (
        <SuggestionList
          id="search-suggestions"
          label="Search suggestions"
          class="search-suggestions"
          items={suggestions}
          choice={choice}
          optionId={(i) => `search-suggestion-${i}`}
          keyOf={(s) => s.value}
          onPick={pick}
        />
      )}
      {error && (
        <p class="search-error error" id="search-error" role="alert">
          This search could not be made: {error}
        </p>
      )}
    </form>
  );
}

/** Channel names become ids where the channel is known (the server takes either; the address wants the id). */
function resolveChannels(store: ClientStore, terms: SearchTerm[]): SearchTerm[] {
  return terms.map((t) => {
    if (t.operator !== 'channel') return t;
    const name = t.operand.replace(/^#/, '').toLowerCase();
    const channel = store.channels.find((c) => c.name.toLowerCase() === name);
    return channel ? { ...t, operand: String(channel.stream_id) } : t;
  });
}

/** What the token under the caret could be. */
export function suggest(store: ClientStore, before: string): Suggestion[] {
  const token = lastToken(before);
  const neg = token.negated ? '-' : '';
  const q = token.partial;
  const people = () => [...store.users.values()].filter((u) => u.is_active !== false && (has(u.full_name, q) || has(u.email, q)));
  switch (token.operator) {
    case undefined: {
      const out: Suggestion[] = SEARCH_OPERATORS.filter((op) => q === '' || op.startsWith(q.replace(/^-/, '').toLowerCase())).map((op) => ({ label: op, value: `${q.startsWith('-') ? '-' : ''}${op}` }));
      if (q.length >= 1) {
        for (const c of store.channels) if (has(c.name, q)) out.push({ label: `channel:${c.name}`, value: `channel:${quote(c.name)}` });
        for (const u of people()) out.push({ label: `sender:${u.email}`, detail: u.full_name, value: `sender:${u.email}` });
      }
      // Operators that only wait for an operand are completed by the next suggestions.
      return out.filter((s) => s.value !== before.slice(token.start)).slice(0, MAX);
    }
    case 'channel':
      return store.channels.filter((c) => has(c.name, q)).slice(0, MAX).map((c) => ({ label: `${neg}channel:${c.name}`, value: `${neg}channel:${quote(c.name)}` }));
    case 'topic': {
      const named = /(?:^|\s)(?:channel|stream):(?:"([^"]*)"|(\S+))/i.exec(before.slice(0, token.start));
      const channelName = (named?.[1] ?? named?.[2])?.toLowerCase();
      const channels = store.channels.filter((c) => channelName === undefined || c.name.toLowerCase() === channelName);
      const seen = new Set<string>();
      const out: Suggestion[] = [];
      for (const c of channels) {
        for (const t of store.topics.get(c.stream_id) ?? []) {
          if (!has(t.name, q) || seen.has(t.name.toLowerCase())) continue;
          seen.add(t.name.toLowerCase());
          out.push({ label: `${neg}topic:${t.name}`, detail: channelName === undefined ? `#${c.name}` : undefined, value: `${neg}topic:${quote(t.name)}` });
        }
      }
      return out.slice(0, MAX);
    }
    case 'sender':
    case 'dm':
    case 'dm-including':
      return people().slice(0, MAX).map((u) => ({ label: `${neg}${token.operator}:${u.email}`, detail: u.full_name, value: `${neg}${token.operator}:${u.email}` }));
    case 'is':
      return IS.filter((v) => v.startsWith(q.toLowerCase())).map((v) => ({ label: `${neg}is:${v}`, value: `${neg}is:${v}` }));
    case 'has':
      return HAS.filter((v) => v.startsWith(q.toLowerCase())).map((v) => ({ label: `${neg}has:${v}`, value: `${neg}has:${v}` }));
    default:
      return [];
  }
}
