/**
 * The compose box: "To" (a channel as #name, or people by name or email, comma-separated),
 * "Topic" for a channel, and "Message". Enter sends, Shift+Enter breaks the line; Esc
 * closes the suggestions. Typing `@`, `#` or `:` in the message (and anything in To or
 * Topic) suggests people, channels, emoji or topics, chosen with the arrow keys and
 * Enter or Tab. A message shows at once (local echo) and is replaced by the server's copy;
 * a send that fails leaves the text in the box, with the reason.
 *
 * The draft is saved in sessionStorage as it is typed, so that a lost session, a reload
 * or a failure loses nothing.
 */
import { narrowKey, type Narrow } from '@teamchat/client-model';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { loadEmojiNames, matchEmoji } from './emoji-names';
import { COMPOSE_EVENT, type ComposeRequest } from './keyboard';
import type { ClientStore } from './store';
import { SuggestionList } from './suggestion-list';
import { resolveChannel, resolveTarget, type Box } from './compose-box';
import { TypingNotice, useWriting, WritingTools } from './writing';

interface Suggestion {
  label: string;
  detail?: string;
  insert: string;
}

type Field = 'to' | 'topic' | 'content';

const draftKey = (self: number) => `teamchat-draft-${self}`;

export function Compose({ store, narrow }: { store: ClientStore; narrow: Narrow }) {
  const saved = useMemo(() => {
    try {
      return JSON.parse(sessionStorage.getItem(draftKey(store.self)) ?? 'null') as { to: string; topic: string; content: string } | null;
    } catch {
      return null;
    }
  }, []);
  const [to, setTo] = useState(saved?.to ?? '');
  const [topic, setTopic] = useState(saved?.topic ?? '');
  const [content, setContent] = useState(saved?.content ?? '');
  const [error, setError] = useState('');
  const [sending, setSending] = useState(false);
  const [active, setActive] = useState<Field | null>(null);
  const [choice, setChoice] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [caret, setCaret] = useState(0);
  /** Bumped when the full emoji list arrives, so open suggestions are recomputed. */
  const [emojiLoaded, setEmojiLoaded] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const key = narrowKey(narrow);
  const box: Box = {
    to,
    topic,
    content,
    setContent,
    fill: (t, tp, c) => {
      setTo(t);
      setTopic(tp);
      setContent(c);
    },
    textarea,
  };
  const writing = useWriting(store, box);

  // Opening a channel, topic or conversation addresses the box there (unless a draft is being written elsewhere).
  useEffect(() => {
    if (!store.ready) return;
    if (content.trim() !== '' && to !== '') return;
    if (narrow.kind === 'channel' || narrow.kind === 'topic') {
      setTo(`#${store.channel(narrow.streamId)?.name ?? ''}`);
      if (narrow.kind === 'topic') setTopic(narrow.topic);
    } else if (narrow.kind === 'dm') {
      setTo(narrow.userIds.length ? narrow.userIds.map((id) => store.userName(id)).join(', ') : store.userName(store.self));
      setTopic('');
    }
  }, [key, store.ready]);

  // Quote and reply: the box is addressed to the quoted message's conversation, the quote added to what it holds.
  const fill = store.composeFill;
  useEffect(() => {
    if (!fill) return;
    setTo(fill.to);
    setTopic(fill.topic);
    setContent((now) => (now.trim() === '' ? fill.text : `${now}\n${fill.text}`));
    setDismissed(true);
    requestAnimationFrame(() => {
      const box = textarea.current;
      if (!box) return;
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    });
  }, [fill?.serial]);

  // A shortcut (r, c, x) addresses the box and puts the focus where the person goes on typing; the text stays.
  useEffect(() => {
    const onRequest = (e: Event) => {
      const request = (e as CustomEvent<ComposeRequest>).detail;
      setTo(request.to);
      if (request.topic !== undefined) setTopic(request.topic);
      setError('');
      // Once rendered (the topic field is enabled only for a channel).
      requestAnimationFrame(() => document.getElementById(`compose-${request.focus}`)?.focus());
    };
    window.addEventListener(COMPOSE_EVENT, onRequest);
    return () => window.removeEventListener(COMPOSE_EVENT, onRequest);
  }, []);

  useEffect(() => {
    sessionStorage.setItem(draftKey(store.self), JSON.stringify({ to, topic, content }));
  }, [to, topic, content]);

  const isChannel = to.trim().startsWith('#');

  const suggestions = useMemo<Suggestion[]>(() => {
    if (!active || dismissed || !store.ready) return [];
    const match = (text: string, q: string) => text.toLowerCase().includes(q.toLowerCase());
    if (active === 'to') {
      const last = to.split(',').pop()!.trim();
      if (last.startsWith('#') || to.trim() === '')
        return store.channels.filter((c) => match(c.name, last.replace(/^#/, ''))).slice(0, 8).map((c) => ({ label: `#${c.name}`, insert: `#${c.name}` }));
      return store
        .findPeople(last, 8)
        .map((u) => ({ label: u.full_name, detail: u.email, insert: to.includes(',') ? `${to.slice(0, to.lastIndexOf(',') + 1)} ${u.full_name}` : u.full_name }));
    }
    if (active === 'topic') {
      const channel = resolveChannel(store, to);
      if (!channel) return [];
      return (store.topics.get(channel) ?? []).filter((t) => match(t.name, topic) && t.name !== topic).slice(0, 8).map((t) => ({ label: t.name, insert: t.name }));
    }
    const before = content.slice(0, caret);
    const trigger = /(^|\s)([@#:])([^\s@#:]*)$/.exec(before);
    if (!trigger) return [];
    const [, , sigil, q] = trigger;
    const replace = (text: string) => before.slice(0, before.length - q!.length - 1) + text;
    if (sigil === '@') return store.findPeople(q!, 8).map((u) => ({ label: u.full_name, detail: u.email, insert: replace(`@**${u.full_name}** `) }));
    if (sigil === '#') return store.channels.filter((c) => match(c.name, q!)).slice(0, 8).map((c) => ({ label: `#${c.name}`, insert: replace(`#**${c.name}** `) }));
    if (q!.length < 1) return [];
    loadEmojiNames(store.state.server_emoji_data_url as string | undefined, () => setEmojiLoaded((n) => n + 1));
    const custom = Object.values((store.state.realm_emoji ?? {}) as Record<string, { name: string; deactivated: boolean }>)
      .filter((e) => !e.deactivated && e.name.includes(q!.toLowerCase()))
      .map((e) => ({ name: e.name, glyph: undefined }));
    return [...custom, ...matchEmoji(q!, 8)]
      .slice(0, 8)
      .map((e) => ({ label: e.glyph ? `${e.glyph} :${e.name}:` : `:${e.name}:`, insert: replace(`:${e.name}: `) }));
  }, [active, dismissed, to, topic, content, caret, store.version, emojiLoaded]);

  const open = suggestions.length > 0;
  const listId = `suggest-${active}`;

  const pick = (s: Suggestion) => {
    if (active === 'to') setTo(s.insert);
    else if (active === 'topic') setTopic(s.insert);
    else {
      const rest = content.slice(caret);
      setContent(s.insert + rest);
      requestAnimationFrame(() => {
        textarea.current?.setSelectionRange(s.insert.length, s.insert.length);
        setCaret(s.insert.length);
      });
    }
    setChoice(0);
    setDismissed(true);
  };

  const onKey = (e: KeyboardEvent) => {
    // The field the key was pressed in (not `active`, which a late blur may have cleared).
    const field = ((e.currentTarget as HTMLElement).id.replace('compose-', '') || null) as Field | null;
    if (field !== active) setActive(field);
    if (open && field === active) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setChoice((c) => (c + (e.key === 'ArrowDown' ? 1 : suggestions.length - 1)) % suggestions.length);
        return;
      }
      if ((e.key === 'Enter' && !e.shiftKey) || (e.key === 'Tab' && !e.shiftKey)) {
        e.preventDefault();
        pick(suggestions[Math.min(choice, suggestions.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (e.key === 'Escape' && field === 'content') {
      (e.target as HTMLElement).blur();
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && field === 'content') {
      e.preventDefault();
      void send();
    }
  };

  // Sends may overlap (Enter again before the last answered): each clears the box and, on failure, puts its own text back.
  const send = async () => {
    setError('');
    const text = content;
    if (text.trim() === '') {
      setError('Type a message first.');
      return;
    }
    const resolved = resolveTarget(store, to, topic);
    if ('error' in resolved) {
      setError(resolved.error);
      return;
    }
    const target = resolved.target;
    // The echo goes to the open feed if the message belongs there.
    const feed = [...store.lists.values()].find((l) => narrowKey(l.narrow) === key);
    setSending(true);
    setContent('');
    writing.sent();
    try {
      await store.send(target, text, feed);
    } catch (e) {
      // Back in the box, unless the person has typed something new meanwhile.
      setContent((now) => (now === '' ? text : `${text}\n${now}`));
      setError(`Your message was not sent: ${(e as Error).message}`);
    } finally {
      setSending(false);
    }
  };

  const comboProps = (field: Field) => ({
    role: 'combobox' as const,
    'aria-expanded': open && active === field,
    'aria-controls': open && active === field ? listId : undefined,
    'aria-autocomplete': 'list' as const,
    'aria-activedescendant': open && active === field ? `${listId}-${choice}` : undefined,
    onFocus: () => {
      setActive(field);
      setDismissed(field === 'content');
      setChoice(0);
    },
    // Later, so that a click on a suggestion lands first; not if the field has the focus again by then.
    onBlur: () => setTimeout(() => setActive((a) => (a === field && document.activeElement?.id !== `compose-${field}` ? null : a)), 150),
    onKeyDown: onKey,
  });

  return (
    <form
      class="compose"
      aria-label="Compose"
      onDragOver={writing.onDragOver}
      onDrop={writing.onDrop}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <TypingNotice store={store} narrow={narrow} />
      <div class="recipient-row">
        <label for="compose-to">To</label>
        <input id="compose-to" value={to} placeholder="#channel or people" autocomplete="off" {...comboProps('to')} onInput={(e) => { setTo(e.currentTarget.value); setDismissed(false); }} />
        <label for="compose-topic" class={isChannel ? '' : 'disabled'}>
          Topic
        </label>
        <input id="compose-topic" value={topic} disabled={!isChannel} autocomplete="off" {...comboProps('topic')} onInput={(e) => { setTopic(e.currentTarget.value); setDismissed(false); }} />
      </div>
      <div class="message-row">
        <label for="compose-content" class="visually-hidden">
          Message
        </label>
        <textarea
          id="compose-content"
          ref={textarea}
          value={content}
          rows={2}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
          aria-describedby={error ? 'compose-error' : undefined}
          {...comboProps('content')}
          role="textbox"
          // A textbox takes no aria-expanded (axe: aria-allowed-attr); its suggestions are announced through aria-activedescendant.
          aria-expanded={undefined}
          aria-multiline="true"
          onInput={(e) => {
            setContent(e.currentTarget.value);
            setCaret(e.currentTarget.selectionStart);
            setDismissed(false);
            writing.typed(e.currentTarget.value);
          }}
          onPaste={writing.onPaste}
          onKeyUp={(e) => setCaret(e.currentTarget.selectionStart)}
          onClick={(e) => setCaret(e.currentTarget.selectionStart)}
        />
        <button type="submit" class="send" aria-busy={sending}>
          Send
        </button>
      </div>
      <WritingTools store={store} box={box} writing={writing} />
      {open && (
        <SuggestionList id={listId} label="Suggestions" items={suggestions} choice={choice} optionId={(i) => `${listId}-${i}`} keyOf={(s) => s.label} onPick={pick} />
      )}
      <p class="error" id="compose-error" role="alert">
        {error}
      </p>
    </form>
  );
}

