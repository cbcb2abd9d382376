/**
 * zod → JSON Schema (2020-12, the dialect of OpenAPI 3.1) with zod 4's own converter, in
 * the sense the gateway gives a schema: a request's parameters as the client sends them
 * (`io: 'input'`: a parameter with a default is optional), a reply as the service sends
 * it (`io: 'output'`).
 *
 * An object is closed (`additionalProperties: false`) only where zod would refuse another
 * member (z.strictObject); a plain z.object strips unknown members, so the description
 * allows them too. What zod checks in code (refine, superRefine, transforms, custom
 * checks) has no JSON Schema form and is not in the description; the service still
 * applies it.
 */
import { z, type ZodType } from 'zod';

export type JsonSchema = Record<string, unknown>;

function convert(schema: ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // A schema with no JSON form (a transform's output, a custom check) is described as
    // "any value" rather than failing the whole document.
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const def = (zodSchema as unknown as { _zod: { def: { type: string; catchall?: ZodType } } })._zod.def;
      if (def.type !== 'object') return;
      const catchall = def.catchall as unknown as { _zod: { def: { type: string } } } | undefined;
      if (catchall === undefined) delete jsonSchema.additionalProperties;
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

export const inputSchema = (schema: ZodType): JsonSchema => convert(schema, 'input');
export const outputSchema = (schema: ZodType): JsonSchema => convert(schema, 'output');

/** An object schema's members and which of them are required. */
export function membersOf(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  return {
    properties: (schema.properties ?? {}) as Record<string, JsonSchema>,
    required: new Set((schema.required ?? []) as string[]),
  };
}
