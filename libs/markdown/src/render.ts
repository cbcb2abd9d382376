/**
 * The Zulip-flavoured markdown-it instance. It is built once and shared: every render
 * carries its own lookups and results in `env`, so rendering stays pure and synchronous.
 */
import MarkdownIt from 'markdown-it';
import { channelLinksPlugin } from './plugins/channel-links';
import { emojiPlugin } from './plugins/emoji-syntax';
import { createEnv } from './plugins/env';
import { fencedBlocksPlugin } from './plugins/fenced-blocks';
import { linksPlugin } from './plugins/links';
import { linkifiersPlugin } from './plugins/linkifiers';
import { mentionsPlugin } from './plugins/mentions';
import { timestampsPlugin } from './plugins/timestamps';
import { dialectPlugin } from './plugins/dialect';
import { uploadPreviewsPlugin } from './plugins/upload-previews';
import type { RenderContext, RenderResult } from './types';

function createMarkdown(): MarkdownIt {
  // html: false escapes raw HTML; breaks: true is Zulip's nl2br.
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
  // Zulip has no reference-style links; `[x]: url` lines stay visible text.
  md.disable('reference');
  return md
    .use(linksPlugin)
    .use(dialectPlugin)
    .use(mentionsPlugin)
    .use(channelLinksPlugin)
    .use(emojiPlugin)
    .use(timestampsPlugin)
    .use(fencedBlocksPlugin)
    // After the links plugin: its final pass must exist to run before it.
    .use(linkifiersPlugin)
    .use(uploadPreviewsPlugin);
}

const md = createMarkdown();

/** Renders message content as Zulip does, resolving mentions and channel links through `context`. */
export function renderMessage(source: string, context: RenderContext): RenderResult {
  const env = createEnv(context);
  const html = md.render(source, env).trimEnd();
  return {
    html,
    mentionedUserIds: [...env.mentionedUserIds],
    mentionedGroupIds: [...env.mentionedGroupIds],
    wildcard: env.wildcard,
    hasLink: env.hasLink,
    hasImage: env.hasImage,
    hasAttachment: env.hasAttachment,
  };
}

/**
 * Renders Markdown without any organization data (e.g. channel descriptions): the same
 * syntax and safety rules, but mentions and channel links stay as written.
 */
export function renderMarkdown(source: string): string {
  return md.render(source, createEnv(undefined)).trimEnd();
}
