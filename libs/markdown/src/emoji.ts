/**
 * The unicode emoji catalogue: names and codes as Zulip's `unicode_emoji` reaction type
 * uses them. Names are the iamcal short names shipped by `emoji-datasource`, plus a few of
 * Zulip's own aliases that Zulip clients commonly send; codes are the dash-separated
 * lowercase hex code points with every U+FE0F variation selector dropped, which is how
 * Zulip writes them (`2764` for ❤️, `0023-20e3` for #️⃣).
 */

export interface UnicodeEmoji {
  /** The canonical name (iamcal's primary short name). */
  name: string;
  /** Dash-separated lowercase hex code points, without FE0F. */
  code: string;
}

export interface ServiceExtraEmoji {
  name: string;
  /** For `service_extra_emoji` the code is the emoji name itself. */
  code: string;
}

/** Zulip's special built-in emoji (reaction type `service_extra_emoji`). */
export const SERVICE_EXTRA_EMOJI: readonly ServiceExtraEmoji[] = Object.freeze([
  Object.freeze({ name: 'zulip', code: 'zulip' }),
]);

/** Where Zulip serves the image for `:zulip:`; rendered messages point at it. */
export const ZULIP_EMOJI_URL = '/static/generated/emoji/images/emoji/unicode/zulip.png';

/**
 * Zulip names that iamcal lacks but Zulip's emoji picker and mobile apps send (Zulip keeps
 * its own name table). Only names that do not already mean something else in iamcal's set
 * are listed, so adding them can never change what an iamcal name resolves to.
 */
const ZULIP_ALIASES: Readonly<Record<string, string>> = {
  thumbs_up: '1f44d',
  thumbs_down: '1f44e',
  big_smile: '1f604',
  slight_smile: '1f642',
  happy: '1f600',
  lol: '1f606',
  rofl: '1f923',
  tears: '1f602',
  laughter_tears: '1f602',
  in_love: '1f60d',
  frown: '1f641',
  slight_frown: '1f641',
  sad: '2639',
  oh_no: '1f615',
  applause: '1f44f',
  thank_you: '1f64f',
  namaste: '1f64f',
  praise: '1f64c',
  hello: '1f44b',
  hi: '1f44b',
  looking: '1f440',
  done_deal: '1f91d',
  fist_bump: '1f44a',
  working_on_it: '1f6e0',
};

interface DatasourceEmoji {
  unified: string;
  short_name: string;
  short_names: string[];
  category: string;
}

/** Lowercases and drops FE0F so that fully- and un-qualified spellings compare equal. */
export function normalizeEmojiCode(code: string): string {
  return code
    .toLowerCase()
    .split('-')
    .filter((part) => part !== 'fe0f')
    .join('-');
}

const byName = new Map<string, UnicodeEmoji>();
const byCode = new Map<string, UnicodeEmoji>();
/** Canonical name first, then aliases. */
const namesByCode = new Map<string, string[]>();

function addName(name: string, entry: UnicodeEmoji): void {
  if (byName.has(name)) return;
  byName.set(name, entry);
  namesByCode.get(entry.code)!.push(name);
}

function buildCatalogue(): void {
  // Only the JSON data is loaded: the package's image sheets are never touched.
  const data = require('emoji-datasource/emoji.json') as DatasourceEmoji[];
  for (const raw of data) {
    // Skin-tone modifiers are components, not emoji; Zulip refuses `:skin-tone-2:`.
    if (raw.category === 'Component') continue;
    const entry: UnicodeEmoji = Object.freeze({ name: raw.short_name, code: normalizeEmojiCode(raw.unified) });
    if (byCode.has(entry.code)) continue;
    byCode.set(entry.code, entry);
    namesByCode.set(entry.code, []);
    addName(entry.name, entry);
    for (const name of raw.short_names) addName(name, entry);
  }
  for (const [alias, code] of Object.entries(ZULIP_ALIASES)) {
    const entry = byCode.get(code);
    if (entry) addName(alias, entry);
  }
}

buildCatalogue();

/** The emoji a name (canonical or alias) stands for; `name` in the result is canonical. */
export function emojiByName(name: string): UnicodeEmoji | undefined {
  return byName.get(name);
}

/** The emoji with this code, under its canonical name. Accepts codes spelled with FE0F or in upper case. */
export function emojiByCode(code: string): UnicodeEmoji | undefined {
  return byCode.get(normalizeEmojiCode(code));
}

/**
 * Whether `name` (canonical or alias) is a unicode emoji whose code is exactly `code`,
 * as a reaction or status with reaction type `unicode_emoji` requires.
 */
export function isValidUnicodeEmoji(name: string, code: string): boolean {
  const entry = byName.get(name);
  return entry !== undefined && entry.code === code;
}

/** Every name (canonical and aliases) accepted for the emoji with this code. */
export function emojiNamesForCode(code: string): string[] {
  return [...(namesByCode.get(normalizeEmojiCode(code)) ?? [])];
}

/**
 * The whole catalogue as code → names, canonical name first: the `code_to_names` map of
 * the server's emoji data (server-emoji-data.ts). A fresh copy, in the catalogue's order.
 */
export function emojiCodeToNames(): Record<string, string[]> {
  return Object.fromEntries([...namesByCode].map(([code, names]) => [code, [...names]]));
}

/** The service-extra emoji with this name (`zulip`), if any. */
export function serviceExtraEmojiByName(name: string): ServiceExtraEmoji | undefined {
  return SERVICE_EXTRA_EMOJI.find((emoji) => emoji.name === name);
}
