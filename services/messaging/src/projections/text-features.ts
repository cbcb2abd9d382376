/**
 * What the search and has: narrows read from a message, derived from its rendered
 * content and topic when either changes, so that a narrow tests a field instead of
 * parsing HTML for every candidate.
 */
import type { MessageDoc, UserMessageDoc } from './message-docs';

/** Resolving (or unresolving) a topic only adds or strips this prefix. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';
export const withoutResolvedPrefix = (topic: string) => (topic.startsWith(RESOLVED_TOPIC_PREFIX) ? topic.slice(RESOLVED_TOPIC_PREFIX.length) : topic);

/** Scripts written without spaces between words: each of their characters is a word of its own. */
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;

/**
 * Words as the search narrow compares them: NFKC, lower-cased, any run of other
 * characters as one space, each character of an ideographic script a word (so a search
 * for several of them is the phrase of those characters, found anywhere), and a space
 * at each end, so that `' ' + word` finds a word start wherever the word is. The text
 * index (the messages collection's, see messages.ts) reads the same words.
 */
export function searchableText(text: string): string {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(IDEOGRAPHIC, ' $& ')
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter(Boolean);
  return words.length ? ` ${words.join(' ')} ` : ' ';
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text a reader sees in rendered HTML: tags dropped, entities decoded. */
function htmlText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
  });
}

const IMAGE_PATH = /\.(?:png|jpe?g|gif|webp|bmp)$/i;
// Channel, topic and message links are rendered from #** syntax, not written as links:
// Zulip does not count them for has:link.
const NAVIGATION_LINK = /\bclass="(?:stream|stream-topic|message-link)"/;

/**
 * What the search and has: narrows read from a message, derived from its rendered
 * content (the renderer's own link rules: an image is a link to an image file, an
 * attachment a link under /user_uploads/) and its topic.
 */
export function messageTextFeatures(renderedContent: string, topic: string | null): Pick<MessageDoc, TextFeature> {
  let hasLink = false;
  let hasImage = false;
  let hasAttachment = false;
  for (const [, attributes] of renderedContent.matchAll(/<a\s([^>]*)>/gi)) {
    const href = /\bhref="([^"]*)"/.exec(attributes!)?.[1];
    if (href === undefined || NAVIGATION_LINK.test(attributes!)) continue;
    hasLink = true;
    const path = href.replace(/&amp;/g, '&').split(/[?#]/, 1)[0]!;
    if (IMAGE_PATH.test(path)) hasImage = true;
    if (path.startsWith('/user_uploads/')) hasAttachment = true;
  }
  return {
    search_text: searchableText(`${topic ?? ''} ${htmlText(renderedContent)}`),
    has_link: hasLink,
    has_image: hasImage,
    has_attachment: hasAttachment,
  };
}

export type TextFeature = 'search_text' | LinkField;
export type LinkField = 'has_link' | 'has_image' | 'has_attachment';

export const linkFields = (message: Pick<MessageDoc, LinkField>): Pick<UserMessageDoc, LinkField> => ({
  has_link: message.has_link,
  has_image: message.has_image,
  has_attachment: message.has_attachment,
});

/** The document with its derived fields (re)computed from its content and topic. */
export function withTextFeatures(doc: MessageDoc): MessageDoc {
  return { ...doc, ...messageTextFeatures(doc.rendered_content, doc.recipient.type === 'channel' ? doc.recipient.topic : null) };
}
