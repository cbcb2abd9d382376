/**
 * The linkifier pass: after inline parsing, the organization's linkifiers turn matches in
 * plain text into links. Text already inside a link (or code, which is not a text token)
 * is left alone. It runs before the final pass, which decorates these links like any
 * other and notes that the message has a link.
 */
import type MarkdownIt from 'markdown-it';
import { envOf } from './env';

type Token = MarkdownIt.Token;

function linkifyChildren(children: Token[], state: MarkdownIt.StateCore): Token[] {
  const linkifiers = envOf(state).ctx?.linkifiers;
  if (!linkifiers || linkifiers.isEmpty) return children;
  const out: Token[] = [];
  let linkDepth = 0;
  for (const token of children) {
    if (token.type === 'link_open') linkDepth++;
    if (token.type === 'link_close') linkDepth--;
    if (token.type !== 'text' || linkDepth > 0) {
      out.push(token);
      continue;
    }
    const text = token.content;
    let last = 0;
    for (const match of linkifiers.matches(text)) {
      if (match.start > last) out.push(textToken(state, text.slice(last, match.start)));
      const open = new state.Token('link_open', 'a', 1);
      open.attrs = [['href', match.url]];
      open.markup = 'linkifier';
      out.push(open, textToken(state, text.slice(match.start, match.end)));
      const close = new state.Token('link_close', 'a', -1);
      close.markup = 'linkifier';
      out.push(close);
      last = match.end;
    }
    if (last === 0) out.push(token);
    else if (last < text.length) out.push(textToken(state, text.slice(last)));
  }
  return out;
}

function textToken(state: MarkdownIt.StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

export function linkifiersPlugin(md: MarkdownIt): void {
  md.core.ruler.before('zulip_finalize', 'zulip_linkifiers', (state) => {
    for (const token of state.tokens) {
      if (token.type === 'inline' && token.children) token.children = linkifyChildren(token.children, state);
    }
  });
}
