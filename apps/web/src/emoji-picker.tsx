/**
 * The emoji picker (loaded when first opened, so the first load carries none of it): a
 * search box over every emoji the server renders (its emoji data file) and the
 * organization's custom emoji, the person's recently used ones first (kept in
 * localStorage). Enter picks the first match; Esc closes.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { emojiLoaded, loadEmojiNames, matchEmoji } from './emoji-names';
import type { Emoji } from './message-api';
import { EmojiGlyph } from './reactions';
import type { ClientStore } from './store';

const RECENT_KEY = 'teamchat-recent-emoji';
const RECENT_MAX = 16;
const SHOWN = 60;

function recent(): Emoji[] {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as Emoji[]).filter((e) => typeof e?.emoji_name === 'string' && typeof e.emoji_code === 'string') : [];
  } catch {
    return [];
  }
}

export function noteUsed(emoji: Emoji): void {
  const list = [emoji, ...recent().filter((e) => !(e.emoji_code === emoji.emoji_code && e.reaction_type === emoji.reaction_type))].slice(0, RECENT_MAX);
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  } catch {
    // Storage full or refused: the picker simply does not remember.
  }
}

export function EmojiPicker({ store, onPick, onClose, label = 'Add a reaction' }: { store: ClientStore; onPick: (emoji: Emoji) => void; onClose: () => void; label?: string }) {
  const [query, setQuery] = useState('');
  const [, setLoaded] = useState(0);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    loadEmojiNames(store.state.server_emoji_data_url as string | undefined, () => setLoaded((n) => n + 1));
    input.current?.focus();
  }, []);

  const choices = useMemo<Emoji[]>(() => {
    const q = query.trim().toLowerCase().replace(/^:|:$/g, '');
    const custom: Emoji[] = Object.values((store.state.realm_emoji ?? {}) as Record<string, { id: string; name: string; deactivated: boolean }>)
      .filter((e) => !e.deactivated && e.name.includes(q))
      .map((e) => ({ emoji_name: e.name, emoji_code: String(e.id), reaction_type: 'realm_emoji' }));
    const unicode: Emoji[] = emojiLoaded()
      ? matchEmoji(q, SHOWN).flatMap((e) => (e.code ? [{ emoji_name: e.name, emoji_code: e.code, reaction_type: 'unicode_emoji' as const }] : []))
      : [];
    const used = recent().filter((e) => e.emoji_name.includes(q));
    const seen = new Set<string>();
    const out: Emoji[] = [];
    for (const e of [...used, ...custom, ...unicode]) {
      const key = `${e.reaction_type}:${e.emoji_code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(e);
    }
    return out.slice(0, SHOWN);
  }, [query, emojiLoaded(), store.version]);

  const pick = (emoji: Emoji) => {
    noteUsed(emoji);
    onPick(emoji);
  };

  return (
    <div
      class="emoji-picker"
      role="dialog"
      aria-label={label}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <input
        ref={input}
        type="search"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && choices[0]) {
            e.preventDefault();
            pick(choices[0]);
          }
        }}
      />
      {!emojiLoaded() && <p class="muted" role="status">Loading emoji…</p>}
      <ul class="emoji-grid" aria-label="Emoji">
        {choices.map((e) => (
          <li key={`${e.reaction_type}:${e.emoji_code}`}>
            <button type="button" aria-label={e.emoji_name} title={`:${e.emoji_name}:`} onClick={() => pick(e)}>
              <EmojiGlyph store={store} emoji={e} />
            </button>
          </li>
        ))}
      </ul>
      {emojiLoaded() && choices.length === 0 && <p class="muted">No emoji match “{query}”.</p>}
      <button type="button" class="close" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
