/**
 * Small differences between Zulip's Markdown and CommonMark.
 */
import type MarkdownIt from 'markdown-it';

/**
 * Zulip turns off underscore emphasis (`_foo_`, `__foo__` stay literal) because
 * snake_case identifiers and file names are common in chat. Consuming runs of `_` as plain
 * text keeps the emphasis rule from ever seeing them, while `*` emphasis still works.
 */
function underscoreRule(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5f /* _ */) return false;
  let end = state.pos;
  while (end < state.posMax && state.src.charCodeAt(end) === 0x5f) end++;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

export function dialectPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_underscore_literal', underscoreRule);
  // Zulip renders ~~strikethrough~~ as <del>, markdown-it as <s>; clients style <del>.
  md.renderer.rules['s_open'] = () => '<del>';
  md.renderer.rules['s_close'] = () => '</del>';
}
