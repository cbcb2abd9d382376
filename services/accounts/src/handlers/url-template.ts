/**
 * Reading a URL template with a maintained RFC 6570 library (uri-template), at the edge of
 * the domain: the playground decider gets what the template is made of, not the parser.
 */
import { parse } from 'uri-template';
import type { ParsedUrlTemplate } from '../domain/playgrounds';

export function parseUrlTemplate(template: string): ParsedUrlTemplate {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(template);
  } catch {
    return { valid: false, variables: [], example: null };
  }
  const { parts } = parsed.ast;
  // The library takes a stray `}` as text; RFC 6570 literals may not hold braces.
  const valid = !parts.some((part) => part.type === 'literal' && /[{}]/.test(part.value));
  const variables = [...new Set(parts.flatMap((part) => (part.type === 'expression' ? part.variables.map((v) => v.name) : [])))];
  let example: string | null = null;
  try {
    example = parsed.expand({ code: 'print("hello")' });
  } catch {
    example = null;
  }
  return { valid, variables, example };
}
