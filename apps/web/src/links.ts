/** Where a narrow lives in the address bar, and what it is called. */
import { narrowKey, type Narrow } from '@teamchat/client-model';
import type { ClientStore } from './store';

export const hrefOf = (narrow: Narrow) => `#narrow/${narrowKey(narrow)}`;

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

