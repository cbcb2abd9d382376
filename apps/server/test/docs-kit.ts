/**
 * Reading the project's own documents (README.md, docs/*.md) and its sources mechanically,
 * for the tests that hold the documents to the code: links and anchors, the environment
 * variables, and the README's quick start.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');

/** README.md and every docs/*.md, as paths relative to the root. */
export function documents(): string[] {
  const docs = existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
  return ['README.md', ...docs.sort()];
}

export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The lines of a Markdown text outside fenced code blocks (each with its 1-based number). */
export function proseLines(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]![0];
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, n: i + 1 });
  });
  return out;
}

/**
 * GitHub's anchor for a heading: lower case, inline code and link syntax dropped, every
 * character but letters, digits, spaces, `-` and `_` removed, spaces made `-`; a repeated
 * heading gets `-1`, `-2`, ….
 */
export function slugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const plain = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

export interface Link {
  doc: string;
  n: number;
  target: string;
}

/** Every Markdown link and image target in a document's prose (inline code spans excluded). */
export function links(doc: string): Link[] {
  const out: Link[] = [];
  for (const { line, n } of proseLines(read(doc))) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ doc, n, target: m[1]! });
  }
  return out;
}

/** Why a relative link does not resolve (undefined: it does). External links are not checked here. */
export function brokenLink(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const from = join(ROOT, link.doc, '..');
  const file = pathPart === '' ? join(ROOT, link.doc) : join(from, decodeURIComponent(pathPart));
  const inside = relative(ROOT, file);
  if (inside.startsWith('..') || inside.startsWith('/')) return `points outside the repository (${link.target})`;
  if (!existsSync(file)) return `no such file: ${inside}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return `an anchor into a file that is not Markdown: ${link.target}`;
  return slugs(readFileSync(file, 'utf8')).has(anchor) ? undefined : `no heading with anchor #${anchor} in ${inside}`;
}

/** Source files (.ts, .cjs, .js) under a directory, recursively, skipping dist and node_modules. */
export function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|cjs|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Packages' directories (libs/x, services/x, apps/x). */
export function packages(): string[] {
  return ['libs', 'services', 'apps'].flatMap((top) =>
    readdirSync(join(ROOT, top), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${top}/${e.name}`),
  );
}

const PREFIXED = '(?:TEAMCHAT|ZULIP|NATS|BENCH|SCALE|FUZZ)_[A-Z0-9_]+';

/**
 * The environment variables a source text reads: `env.NAME` and `env['NAME']` (of
 * `process.env` or an env object handed down), a quoted project-prefixed name (the
 * settings helpers take the variable's name: `positiveInteger(env, 'TEAMCHAT_…', 25)`),
 * and any `TEAMCHAT_…` name at all (schema keys such as the engines').
 */
export function envReads(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
  for (const m of text.matchAll(/\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g)) names.add(m[1]!);
  for (const m of text.matchAll(new RegExp(`['"\`](${PREFIXED})['"\`]`, 'g'))) names.add(m[1]!);
  for (const m of text.matchAll(/\bTEAMCHAT_[A-Z0-9_]+\b/g)) names.add(m[0]);
  return names;
}

export function envReadsOf(files: readonly string[]): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of files) for (const name of envReads(read(file))) if (!where.has(name)) where.set(name, file);
  return where;
}

/**
 * The variables a document lists in its settings tables: the backticked upper-case names
 * in the first cell of a table row.
 */
export function documentedVariables(doc: string): Set<string> {
  const names = new Set<string>();
  for (const { line } of proseLines(read(doc))) {
    const m = /^\|([^|]*)\|/.exec(line);
    if (!m) continue;
    for (const v of m[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(v[1]!);
  }
  return names;
}

/** The fenced shell blocks of a document's section (from its `## heading` to the next `## `). */
export function shellBlocksUnder(doc: string, heading: string): string[] {
  const lines = read(doc).split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const section = lines.slice(start + 1, end < 0 ? undefined : end);
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of section) {
    if (current === undefined && /^```(sh|bash|shell)\s*$/.test(line.trim())) current = [];
    else if (current !== undefined && line.trim() === '```') {
      blocks.push(current.join('\n'));
      current = undefined;
    } else if (current !== undefined) current.push(line);
  }
  return blocks;
}
