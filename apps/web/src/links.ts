/** Where a narrow lives in the address bar, and what it is called. */
import { narrowKey, parseNarrowKey, searchText, type Narrow, type SearchTerm } from '@teamchat/client-model';
import type { ClientStore } from './store';

/**
 * The address of a narrow. A search narrow is written as Zulip's web app writes it
 * (`#narrow/channel/<id>-<name>/topic/<topic>/search/<text>`), the channel's name there
 * for people reading the address (the id is what is read back).
 */
export function hrefOf(narrow: Narrow, store?: ClientStore): string {
  if (narrow.kind !== 'search' || !store) return `#narrow/${narrowKey(narrow)}`;
  const named = narrow.terms.map((t) => {
    const name = t.operator === 'channel' && /^\d+$/.test(t.operand) ? store.channel(Number(t.operand))?.name : undefined;
    return name ? { ...t, operand: `${t.operand}-${name.replace(/[\s/]+/g, '-')}` } : t;
  });
  return `#narrow/${narrowKey({ kind: 'search', terms: named })}`;
}

/** Search terms as a person reads them: channels by name. */
export function displayTerms(store: ClientStore, terms: readonly SearchTerm[]): SearchTerm[] {
  return terms.map((t) => {
    const name = t.operator === 'channel' && /^\d+$/.test(t.operand) ? store.channel(Number(t.operand))?.name : undefined;
    return name ? { ...t, operand: name } : t;
  });
}

/**
 * The narrow in the address bar's hash, and the message a link points at (a trailing
 * `/near/<id>`, as Zulip's links have). A channel may be written `<id>-<name>` (Zulip's
 * form) or `<id>`, and `stream/` is read as `channel/`.
 */
export function parseLocation(hash: string): { narrow: Narrow; near?: number } {
  let key = hash.replace(/^#?narrow\//, '').replace(/^#/, '');
  let near: number | undefined;
  const nearMatch = /\/(?:near|with)\/(\d+)$/.exec(key);
  if (nearMatch) {
    near = Number(nearMatch[1]);
    key = key.slice(0, nearMatch.index);
  }
  key = key.replace(/^stream\//, 'channel/').replace(/^channel\/(\d+)-[^/]*/, 'channel/$1');
  const narrow = parseNarrowKey(key);
  return near !== undefined && Number.isSafeInteger(near) && near > 0 ? { narrow, near } : { narrow };
}

export function narrowTitle(store: ClientStore, narrow: Narrow): string {
  switch (narrow.kind) {
    case 'all':
      return 'Combined feed';
    case 'mentions':
      return 'Mentions';
    case 'starred':
      return 'Starred messages';
    case 'channel':
      return `#${store.channel(narrow.streamId)?.name ?? 'unknown channel'}`;
    case 'topic':
      return `#${store.channel(narrow.streamId)?.name ?? 'unknown channel'} › ${narrow.topic}`;
    case 'dm':
      return `Direct messages with ${store.peopleNames(narrow.userIds)}`;
    case 'search':
      return `Search: ${searchText(displayTerms(store, narrow.terms))}`;
  }
}
