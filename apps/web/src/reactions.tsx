/**
 * A message's reactions: one button per emoji with its count, pressed when one's own
 * reaction is among them (a click toggles it), named by the emoji and who reacted
 * ("thumbs_up: Mark Member, Mary Member"), which is also its tooltip.
 */
import type { FeedMessage } from '@teamchat/client-model';
import type { Emoji } from './message-api';
import type { ClientStore } from './store';

interface Summary extends Emoji {
  userIds: number[];
}

export function summarize(reactions: FeedMessage['reactions']): Summary[] {
  const byEmoji = new Map<string, Summary>();
  for (const r of reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const known = byEmoji.get(key);
    if (known) known.userIds.push(r.user_id);
    else byEmoji.set(key, { emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type as Emoji['reaction_type'], userIds: [r.user_id] });
  }
  return [...byEmoji.values()];
}

/** A catalogue code ("1f1fa-1f1f8") as the characters it stands for, if it is one. */
export function glyphOf(code: string): string | undefined {
  const points = code.split('-').map((hex) => Number.parseInt(hex, 16));
  return points.length > 0 && points.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff) ? String.fromCodePoint(...points) : undefined;
}

/** The organization's custom emoji image, if it is served by the server itself (the CSP allows no other host). */
export function customImage(store: ClientStore, code: string): string | undefined {
  const emoji = ((store.state.realm_emoji ?? {}) as Record<string, { source_url?: string }>)[code];
  const url = emoji?.source_url;
  return url && (url.startsWith('/') || url.startsWith(location.origin)) ? url : undefined;
}

export function EmojiGlyph({ store, emoji }: { store: ClientStore; emoji: Emoji }) {
  if (emoji.reaction_type === 'realm_emoji') {
    const src = customImage(store, emoji.emoji_code);
    if (src) return <img class="emoji-img" src={src} alt="" width={18} height={18} />;
  }
  const glyph = emoji.reaction_type === 'unicode_emoji' ? glyphOf(emoji.emoji_code) : undefined;
  return <span aria-hidden="true">{glyph ?? `:${emoji.emoji_name}:`}</span>;
}

export function Reactions({ store, message, onToggle }: { store: ClientStore; message: FeedMessage; onToggle: (emoji: Emoji, mine: boolean) => void }) {
  if (message.reactions.length === 0) return null;
  return (
    <ul class="reactions" aria-label="Reactions">
      {summarize(message.reactions).map((r) => {
        const mine = r.userIds.includes(store.self);
        const who = `${r.emoji_name}: ${r.userIds.map((id) => store.userName(id)).join(', ')}`;
        return (
          <li key={`${r.reaction_type}:${r.emoji_code}`}>
            {/* Named by its content (who reacted, hidden; the count, shown), not aria-label: a name must hold the visible text. */}
            <button type="button" class={`reaction${mine ? ' mine' : ''}`} aria-pressed={mine} title={who} onClick={() => onToggle(r, mine)}>
              <EmojiGlyph store={store} emoji={r} /> <span class="visually-hidden">{who}</span>
              <span class="n" aria-hidden="true">
                {r.userIds.length}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
