/**
 * Markdown rendering for message content and channel descriptions, on markdown-it.
 * Raw HTML in the source is escaped (html: false), bare URLs become links, and every
 * link opens in a new tab without handing the opener to the target page.
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(source: string): string {
  return md.render(source).trimEnd();
}

/** A `/me` message: content starting with "/me " is shown as an action of the sender. */
export function isMeMessage(source: string): boolean {
  return /^\/me(\s|$)/.test(source);
}
