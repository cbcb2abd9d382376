/**
 * Linkifiers: an organization's patterns that turn text such as `#2468` into links. The
 * patterns are administrators' input run against every message, so they are compiled
 * and run by RE2 (re2js, a pure-JavaScript port): matching takes time linear in the text
 * whatever the pattern, and a pattern RE2 cannot run (backreferences, lookaround) is
 * refused when it is added rather than risked at render time. Zulip uses RE2 for
 * linkifiers too, so the same patterns are valid here and there.
 *
 * A match counts only as a whole word: it starts at the beginning, after white space or
 * one of `'"(,:<`, and ends at the end or before a character that is not a letter or
 * digit, as Zulip wraps each pattern. Its URL is the linkifier's RFC 6570 URL template
 * expanded with the pattern's named groups.
 */
import { RE2JS } from 're2js';
import { parse } from 'uri-template';
import MarkdownIt from 'markdown-it';

export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

/** Zulip's RealmFilter column limits. */
export const MAX_LINKIFIER_PATTERN_LENGTH = 1000;
export const MAX_LINKIFIER_URL_TEMPLATE_LENGTH = 1024;

/** Group names the wrapping takes for itself; a pattern may not use them. */
const RESERVED_GROUP_PREFIX = 'linkifier_';
const BEFORE = 'linkifier_before';
const ACTUAL = 'linkifier_actual';

const wrap = (pattern: string) =>
  `(?P<${BEFORE}>^|\\s|\\p{Z}|['"(,:<])(?P<${ACTUAL}>${pattern})(?P<linkifier_after>$|[^\\pL\\pN])`;

export type PatternCheck = { ok: true; groups: string[] } | { ok: false; error: string };

/** Whether RE2 can run `pattern` as a linkifier, and its named groups. */
export function checkLinkifierPattern(pattern: string): PatternCheck {
  let compiled: RE2JS;
  try {
    // Compiled alone first: an unbalanced `)` must not close the wrapping's group.
    const named = Object.keys(RE2JS.compile(pattern).namedGroups());
    if (named.some((name) => name.startsWith(RESERVED_GROUP_PREFIX))) {
      return { ok: false, error: `Group names starting with '${RESERVED_GROUP_PREFIX}' are reserved.` };
    }
    compiled = RE2JS.compile(wrap(pattern));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Bad regular expression: ${reason}` };
  }
  const groups = Object.keys(compiled.namedGroups()).filter((name) => !name.startsWith(RESERVED_GROUP_PREFIX));
  return { ok: true, groups };
}

/** `makesWebUrl`: whether it expands (every variable given) to an http(s) URL, which is all the renderer links. */
export type TemplateCheck = { ok: true; variables: string[]; makesWebUrl: boolean } | { ok: false };

/** Whether `template` is an RFC 6570 URL template, and its variables. */
export function checkLinkifierUrlTemplate(template: string): TemplateCheck {
  try {
    const parsed = parse(template);
    const { parts } = parsed.ast;
    // The library takes a stray `}` as text; RFC 6570 literals may not hold braces.
    if (parts.some((part) => part.type === 'literal' && /[{}]/.test(part.value))) return { ok: false };
    const variables = [...new Set(parts.flatMap((part) => (part.type === 'expression' ? part.variables.map((v) => v.name) : [])))];
    const example = parsed.expand(Object.fromEntries(variables.map((name) => [name, '1'])));
    return { ok: true, variables, makesWebUrl: isWebUrl(example) };
  } catch {
    return { ok: false };
  }
}

interface CompiledLinkifier {
  regex: RE2JS;
  groups: string[];
  expand(values: Record<string, string>): string | null;
}

/** A match of a linkifier in a text: [start, end) and the URL it links to. */
export interface LinkifierMatch {
  start: number;
  end: number;
  url: string;
}

/**
 * The organization's linkifiers, compiled once per change of the list (a message renders
 * against the list as it is when it is sent). A stored pattern that no longer compiles is
 * skipped, never thrown at a sender.
 */
export class CompiledLinkifiers {
  private readonly compiled: CompiledLinkifier[];

  constructor(linkifiers: readonly Linkifier[]) {
    this.compiled = [];
    for (const linkifier of linkifiers) {
      const check = checkLinkifierPattern(linkifier.pattern);
      if (!check.ok) continue;
      let template: ReturnType<typeof parse>;
      try {
        template = parse(linkifier.url_template);
      } catch {
        continue;
      }
      this.compiled.push({
        regex: RE2JS.compile(wrap(linkifier.pattern)),
        groups: check.groups,
        expand: (values) => {
          try {
            return template.expand(values);
          } catch {
            return null;
          }
        },
      });
    }
  }

  get isEmpty(): boolean {
    return this.compiled.length === 0;
  }

  /**
   * Every linkifier's matches in `text`, without overlaps: an earlier linkifier in the
   * organization's order wins over a later one, as Zulip applies them one after another;
   * the result is in text order.
   */
  matches(text: string): LinkifierMatch[] {
    const taken: LinkifierMatch[] = [];
    for (const linkifier of this.compiled) {
      for (const match of matchesOf(linkifier, text)) {
        if (!taken.some((other) => match.start < other.end && other.start < match.end)) taken.push(match);
      }
    }
    return taken.sort((a, b) => a.start - b.start);
  }
}

function matchesOf(linkifier: CompiledLinkifier, text: string): LinkifierMatch[] {
  const found: LinkifierMatch[] = [];
  const matcher = linkifier.regex.matcher(text);
  let from = 0;
  // The `after` part consumes a character; searching again from the end of the actual
  // match lets that character start the next one ("#1 #2").
  while (from <= text.length && matcher.find(from)) {
    const start = matcher.start(ACTUAL);
    const end = matcher.end(ACTUAL);
    const values: Record<string, string> = {};
    for (const name of linkifier.groups) values[name] = matcher.group(name) ?? '';
    const url = end > start ? linkifier.expand(values) : null;
    if (url !== null && isWebUrl(url)) found.push({ start, end, url });
    from = end > from ? end : from + 1;
  }
  return found;
}

function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

// markdown-it's own URL finder, so that a topic's addresses are found as a message's are.
const urls = new MarkdownIt({ linkify: true }).linkify;

/**
 * A topic's `topic_links`: what its linkifiers match and the web addresses written in
 * it, in text order, without overlaps (the earlier start wins), as Zulip lists them for
 * the button beside a topic (a topic itself is never a link).
 */
export function topicLinks(topic: string, linkifiers: CompiledLinkifiers | undefined): { text: string; url: string }[] {
  const found: LinkifierMatch[] = [...(linkifiers?.matches(topic) ?? [])];
  for (const match of urls.match(topic) ?? []) {
    if (isWebUrl(match.url)) found.push({ start: match.index, end: match.lastIndex, url: match.url });
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const links: { text: string; url: string }[] = [];
  let end = 0;
  for (const match of found) {
    if (match.start < end) continue;
    links.push({ text: topic.slice(match.start, match.end), url: match.url });
    end = match.end;
  }
  return links;
}
