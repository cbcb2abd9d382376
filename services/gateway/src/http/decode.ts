/**
 * Decoding request parameters from their wire form into the values an endpoint's zod
 * schema expects, guided by the schema itself: integers and `true`/`false` from text,
 * arrays and objects from JSON text, unions by trying JSON first. Values that do not
 * decode are passed on unchanged so that validation reports them by name.
 */
import { badRequest } from '@teamchat/contracts';
import type { ZodObject, ZodType } from 'zod';

export type Kind = 'text' | 'integer' | 'boolean' | 'json' | 'maybe-json';

const LOOKS_LIKE_JSON = /^\s*(?:[[{"\d-]|true\b|false\b|null\b)/;

/**
 * How deeply a JSON parameter may nest, and how long its text may be. The API's deepest
 * legitimate values (a narrow, an anonymous group inside a group-setting update) nest three
 * or four levels; a value nested thousands deep would overflow the stack of whatever copies
 * it (the bus, a deep freeze), so the gateway refuses it before any service sees it.
 */
export const MAX_JSON_DEPTH = 32;
export const MAX_JSON_LENGTH = 1024 * 1024;

/** The wire kind of a schema, looking through optional/default/nullable wrappers. */
export function kindOf(schema: ZodType): Kind {
  const def = (schema as unknown as { _zod: { def: { type: string; innerType?: ZodType } } })._zod.def;
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
    case 'prefault':
      return kindOf(def.innerType!);
    case 'number':
    case 'int':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'array':
    case 'object':
    case 'record':
    case 'tuple':
      return 'json';
    case 'union':
    case 'unknown':
    case 'any':
      return 'maybe-json';
    default:
      return 'text';
  }
}

/** The deepest nesting of arrays and objects in JSON text, counted without parsing it. */
function textDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Whether a decoded value (e.g. from a JSON body) nests deeper than `limit`, walked without recursion. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

function checkJsonText(name: string, raw: string, maxLength: number): void {
  if (raw.length > maxLength) throw badRequest(`Argument '${name}' is too long (at most ${maxLength} characters).`, { var_name: name });
  if (textDepth(raw) > MAX_JSON_DEPTH) throw badRequest(`Argument '${name}' is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`, { var_name: name });
}

function decodeOne(name: string, raw: unknown, kind: Kind, maxJsonLength: number): unknown {
  if (typeof raw !== 'string') {
    if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) throw badRequest(`Argument '${name}' is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`, { var_name: name });
    return raw;
  }
  switch (kind) {
    case 'text':
      return raw;
    case 'integer':
      return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'json':
      checkJsonText(name, raw, maxJsonLength);
      try {
        return JSON.parse(raw);
      } catch {
        throw badRequest(`Argument '${name}' is not valid JSON.`, { var_name: name });
      }
    case 'maybe-json':
      // Only text that can be JSON is tried: a thrown parse error costs more than the
      // rest of the decoding, and most values here are plain names ("general").
      if (!LOOKS_LIKE_JSON.test(raw)) return raw;
      checkJsonText(name, raw, maxJsonLength);
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
  }
}

export interface Decoded {
  params: Record<string, unknown>;
  ignored: string[];
  /** The wire name a parameter arrived under, where it differs from its name in `params`. */
  wireNameOf: (name: string) => string;
}

/**
 * Merges query, body and path parameters (path wins: a copy of a path id repeated in the
 * query is tolerated), renames legacy wire names to the schema's (`wireNames`), and
 * decodes those the schema knows; the rest are reported as ignored, by their wire names.
 */
export function decodeParams(
  schema: ZodObject,
  sources: { query: unknown; body: unknown; path: Record<string, string> },
  wireNames: Readonly<Record<string, string>> = NO_RENAMES,
  /** A contract's own `http.maxJsonLength` (bot storage), else the default. */
  maxJsonLength: number = MAX_JSON_LENGTH,
): Decoded {
  // Null-prototype maps: a parameter named `__proto__` is just an unknown parameter.
  const raw: Record<string, unknown> = Object.create(null);
  for (const source of [sources.query, sources.body]) {
    if (source && typeof source === 'object' && !Array.isArray(source)) {
      // Keys, not entries: a pair array per parameter for every request is garbage for nothing.
      for (const key of Object.keys(source)) {
        const value = (source as Record<string, unknown>)[key];
        // A repeated key arrives as an array; the last value wins, as in Django.
        raw[key] = Array.isArray(value) && typeof value[0] === 'string' ? value[value.length - 1] : value;
      }
    }
  }
  const shape = schema.shape as Record<string, ZodType>;
  const params: Record<string, unknown> = Object.create(null);
  const ignored: string[] = [];
  /** Each parameter's wire name, where it differs from its name in `params` (made only then). */
  let renamed: Map<string, string> | undefined;
  const nameOf = (key: string) => (Object.hasOwn(wireNames, key) ? wireNames[key]! : key);
  for (const key in raw) {
    const value = raw[key];
    if (key in sources.path) continue;
    const name = nameOf(key);
    if (!Object.hasOwn(shape, name)) {
      ignored.push(key);
      continue;
    }
    // The schema's own name wins over a legacy alias sent beside it.
    if (name !== key && Object.hasOwn(raw, name)) continue;
    if (name !== key) (renamed ??= new Map()).set(name, key);
    params[name] = decodeOne(key, value, kindOf(shape[name]!), maxJsonLength);
  }
  for (const [key, value] of Object.entries(sources.path)) {
    const name = nameOf(key);
    if (name !== key) (renamed ??= new Map()).set(name, key);
    params[name] = Object.hasOwn(shape, name) ? decodeOne(key, value, kindOf(shape[name]!), maxJsonLength) : value;
  }
  return {
    params,
    ignored,
    wireNameOf: (name) => renamed?.get(name) ?? (Object.hasOwn(params, name) ? name : wireNameFor(name, wireNames)),
  };
}

const NO_RENAMES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The name to tell a client about a parameter it did not send as a legacy name (e.g. a
 * missing one): the legacy name that maps to it, which is what the API documents.
 */
function wireNameFor(name: string, wireNames: Readonly<Record<string, string>>): string {
  for (const [wire, target] of Object.entries(wireNames)) if (target === name) return wire;
  return name;
}
