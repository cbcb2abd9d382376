/**
 * Every emoji name the server renders, for `:` completion: the server's emoji data
 * (`server_emoji_data_url` of POST /register, the file the Zulip apps read), fetched once,
 * on the first `:` a person types, so the first load carries none of it. Until it arrives
 * (or if it cannot be had) completion offers the common names below, which also rank
 * first among the matches once the full list is there.
 */

export interface EmojiName {
  name: string;
  /** The emoji itself, to show beside its name (absent for the fallback list). */
  glyph?: string;
  /** Its catalogue code ("1f44d"), what a reaction names it by (absent for the fallback list). */
  code?: string;
}

const COMMON = [
  'smile', 'grinning', 'joy', 'heart', 'thumbs_up', 'thumbs_down', 'tada', 'rocket', 'eyes', 'fire', 'wave', 'clap', 'thinking', 'ok',
  'check', 'cross_mark', 'warning', 'bulb', 'coffee', 'pizza', 'cake', 'sunny', 'star', 'sparkles', 'muscle', 'pray', 'sob', 'laughing',
  'wink', 'slight_smile', 'heart_eyes', 'cry', 'angry', 'sleeping', 'party_popper', '100', 'bug', 'lock', 'calendar', 'question',
];
const RANK = new Map(COMMON.map((name, i) => [name, i]));

let all: EmojiName[] | undefined;
let loading: Promise<void> | undefined;

/** A catalogue code ("1f1fa-1f1f8") as the characters it stands for. */
function glyphOf(code: string): string | undefined {
  const points = code.split('-').map((hex) => Number.parseInt(hex, 16));
  return points.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff) ? String.fromCodePoint(...points) : undefined;
}

/** Parses the file's `{"code_to_names": {code: [names…]}}`, every name of every emoji. */
export function parseEmojiData(body: unknown): EmojiName[] {
  const codes = (body as { code_to_names?: unknown } | null)?.code_to_names;
  if (typeof codes !== 'object' || codes === null) return [];
  const names: EmojiName[] = [];
  for (const [code, list] of Object.entries(codes as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    const glyph = glyphOf(code);
    for (const name of list) if (typeof name === 'string') names.push(glyph === undefined ? { name } : { name, glyph, code });
  }
  return names;
}

/**
 * Starts fetching the full list (once); `loaded` runs when it is there. The URL is taken
 * by its path: the page talks only to its own origin (the CSP's connect-src), whatever
 * host name the realm URI uses.
 */
export function loadEmojiNames(url: string | undefined, loaded: () => void): void {
  if (all || loading || !url) return;
  let path: string;
  try {
    path = new URL(url, location.href).pathname;
  } catch {
    return;
  }
  loading = fetch(path, { credentials: 'omit' })
    .then((reply) => (reply.ok ? reply.json() : Promise.reject(new Error(String(reply.status)))))
    .then((body) => {
      const names = parseEmojiData(body);
      if (names.length > 0) {
        all = names;
        loaded();
      }
    })
    // Completion keeps the common names; a later `:` tries again.
    .catch(() => undefined)
    .finally(() => (loading = undefined));
}

/** Whether the full list is there (the picker waits for it: the fallback names carry no codes). */
export const emojiLoaded = () => all !== undefined;

/** Names containing `query`: the common ones first, then those starting with it, then the rest. */
export function matchEmoji(query: string, limit: number): EmojiName[] {
  const q = query.toLowerCase();
  const source = all ?? COMMON.map((name) => ({ name }));
  const score = (e: EmojiName) => (RANK.has(e.name) ? RANK.get(e.name)! : e.name.startsWith(q) ? 1000 : 2000);
  return source
    .filter((e) => e.name.includes(q))
    .sort((a, b) => score(a) - score(b) || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
    .slice(0, limit);
}
