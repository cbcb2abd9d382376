/** Where a narrow lives in the address bar, and what it is called. */
import { narrowKey, parseNarrowKey, type Narrow } from '@teamchat/client-model';
import type { ClientStore } from './store';

export const hrefOf = (narrow: Narrow) => `#narrow/${narrowKey(narrow)}`;

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
  }
}

