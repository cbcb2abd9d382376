/**
 * Image previews of uploaded files: a paragraph linking images uploaded to this server is
 * followed by their previews, as Zulip shows them (`message_inline_image`). Only this
 * server's uploads get one: a remote image would tell its host who read the message.
 */
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './env';

const UPLOADED_IMAGE = /^\/user_uploads\/[^?#]+\.(?:png|jpe?g|gif|webp)$/i;

function previewsRule(state: MarkdownIt.StateCore): void {
  const out: MarkdownIt.Token[] = [];
  let pending: { href: string; title: string }[] = [];
  for (const token of state.tokens) {
    out.push(token);
    if (token.type === 'inline') {
      for (const child of token.children ?? []) {
        const href = child.type === 'link_open' ? child.attrGet('href') : null;
        if (href && UPLOADED_IMAGE.test(href) && !pending.some((p) => p.href === href)) pending.push({ href, title: child.attrGet('title') ?? href });
      }
    } else if (token.type === 'paragraph_close' && token.level === 0 && pending.length) {
      const html = new state.Token('html_block', '', 0);
      html.content = pending
        .map(({ href, title }) => {
          const name = escapeHtml(decodeURIComponent(title.split('/').at(-1) ?? title));
          return `<div class="message_inline_image"><a href="${escapeHtml(href)}" title="${name}"><img src="${escapeHtml(href)}" alt="${name}"></a></div>\n`;
        })
        .join('');
      out.push(html);
      pending = [];
    }
  }
  state.tokens = out;
}

export function uploadPreviewsPlugin(md: MarkdownIt): void {
  md.core.ruler.after('zulip_finalize', 'zulip_upload_previews', (state) => {
    try {
      previewsRule(state);
    } catch {
      // A title that does not decode leaves the message without previews, never unrendered.
    }
  });
}
