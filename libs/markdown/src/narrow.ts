/**
 * Zulip's `#narrow/...` URL encoding. Clients parse channel and topic links back out of
 * rendered messages, so this has to match Zulip's server byte for byte.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Zulip's `hash_util_encode`: percent-encode everything but `A-Za-z0-9_.-~` (Python's
 * `quote(s, safe="")`), then write `.` as `%2E` and every `%` as `.`, so that the result
 * survives browsers' own decoding of the URL fragment.
 */
export function encodeHashComponent(value: string): string {
  // encodeURIComponent throws on lone surrogates; a rendered message must never fail.
  const wellFormed = value.replace(LONE_SURROGATE, '\uFFFD');
  return encodeURIComponent(wellFormed)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** `1-general`, `7-design-team`: the channel operand of a narrow URL. */
export function channelSlug(channelId: number, channelName: string): string {
  return `${channelId}-${encodeHashComponent(channelName.replace(/ /g, '-'))}`;
}

export function channelNarrowPath(channelId: number, channelName: string): string {
  return `/#narrow/channel/${channelSlug(channelId, channelName)}`;
}

export function topicNarrowPath(channelId: number, channelName: string, topic: string): string {
  return `${channelNarrowPath(channelId, channelName)}/topic/${encodeHashComponent(topic)}`;
}
