/**
 * Channel, topic and message links: `#**general**`, `#**general>lunch**`,
 * `#**general>lunch@123**`. Unknown channels are left to ordinary Markdown, as in Zulip.
 */
import type MarkdownIt from 'markdown-it';
import { channelNarrowPath, topicNarrowPath } from '../narrow';
import { envOf, escapeHtml, startsAfterBoundary } from './env';

// Unlike mentions, `[` may not precede: `[#**general**](url)` must not nest a link in a link.
const ALLOWED_BEFORE = /[\s'"({/<]/;
const MESSAGE_LINK = /#\*\*([^*>\n]+)>([^*\n]*)@(\d+)\*\*/y;
const TOPIC_LINK = /#\*\*([^*>\n]+)>([^*\n]*)\*\*/y;
const CHANNEL_LINK = /#\*\*([^*\n]+)\*\*/y;

const DEFAULT_EMPTY_TOPIC_NAME = 'general chat';

export interface ChannelLinkMeta {
  kind: 'channel' | 'topic' | 'message';
  channelId: number;
  channelName: string;
  topic: string;
  messageId: number;
  emptyTopicName: string;
}

function matchAt(re: RegExp, state: MarkdownIt.StateInline): RegExpExecArray | null {
  re.lastIndex = state.pos;
  const match = re.exec(state.src);
  return match && state.pos + match[0].length <= state.posMax ? match : null;
}

function channelLinkRule(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const ctx = envOf(state).ctx;
  if (!ctx || state.src.charCodeAt(state.pos) !== 0x23 /* # */) return false;
  if (!startsAfterBoundary(state.src, state.pos, ALLOWED_BEFORE)) return false;

  let meta: ChannelLinkMeta | undefined;
  let length = 0;
  const base = { topic: '', messageId: 0, emptyTopicName: ctx.emptyTopicDisplayName ?? DEFAULT_EMPTY_TOPIC_NAME };
  for (const [kind, re] of [
    ['message', MESSAGE_LINK],
    ['topic', TOPIC_LINK],
    ['channel', CHANNEL_LINK],
  ] as const) {
    const match = matchAt(re, state);
    if (!match) continue;
    const channel = ctx.channelByName(match[1]!);
    if (!channel) continue;
    meta = {
      ...base,
      kind,
      channelId: channel.id,
      channelName: channel.name,
      topic: kind === 'channel' ? '' : match[2]!,
      messageId: kind === 'message' ? Number(match[3]) : 0,
    };
    length = match[0].length;
    break;
  }
  if (!meta) return false;

  if (!silent) {
    const token = state.push('zulip_channel_link', 'a', 0);
    token.meta = meta;
    token.markup = state.src.slice(state.pos, state.pos + length);
  }
  state.pos += length;
  return true;
}

function renderTopicName(meta: ChannelLinkMeta): string {
  // The empty topic shows the organization's display name for it, in italics.
  return meta.topic === '' ? `<em>${escapeHtml(meta.emptyTopicName)}</em>` : escapeHtml(meta.topic);
}

function renderChannelLink(meta: ChannelLinkMeta): string {
  const channelText = escapeHtml(`#${meta.channelName}`);
  switch (meta.kind) {
    case 'channel': {
      const href = escapeHtml(channelNarrowPath(meta.channelId, meta.channelName));
      return `<a class="stream" data-stream-id="${meta.channelId}" href="${href}">${channelText}</a>`;
    }
    case 'topic': {
      const href = escapeHtml(topicNarrowPath(meta.channelId, meta.channelName, meta.topic));
      return `<a class="stream-topic" data-stream-id="${meta.channelId}" href="${href}">${channelText} &gt; ${renderTopicName(meta)}</a>`;
    }
    case 'message': {
      const href = escapeHtml(`${topicNarrowPath(meta.channelId, meta.channelName, meta.topic)}/near/${meta.messageId}`);
      return `<a class="message-link" href="${href}">${channelText} &gt; ${renderTopicName(meta)} @ 💬</a>`;
    }
  }
}

export function channelLinksPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_channel_link', channelLinkRule);
  md.renderer.rules['zulip_channel_link'] = (tokens, idx) => renderChannelLink(tokens[idx]!.meta as ChannelLinkMeta);
}
