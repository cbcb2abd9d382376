/**
 * Zulip's fenced blocks: ```` ```quote ```` and ```` ```spoiler Header ```` hold Markdown
 * (parsed by markdown-it like any other block content); every other fence, and indented
 * code, renders as Zulip's `codehilite` block (no syntax highlighting here).
 */
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './env';

const BACKTICK = 0x60;
const TILDE = 0x7e;
const CONTAINER_KINDS = new Set(['quote', 'quoted', 'spoiler']);

// Zulip's fence language charset; anything else is not a language name.
const LANGUAGE = /^[A-Za-z0-9_+\-./#]+$/;

/** Pygments' display names for common languages, which Zulip shows in data-code-language. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  sh: 'Bash',
  shell: 'Bash',
  zsh: 'Bash',
  c: 'C',
  'c++': 'C++',
  cpp: 'C++',
  csharp: 'C#',
  'c#': 'C#',
  cs: 'C#',
  css: 'CSS',
  diff: 'Diff',
  patch: 'Diff',
  dockerfile: 'Docker',
  docker: 'Docker',
  go: 'Go',
  golang: 'Go',
  haskell: 'Haskell',
  hs: 'Haskell',
  html: 'HTML',
  ini: 'INI',
  java: 'Java',
  javascript: 'JavaScript',
  js: 'JavaScript',
  json: 'JSON',
  jsx: 'JSX',
  kotlin: 'Kotlin',
  kt: 'Kotlin',
  latex: 'TeX',
  tex: 'TeX',
  lua: 'Lua',
  make: 'Makefile',
  makefile: 'Makefile',
  markdown: 'Markdown',
  md: 'Markdown',
  objectivec: 'Objective-C',
  'objective-c': 'Objective-C',
  perl: 'Perl',
  pl: 'Perl',
  php: 'PHP',
  powershell: 'PowerShell',
  ps1: 'PowerShell',
  py: 'Python',
  py3: 'Python',
  python: 'Python',
  python3: 'Python',
  py2: 'Python 2.x',
  python2: 'Python 2.x',
  r: 'R',
  rb: 'Ruby',
  ruby: 'Ruby',
  rs: 'Rust',
  rust: 'Rust',
  scala: 'Scala',
  scss: 'SCSS',
  sql: 'SQL',
  swift: 'Swift',
  text: 'Text only',
  toml: 'TOML',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  tsx: 'TSX',
  xml: 'XML',
  yaml: 'YAML',
  yml: 'YAML',
};

interface FenceLine {
  marker: number;
  length: number;
  info: string;
}

/** The first word of a fence's info string, without Zulip's optional `{.lang}` decoration. */
function fenceWord(info: string): string {
  const word = info.trim().split(/\s+/, 1)[0] ?? '';
  return word.replace(/^\{?\.?/, '').replace(/\}$/, '');
}

/** Display name for a fence's language, or null when it names none. */
export function codeLanguage(info: string): string | null {
  const word = fenceWord(info);
  if (!word || !LANGUAGE.test(word)) return null;
  return LANGUAGE_NAMES[word.toLowerCase()] ?? word;
}

function readFence(state: MarkdownIt.StateBlock, line: number): FenceLine | null {
  if (state.sCount[line]! - state.blkIndent >= 4) return null;
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  const marker = state.src.charCodeAt(start);
  if (marker !== BACKTICK && marker !== TILDE) return null;
  const end = state.skipChars(start, marker);
  if (end - start < 3) return null;
  const info = state.src.slice(end, max).trim();
  // CommonMark: a backtick fence's info may not contain backticks (that is inline code).
  if (marker === BACKTICK && info.includes('`')) return null;
  return { marker, length: end - start, info };
}

/**
 * The line holding the container's closing fence (or endLine when unclosed). Fences
 * nested inside are tracked so that a code block's or inner container's closing fence
 * does not end the outer container, which is how Zulip reads nested fences.
 */
function findContainerEnd(
  state: MarkdownIt.StateBlock,
  opener: FenceLine,
  startLine: number,
  endLine: number,
): { line: number; closed: boolean } {
  const open: Array<{ marker: number; length: number; container: boolean }> = [{ ...opener, container: true }];
  for (let line = startLine + 1; line < endLine; line++) {
    // A less indented, non-empty line ends the enclosing list item and so this block.
    if (!state.isEmpty(line) && state.sCount[line]! < state.blkIndent) return { line, closed: false };
    const fence = readFence(state, line);
    if (!fence) continue;
    const innermost = open[open.length - 1]!;
    if (fence.info === '' && fence.marker === innermost.marker && fence.length >= innermost.length) {
      open.pop();
      if (open.length === 0) return { line, closed: true };
      continue;
    }
    // Inside a code block every other fence line is just code.
    if (!innermost.container) continue;
    open.push({ marker: fence.marker, length: fence.length, container: CONTAINER_KINDS.has(fenceWord(fence.info).toLowerCase()) });
  }
  return { line: endLine, closed: false };
}

function containerRule(state: MarkdownIt.StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const opener = readFence(state, startLine);
  if (!opener) return false;
  const kind = fenceWord(opener.info).toLowerCase();
  if (!CONTAINER_KINDS.has(kind)) return false;
  if (silent) return true;

  const end = findContainerEnd(state, opener, startLine, endLine);
  const markup = String.fromCharCode(opener.marker).repeat(opener.length);
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  // Keeps lazy paragraph continuation from running past the closing fence.
  state.lineMax = end.line;
  state.parentType = 'blockquote';

  if (kind === 'spoiler') {
    const open = state.push('zulip_spoiler_open', 'div', 1);
    open.markup = markup;
    open.info = opener.info;
    open.map = [startLine, end.line];
    const header = opener.info.replace(/^\S+\s*/, '');
    if (header) {
      state.push('paragraph_open', 'p', 1).map = [startLine, startLine + 1];
      const inline = state.push('inline', '', 0);
      inline.content = header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push('paragraph_close', 'p', -1);
    }
    state.push('zulip_spoiler_content', 'div', 0);
    state.md.block.tokenize(state, startLine + 1, end.line);
    state.push('zulip_spoiler_close', 'div', -1).markup = markup;
  } else {
    const open = state.push('blockquote_open', 'blockquote', 1);
    open.markup = markup;
    open.map = [startLine, end.line];
    state.md.block.tokenize(state, startLine + 1, end.line);
    state.push('blockquote_close', 'blockquote', -1).markup = markup;
  }

  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = end.line + (end.closed ? 1 : 0);
  return true;
}

/**
 * Pygments, behind Zulip's codehilite, drops leading and trailing blank lines and
 * trailing whitespace on every line; copying that keeps rendered code identical.
 */
function normalizeCode(content: string): string {
  const lines = content.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export function renderCodeBlock(content: string, language: string | null): string {
  const languageAttr = language === null ? '' : ` data-code-language="${escapeHtml(language)}"`;
  return `<div class="codehilite"${languageAttr}><pre><span></span><code>${escapeHtml(normalizeCode(content))}</code></pre></div>\n`;
}

export function fencedBlocksPlugin(md: MarkdownIt): void {
  md.block.ruler.before('fence', 'zulip_container', containerRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.renderer.rules.fence = (tokens, idx) => renderCodeBlock(tokens[idx]!.content, codeLanguage(tokens[idx]!.info));
  md.renderer.rules.code_block = (tokens, idx) => renderCodeBlock(tokens[idx]!.content, null);
  md.renderer.rules['zulip_spoiler_open'] = () => '<div class="spoiler-block"><div class="spoiler-header">\n';
  md.renderer.rules['zulip_spoiler_content'] = () => '</div><div class="spoiler-content" aria-hidden="true">\n';
  md.renderer.rules['zulip_spoiler_close'] = () => '</div></div>\n';
}
