/**
 * Zulip-compatible message rendering on markdown-it, and the unicode emoji catalogue.
 * Raw HTML in the source is escaped, only safe URL schemes become links, and external
 * links open in a new tab without handing the opener to the target page.
 */
export { renderMarkdown, renderMessage } from './render';
export type {
  LinkableChannel,
  MentionableGroup,
  MentionableUser,
  RenderContext,
  RenderResult,
  RenderableRealmEmoji,
} from './types';
export {
  SERVICE_EXTRA_EMOJI,
  ZULIP_EMOJI_URL,
  emojiByCode,
  emojiByName,
  emojiCodeToNames,
  emojiNamesForCode,
  isValidUnicodeEmoji,
  normalizeEmojiCode,
  serviceExtraEmojiByName,
} from './emoji';
export type { ServiceExtraEmoji, UnicodeEmoji } from './emoji';
export { SERVER_EMOJI_DATA_DIR, serverEmojiData, serverEmojiDataUrl } from './server-emoji-data';
export type { ServerEmojiData } from './server-emoji-data';
export {
  CompiledLinkifiers,
  MAX_LINKIFIER_PATTERN_LENGTH,
  MAX_LINKIFIER_URL_TEMPLATE_LENGTH,
  checkLinkifierPattern,
  checkLinkifierUrlTemplate,
  topicLinks,
} from './linkifiers';
export type { Linkifier, LinkifierMatch, PatternCheck, TemplateCheck } from './linkifiers';
export { channelNarrowPath, channelSlug, encodeHashComponent, topicNarrowPath } from './narrow';

/** A `/me` message: content starting with "/me " is shown as an action of the sender. */
export function isMeMessage(source: string): boolean {
  return /^\/me(\s|$)/.test(source);
}
