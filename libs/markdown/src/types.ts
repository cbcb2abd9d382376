import type { CompiledLinkifiers } from './linkifiers';

export interface MentionableUser {
  id: number;
  full_name: string;
  email: string;
  is_active: boolean;
}

export interface MentionableGroup {
  id: number;
  name: string;
}

export interface LinkableChannel {
  id: number;
  name: string;
}

/** A custom emoji uploaded to the organization (reaction type `realm_emoji`). */
export interface RenderableRealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
}

export interface RenderContext {
  /**
   * Resolve a user by full name (case-insensitive). The renderer itself handles the
   * `Name|id` syntax: `@**Name|12**` is resolved through `userById(12)` and must then
   * carry exactly that full name, as in Zulip.
   */
  userByName(name: string): MentionableUser | undefined;
  userById(id: number): MentionableUser | undefined;
  groupByName(name: string): MentionableGroup | undefined;
  channelByName(name: string): LinkableChannel | undefined;
  /** Absolute base URL of the server, e.g. http://127.0.0.1:9991 — for channel/topic links. */
  realmUrl: string;
  /** Custom emoji by name; without it only unicode emoji and `:zulip:` render. */
  realmEmojiByName?(name: string): RenderableRealmEmoji | undefined;
  /** The organization's linkifiers; without them no text becomes a linkifier link. */
  linkifiers?: CompiledLinkifiers;
  /** How a link to the empty topic displays its name; Zulip's default is "general chat". */
  emptyTopicDisplayName?: string;
}

export interface RenderResult {
  html: string;
  /** Users mentioned by a (non-silent) user mention. */
  mentionedUserIds: number[];
  /** Non-silent user-group mentions. */
  mentionedGroupIds: number[];
  /**
   * `@**all**`, `@**everyone**`, `@**channel**` (and legacy `@**stream**`) → 'channel';
   * `@**topic**` → 'topic'; null when none. Silent wildcards (`@_**all**`) do not count.
   */
  wildcard: 'channel' | 'topic' | null;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
}
