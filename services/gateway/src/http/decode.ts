/**
 * Decoding request parameters from their wire form into the values an endpoint's zod
 * schema expects, guided by the schema itself: integers and `true`/`false` from text,
 * arrays and objects from JSON text, unions by trying JSON first. Values that do not
 * decode are passed on unchanged so that validation reports them by name.
 */
import { badRequest } from '@teamchat/contracts';
import type { ZodObject, ZodType } from 'zod';

type Kind = 'text' | 'integer' | 'boolean' | 'json' | 'maybe-json';

const LOOKS_LIKE_JSON = /^\s*(?:[[{"\d-]|true\b|false\b|null\b)/;

/** The wire kind of a schema, looking through optional/default/nullable wrappers. */
function kindOf(schema: ZodType): Kind {
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

function decodeOne(name: string, raw: unknown, kind: Kind): unknown {
  if (typeof raw !== 'string') return raw;
  switch (kind) {
    case 'text':
      return raw;
    case 'integer':
      return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        throw badRequest(`Argument '${name}' is not valid JSON.`, { var_name: name });
      }
    case 'maybe-json':
      // Only text that can be JSON is tried: a thrown parse error costs more than the
      // rest of the decoding, and most values here are plain names ("general").
      if (!LOOKS_LIKE_JSON.test(raw)) return raw;
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
}

/**
 * Merges query, body and path parameters (path wins: a copy of a path id repeated in the
 * query is tolerated) and decodes those the schema knows; the rest are reported as
 * ignored.
 */
export function decodeParams(
  schema: ZodObject,
  sources: { query: unknown; body: unknown; path: Record<string, string> },
): Decoded {
  // Null-prototype maps: a parameter named `__proto__` is just an unknown parameter.
  const raw: Record<string, unknown> = Object.create(null);
  for (const source of [sources.query, sources.body]) {
    if (source && typeof source === 'object' && !Array.isArray(source)) {
      for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
        // A repeated key arrives as an array; the last value wins, as in Django.
        raw[key] = Array.isArray(value) && typeof value[0] === 'string' ? value[value.length - 1] : value;
      }
    }
  }
  const shape = schema.shape as Record<string, ZodType>;
  const params: Record<string, unknown> = Object.create(null);
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key in sources.path) continue;
    if (!Object.hasOwn(shape, key)) {
      ignored.push(key);
      continue;
    }
    params[key] = decodeOne(key, value, kindOf(shape[key]!));
  }
  for (const [key, value] of Object.entries(sources.path)) {
    params[key] = Object.hasOwn(shape, key) ? decodeOne(key, value, kindOf(shape[key]!)) : value;
  }
  return { params, ignored };
}
