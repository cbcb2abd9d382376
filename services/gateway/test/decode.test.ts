import { z } from 'zod';
import { describeZodIssue } from '@teamchat/platform';
import { decodeParams, MAX_JSON_DEPTH, MAX_JSON_LENGTH } from '../src/http/decode';

const schema = z.object({ channel_id: z.number().int(), topic: z.string().optional(), flag: z.boolean().optional() });
const wireNames = { stream_id: 'channel_id', subject: 'topic' };

describe('decodeParams with legacy wire names', () => {
  it('renames and decodes legacy names, from the body and from the path', () => {
    expect(decodeParams(schema, { query: {}, body: { stream_id: '12', subject: 'lunch' }, path: {} }, wireNames).params).toEqual({
      channel_id: 12,
      topic: 'lunch',
    });
    expect(decodeParams(schema, { query: { flag: 'true' }, body: {}, path: { stream_id: '7' } }, wireNames).params).toEqual({
      channel_id: 7,
      flag: true,
    });
  });

  it("lets the schema's own name win over a legacy alias sent beside it", () => {
    const { params, ignored } = decodeParams(schema, { query: {}, body: { subject: 'old', topic: 'new', channel_id: '3' }, path: {} }, wireNames);
    expect(params).toEqual({ topic: 'new', channel_id: 3 });
    expect(ignored).toEqual([]);
  });

  it('reports unknown parameters by their wire names', () => {
    expect(decodeParams(schema, { query: { stream: 'x' }, body: { stream_id: '1' }, path: {} }, wireNames).ignored).toEqual(['stream']);
  });

  it('names a parameter in errors as the client sent it, or by its documented legacy name', () => {
    const sent = decodeParams(schema, { query: {}, body: { stream_id: 'abc' }, path: {} }, wireNames);
    const invalid = schema.safeParse(sent.params);
    expect(invalid.success).toBe(false);
    expect(describeZodIssue(invalid.error!.issues[0], sent.wireNameOf)).toMatch(/'stream_id'/);

    const missing = decodeParams(schema, { query: {}, body: {}, path: {} }, wireNames);
    const issue = schema.safeParse(missing.params).error!.issues[0];
    expect(describeZodIssue(issue, missing.wireNameOf)).toBe("Missing 'stream_id' argument");

    const direct = decodeParams(schema, { query: {}, body: { channel_id: 'x' }, path: {} }, wireNames);
    expect(describeZodIssue(schema.safeParse(direct.params).error!.issues[0], direct.wireNameOf)).toMatch(/'channel_id'/);
  });

  it('changes nothing without wire names', () => {
    const { params, ignored } = decodeParams(schema, { query: {}, body: { stream_id: '1', channel_id: '2' }, path: {} });
    expect(params).toEqual({ channel_id: 2 });
    expect(ignored).toEqual(['stream_id']);
  });
});

describe('decodeParams limits on JSON parameters', () => {
  const json = z.object({ narrow: z.array(z.unknown()).optional(), to: z.union([z.string(), z.array(z.number())]).optional() });
  const refusal = (body: Record<string, unknown>) => {
    try {
      decodeParams(json, { query: {}, body, path: {} });
      return undefined;
    } catch (err) {
      return (err as { msg?: string }).msg;
    }
  };

  it(`refuses text nested deeper than ${MAX_JSON_DEPTH} levels, for JSON and maybe-JSON kinds`, () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(refusal({ narrow: nested(MAX_JSON_DEPTH) })).toBeUndefined();
    expect(refusal({ narrow: nested(MAX_JSON_DEPTH + 1) })).toBe(`Argument 'narrow' is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`);
    expect(refusal({ to: nested(5000) })).toContain("'to' is nested too deeply");
  });

  it('counts brackets inside strings as text, not nesting', () => {
    expect(refusal({ narrow: JSON.stringify(['['.repeat(100), '{"\\\\"'.repeat(50)]) })).toBeUndefined();
  });

  it('refuses already-decoded values (JSON bodies) nested too deeply, without recursion', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal({ narrow: deep })).toContain("'narrow' is nested too deeply");
    expect(refusal({ narrow: [[{ operator: 'channel', operand: 'x' }]] })).toBeUndefined();
  });

  it(`refuses JSON text longer than ${MAX_JSON_LENGTH} characters`, () => {
    expect(refusal({ narrow: `[${'1,'.repeat(MAX_JSON_LENGTH / 2)}1]` })).toContain("'narrow' is too long");
  });
});
