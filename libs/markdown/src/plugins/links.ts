/**
 * Link policy and the final pass over a rendered message's tokens: which URL schemes may
 * become links, how links are decorated, and what the message mentions and links to.
 */
import type MarkdownIt from 'markdown-it';
import type { GroupMentionMeta, UserMentionMeta } from './mentions';
import { type RenderEnv, envOf } from './env';

type Token = MarkdownIt.Token;
type TokenClass = MarkdownIt.StateCore['Token'];

// Zulip's allowed link schemes; anything else (javascript:, data:, vbscript:, custom app
// schemes) is left as literal text rather than becoming a link.
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto', 'tel', 'sms']);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const IMAGE_PATH = /\.(?:png|jpe?g|gif|webp|bmp)$/i;

/** markdown-it's validateLink: http(s), mailto, tel, sms and relative URLs only. */
export function isAllowedUrl(url: string): boolean {
  const scheme = SCHEME.exec(url.trim());
  return scheme === null || ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase());
}

/**
 * Links to this server become relative, as Zulip renders them: a `#narrow` link then
 * navigates inside the open app instead of loading the server again in a new tab.
 */
function localize(href: string, realmUrl: string): { href: string; inApp: boolean } {
  if (realmUrl) {
    if (href.startsWith(`${realmUrl}/#`)) return { href: href.slice(realmUrl.length + 1), inApp: true };
    if (href.startsWith(`${realmUrl}/user_uploads/`)) return { href: href.slice(realmUrl.length), inApp: false };
  }
  return { href, inApp: href.startsWith('#') };
}

function isBlankLabel(tokens: Token[]): boolean {
  return tokens.every((token) => token.type === 'text' && token.content.trim() === '');
}

/** `![alt](url)` becomes a plain link to the image: no remote image is embedded in a message. */
function imageAsLink(image: Token, TokenCtor: TokenClass): Token[] {
  const open = new TokenCtor('link_open', 'a', 1);
  open.attrs = [['href', image.attrGet('src') ?? '']];
  const title = image.attrGet('title');
  if (title) open.attrs.push(['title', title]);
  open.markup = 'image';
  const close = new TokenCtor('link_close', 'a', -1);
  close.markup = 'image';
  return [open, ...(image.children ?? []), close];
}

function decorateLink(open: Token, label: Token[], env: RenderEnv, TokenCtor: TokenClass): Token[] {
  const { href, inApp } = localize(open.attrGet('href') ?? '', env.realmUrl);
  open.attrSet('href', href);
  env.hasLink = true;
  const path = href.split(/[?#]/, 1)[0]!;
  if (IMAGE_PATH.test(path)) env.hasImage = true;
  if (path.startsWith('/user_uploads/')) env.hasAttachment = true;
  if (!inApp) {
    open.attrSet('target', '_blank');
    open.attrSet('rel', 'noopener noreferrer');
    if (!open.attrGet('title')) open.attrSet('title', href);
  }
  if (!isBlankLabel(label)) return label;
  // `[](url)` would be an invisible link; Zulip shows the URL instead.
  const text = new TokenCtor('text', '', 0);
  text.content = href;
  return [text];
}

function collectMention(token: Token, env: RenderEnv): void {
  if (token.type === 'zulip_user_mention') {
    const meta = token.meta as UserMentionMeta;
    if (meta.silent) return;
    if (meta.kind === 'user') env.mentionedUserIds.add(meta.userId);
    else if (meta.kind === 'channel_wildcard') env.wildcard = 'channel';
    else if (env.wildcard === null) env.wildcard = 'topic';
  } else if (token.type === 'zulip_group_mention') {
    const meta = token.meta as GroupMentionMeta;
    if (!meta.silent) env.mentionedGroupIds.add(meta.groupId);
  }
}

function finalizeInline(children: Token[], env: RenderEnv, TokenCtor: TokenClass): Token[] {
  const flat: Token[] = [];
  for (const token of children) {
    if (token.type === 'image') {
      env.hasImage = true;
      flat.push(...imageAsLink(token, TokenCtor));
    } else {
      flat.push(token);
    }
  }

  const out: Token[] = [];
  for (let i = 0; i < flat.length; i++) {
    const token = flat[i]!;
    collectMention(token, env);
    if (token.type !== 'link_open') {
      out.push(token);
      continue;
    }
    // markdown-it never nests links, so the next link_close is this link's.
    let close = i + 1;
    while (close < flat.length && flat[close]!.type !== 'link_close') close++;
    const label = flat.slice(i + 1, close);
    label.forEach((inner) => collectMention(inner, env));
    out.push(token, ...decorateLink(token, label, env, TokenCtor));
    if (close < flat.length) out.push(flat[close]!);
    i = close;
  }
  return out;
}

function finalizeRule(state: MarkdownIt.StateCore): void {
  const env = envOf(state);
  for (const token of state.tokens) {
    if (token.type === 'inline' && token.children) {
      token.children = finalizeInline(token.children, env, state.Token);
    }
  }
}

export function linksPlugin(md: MarkdownIt): void {
  md.validateLink = isAllowedUrl;
  md.core.ruler.push('zulip_finalize', finalizeRule);
}
