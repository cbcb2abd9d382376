/**
 * `:name:` emoji. Custom (realm) emoji win over `:zulip:`, which wins over unicode emoji,
 * the order Zulip resolves names in. Unknown names stay as typed.
 */
import type MarkdownIt from 'markdown-it';
import { ZULIP_EMOJI_URL, emojiByName, serviceExtraEmojiByName } from '../emoji';
import { envOf, escapeHtml } from './env';

// Zulip's `:[\w\-\+]+:` with Python's Unicode-aware \w; no word boundary is required.
const EMOJI_SYNTAX = /:([\p{L}\p{M}\p{N}_+-]+):/uy;

export type EmojiMeta = { kind: 'unicode'; name: string; code: string } | { kind: 'image'; name: string; url: string };

function resolve(name: string, state: MarkdownIt.StateInline): EmojiMeta | undefined {
  const realm = envOf(state).ctx?.realmEmojiByName?.(name);
  if (realm && !realm.deactivated) return { kind: 'image', name, url: realm.source_url };
  if (serviceExtraEmojiByName(name)) return { kind: 'image', name, url: ZULIP_EMOJI_URL };
  const unicode = emojiByName(name);
  return unicode ? { kind: 'unicode', name, code: unicode.code } : undefined;
}

function emojiRule(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  EMOJI_SYNTAX.lastIndex = state.pos;
  const match = EMOJI_SYNTAX.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  const meta = resolve(match[1]!, state);
  if (!meta) return false;
  if (!silent) {
    const token = state.push('zulip_emoji', 'span', 0);
    token.meta = meta;
    token.markup = match[0];
  }
  state.pos += match[0].length;
  return true;
}

function renderEmoji(meta: EmojiMeta): string {
  // Zulip titles emoji by name with underscores read as spaces ("thumbs up").
  const title = escapeHtml(meta.name.replace(/_/g, ' '));
  const syntax = escapeHtml(`:${meta.name}:`);
  if (meta.kind === 'image') {
    return `<img alt="${syntax}" class="emoji" src="${escapeHtml(meta.url)}" title="${title}">`;
  }
  return `<span aria-label="${title}" class="emoji emoji-${meta.code}" role="img" title="${title}">${syntax}</span>`;
}

export function emojiPlugin(md: MarkdownIt): void {
  // Ahead of linkify, which also starts at ':', so that "https:smile:" still gets its emoji.
  md.inline.ruler.before('linkify', 'zulip_emoji', emojiRule);
  md.renderer.rules['zulip_emoji'] = (tokens, idx) => renderEmoji(tokens[idx]!.meta as EmojiMeta);
}
