/**
 * What the route fuzzer (fuzz.test.ts) is made of: a raw HTTP/1.1 client that can send
 * what `fetch` refuses to (raw non-ASCII bytes in the path, duplicated and malformed
 * headers, a body on any method, a multipart body without its boundary), the fuzz cases
 * generated from the gateway's route table, and the checks each reply must pass.
 */
import { connect } from 'node:net';
import { httpEndpoints, type Endpoint } from '@teamchat/contracts';
import fc from 'fast-check';
import type { ZodObject, ZodType } from 'zod';

// ---------------------------------------------------------------------------------------
// Raw HTTP

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawRequest {
  method: string;
  /** The request target as sent, byte for byte (UTF-8): path and query string. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseReply(data: Buffer): RawReply | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = data.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

/**
 * One request on its own connection (`Connection: close`, so the reply ends with the
 * connection). A server that answers before reading the whole body (413) and resets the
 * connection still counts as having answered.
 */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 15_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const reply = parseReply(Buffer.concat(chunks));
      if (reply) resolve(reply);
      else reject(err ?? new Error(`no HTTP reply (${Buffer.concat(chunks).length} bytes received)`));
    };
    const timer = setTimeout(() => finish(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (err) => finish(err));
    const body = request.body ?? Buffer.alloc(0);
    const head = [`${request.method} ${request.target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
    for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
    // Every body is sent with its length, also on GET: whether the server reads it is its business.
    if (body.length || request.method !== 'GET') head.push(`Content-Length: ${body.length}`);
    socket.write(Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n', 'utf8'), body]));
  });
}

// ---------------------------------------------------------------------------------------
// Checking a reply

export interface Envelope {
  result: string;
  msg: string;
  code?: string;
  [member: string]: unknown;
}

/**
 * The reply's promise to every client: a status below 500 (503 and 504 only when a
 * service is really down or slow), and a JSON envelope with `result` and `msg`; an error
 * also has a 4xx/5xx status and a `code`. Returns a description of what is wrong, or
 * undefined.
 */
export function envelopeProblem(reply: RawReply): string | undefined {
  if (reply.status >= 500 && reply.status !== 503 && reply.status !== 504) return `status ${reply.status}`;
  let body: Envelope;
  try {
    body = JSON.parse(reply.body.toString('utf8')) as Envelope;
  } catch {
    return `non-JSON body (${reply.status}): ${JSON.stringify(reply.body.subarray(0, 200).toString('utf8'))}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `body is not an object`;
  if (body.result !== 'success' && body.result !== 'error') return `result is ${JSON.stringify(body.result)}`;
  if (typeof body.msg !== 'string') return `msg is ${JSON.stringify(body.msg)}`;
  if (body.result === 'error') {
    if (reply.status < 400) return `an error with status ${reply.status}`;
    if (typeof body.code !== 'string') return `an error without a string code`;
  } else if (reply.status >= 300) return `a success with status ${reply.status}`;
  return undefined;
}

/**
 * A parameter the request carried in a body the gateway reads (or the query string) must
 * not be reported missing: a wrong value is "Invalid", which tells the client what to fix.
 */
export function sentButMissing(c: FuzzCase, reply: RawReply): string | undefined {
  const wellFormed = ['none', 'form', 'json', 'multipart'].includes(c.body) && c.contentType === undefined && c.queryTail === '' && !hasFilePart(c);
  if (!wellFormed || reply.status !== 400) return undefined;
  const missing = /"msg":"Missing '([^']*)' argument"/.exec(reply.body.toString())?.[1];
  // The body of a GET is not read (nor is it in Django), only its query string. A `#` in
  // the path starts a fragment, which a request target may not carry (RFC 9112 §3.2):
  // the router takes all that follows it, the query joined on included, for one odd
  // query, so the parameters in the query were not really sent.
  const read = c.params.filter((p) => {
    const inQuery = p.inQuery || c.body === 'none';
    return inQuery ? !c.path.includes('#') : c.method !== 'GET';
  });
  return missing !== undefined && read.some((p) => p.name === missing) ? `'${missing}' was sent, yet reported missing` : undefined;
}

// ---------------------------------------------------------------------------------------
// The route table, as the gateway builds it

export type HttpEndpoint = Endpoint & { http: NonNullable<Endpoint['http']> };

export interface FuzzRoute {
  method: string;
  /** As the contract writes it, path parameters in braces. */
  path: string;
  endpoint: HttpEndpoint;
  /** Every name the route accepts: the schema's and the wire's legacy names. */
  names: string[];
  pathParams: string[];
}

export const fuzzRoutes: readonly FuzzRoute[] = httpEndpoints.flatMap((endpoint) =>
  [endpoint.http.path, ...(endpoint.http.aliases ?? [])].map((path) => ({
    method: endpoint.http.method,
    path,
    endpoint,
    names: [...new Set([...Object.keys((endpoint.params as ZodObject).shape), ...Object.keys(endpoint.http.wireNames ?? {})])],
    pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  })),
);

type Kind = 'text' | 'integer' | 'boolean' | 'json' | 'other';

/** A parameter's type, so that plausible values sometimes get past validation. */
export function kindOfParam(route: FuzzRoute, name: string): Kind {
  const shape = (route.endpoint.params as ZodObject).shape as Record<string, ZodType>;
  const schema = shape[route.endpoint.http.wireNames?.[name] ?? name];
  if (!schema) return 'other';
  let def = (schema as unknown as { _zod: { def: { type: string; innerType?: ZodType } } })._zod.def;
  while (def.innerType) def = (def.innerType as unknown as { _zod: { def: typeof def } })._zod.def;
  if (def.type === 'number' || def.type === 'int') return 'integer';
  if (def.type === 'boolean') return 'boolean';
  if (['array', 'object', 'record', 'tuple'].includes(def.type)) return 'json';
  return def.type === 'string' || def.type === 'enum' || def.type === 'literal' ? 'text' : 'other';
}

// ---------------------------------------------------------------------------------------
// Values

/** JSON text nested `depth` levels, alternating arrays and objects. */
export const nested = (depth: number, leaf = '1') => {
  let text = leaf;
  for (let i = 0; i < depth; i++) text = i % 2 ? `{"a":${text}}` : `[${text}]`;
  return text;
};

/** Wire values anything may receive: huge, empty, unicode, NUL bytes, wrong types, bad JSON. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(20_000), 'é'.repeat(70_000)) },
  { weight: 15, arbitrary: fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.constantFrom(
    '', ' ', 'true', 'false', 'null', '[]', '{}', '""', '-1', '0', '1e309', 'NaN', 'Infinity', '9007199254740993', '0x10', '1.5', '\u0000', 'a\u0000b',
    '\ud800', '\udfff\ud800', '\u202e', '🏳️‍🌈'.repeat(30), '[1,', '{"a":', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '[null]', '[[]]', '[{}]',
    'newest', 'oldest', 'first_unread', 'stream', 'private', 'direct', 'channel', 'add', 'remove', 'read', 'starred',
  ),
  fc.json(),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 5 }).map((a) => JSON.stringify(a)),
  fc.constantFrom(nested(33), nested(200), nested(3000), '['.repeat(5000)),
  ) },
);

const narrow = fc
  .array(
    fc.oneof(
      fc.record(
        { operator: fc.constantFrom('channel', 'stream', 'topic', 'dm', 'sender', 'search', 'is', 'has', 'id', 'near', 'with', 'pm-with', 'bogus', 'CHANNEL'), operand: fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer())), negated: fc.boolean() },
        { requiredKeys: [] },
      ),
      fc.tuple(fc.constantFrom('channel', 'topic', 'is', 'search'), fc.string()),
    ),
    { maxLength: 3 },
  )
  .map((n) => JSON.stringify(n));

const groupSetting = fc
  .oneof(
    fc.integer({ min: -2, max: 12 }),
    fc.record({ direct_members: fc.array(fc.oneof(fc.integer({ min: -1, max: 20 }), fc.string()), { maxLength: 3 }), direct_subgroups: fc.array(fc.integer({ min: -1, max: 12 }), { maxLength: 3 }) }, { requiredKeys: [] }),
  )
  .chain((value) => fc.oneof(fc.constant(value), fc.record({ new: fc.constant(value), old: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constant(value)) }, { requiredKeys: [] })))
  .map((v) => JSON.stringify(v));

export interface FuzzContext {
  /** Ids of objects that exist: users, channels, messages. */
  ids: number[];
  idsByKind: Record<'user' | 'channel' | 'message', number[]>;
  /** Event queues that exist, and names of channels that do. */
  queueIds: string[];
  channelNames: string[];
  emails: string[];
}

/**
 * Plausible values by parameter name: the fuzzer learns nothing from a request refused
 * for a missing or misspelt argument, so some values should pass validation and reach
 * the handlers. Names not here get values by their schema's type.
 */
function plausibleByName(ctx: FuzzContext): Record<string, fc.Arbitrary<string>> {
  const id = fc.oneof(fc.constantFrom(...ctx.ids), fc.integer({ min: -5, max: 60 })).map(String);
  const ids = (pool: readonly number[]) =>
    fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 60 }) }), { maxLength: 4 }).map((a) => JSON.stringify(a));
  const channel = fc.oneof(fc.constantFrom(...ctx.channelNames), fc.string({ maxLength: 70 }));
  const settings = Object.fromEntries(
    ['can_add_subscribers_group', 'can_remove_subscribers_group', 'can_administer_channel_group', 'can_delete_any_message_group', 'can_delete_own_message_group', 'can_move_messages_out_of_channel_group', 'can_move_messages_within_channel_group', 'can_send_message_group'].map((n) => [n, groupSetting]),
  );
  return {
    ...settings,
    narrow,
    anchor: fc.oneof(fc.constantFrom('newest', 'oldest', 'first_unread', 'date'), fc.constantFrom(...ctx.idsByKind.message).map(String), id),
    num_before: fc.integer({ min: -2, max: 6000 }).map(String),
    num_after: fc.integer({ min: -2, max: 6000 }).map(String),
    type: fc.constantFrom('stream', 'channel', 'private', 'direct'),
    to: fc.oneof({ weight: 3, arbitrary: channel }, ids(ctx.idsByKind.user), fc.constantFrom(...ctx.emails).map((e) => JSON.stringify([e])), id),
    topic: fc.string({ maxLength: 70 }),
    subject: fc.string({ maxLength: 70 }),
    topic_name: fc.string({ maxLength: 70 }),
    content: fc.oneof(fc.lorem({ maxCount: 12 }), fc.string({ minLength: 1, maxLength: 200 }), fc.constantFrom('@**all**', '@**Mark Member**', '#**general**', '```\ncode', '<script>x</script>', '||spoiler||', ':smile:', '<time:2024-01-01T00:00:00Z>')),
    messages: ids(ctx.idsByKind.message),
    message_ids: ids(ctx.idsByKind.message),
    principals: fc.oneof(ids(ctx.idsByKind.user), fc.constantFrom(...ctx.emails).map((e) => JSON.stringify([e]))),
    subscriptions: fc
      .array(fc.oneof(channel.map((name) => ({ name })), fc.record({ name: channel, description: fc.string({ maxLength: 30 }) }, { requiredKeys: [] })), { maxLength: 3 })
      .map((a) => JSON.stringify(a)),
    op: fc.constantFrom('add', 'remove'),
    flag: fc.constantFrom('read', 'starred', 'mentioned', 'wildcard_mentioned', 'collapsed'),
    emoji_name: fc.constantFrom('smile', 'thumbs_up', '+1', 'zulip', 'no_such_emoji', ''),
    emoji_code: fc.constantFrom('1f642', '1f44d', 'zulip', 'zzzz', ''),
    reaction_type: fc.constantFrom('unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'),
    visibility_policy: fc.integer({ min: -1, max: 4 }).map(String),
    propagate_mode: fc.constantFrom('change_one', 'change_later', 'change_all'),
    topics_policy: fc.constantFrom('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'),
    queue_id: fc.oneof(fc.constantFrom(...(ctx.queueIds.length ? ctx.queueIds : ['none'])), fc.string({ maxLength: 40 })),
    last_event_id: fc.integer({ min: -2, max: 50 }).map(String),
    event_types: fc.array(fc.constantFrom('message', 'stream', 'subscription', 'reaction', 'heartbeat', 'update_message', 'delete_message'), { maxLength: 4 }).map((a) => JSON.stringify(a)),
    fetch_event_types: fc.array(fc.constantFrom('message', 'stream', 'subscription', 'realm_user'), { maxLength: 3 }).map((a) => JSON.stringify(a)),
    username: fc.oneof(fc.constantFrom(...ctx.emails), fc.emailAddress()),
    token: fc.oneof(fc.string(), fc.constant('eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6Im1lbWJlckBleGFtcGxlLmNvbSJ9.AAAA')),
    message_retention_days: fc.oneof(fc.constantFrom('unlimited', 'realm_default', 'forever'), fc.integer({ min: -3, max: 40000 }).map(String)),
    anchor_date: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.string({ maxLength: 12 })),
  };
}

/**
 * Ids of the kind a parameter's name suggests (`message_id`, `stream_id`, `user_id`), so
 * that a path or integer parameter names an object of the right kind more often than not.
 */
export function idsFor(name: string, ctx: FuzzContext): readonly number[] {
  const kind = /message/.test(name) ? 'message' : /stream|channel/.test(name) ? 'channel' : /user|principal/.test(name) ? 'user' : undefined;
  return kind ? ctx.idsByKind[kind] : ctx.ids;
}

/** A value that looks right for a parameter: by its name where known, else by its type. */
export function tameValue(route: FuzzRoute, name: string, ctx: FuzzContext, byName = plausibleByName(ctx)): fc.Arbitrary<string> {
  const kind = kindOfParam(route, name);
  const byType =
    kind === 'integer'
      ? fc.constantFrom(...idsFor(name, ctx)).map(String)
      : kind === 'boolean'
        ? fc.constantFrom('true', 'false')
        : kind === 'json'
          ? fc.array(fc.constantFrom(...ctx.ids)).map((a) => JSON.stringify(a))
          : fc.string({ maxLength: 30 });
  return byName[name] ?? byType;
}

/** A value for a parameter: hostile, plausible by name, or of its type but wrong. */
export function valueFor(route: FuzzRoute, name: string, ctx: FuzzContext, byName = plausibleByName(ctx)): fc.Arbitrary<string> {
  const kind = kindOfParam(route, name);
  const wrongish =
    kind === 'integer'
      ? fc.oneof(fc.constantFrom(...ctx.ids), fc.integer({ min: -3, max: 100 }), fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53)).map(String)
      : kind === 'boolean'
        ? fc.constantFrom('true', 'false', 'True', 'FALSE', '1', '0', '', 'yes', 'null')
        : kind === 'json'
          ? fc.oneof(fc.json({ maxDepth: 3 }), fc.array(fc.constantFrom(...ctx.ids)).map((a) => JSON.stringify(a)))
          : fc.string({ maxLength: 30 });
  return fc.oneof({ weight: 2, arbitrary: tameValue(route, name, ctx, byName) }, { weight: 1, arbitrary: wrongish }, { weight: 2, arbitrary: hostileValue });
}

/** Parameter names nobody declared: prototype keys, empty, unicode, long, bracketed. */
export const hostileName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '', ' ', '\u0000', 'a\u0000b', 'ünïcødé', '🙂', 'x'.repeat(5000), 'a[b]', 'a[]', 'a.b', '%zz', '=', '&', 'api_key', 'result', 'msg'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

// ---------------------------------------------------------------------------------------
// Fuzz cases

export type Actor = 'owner' | 'admin' | 'member' | 'guest' | 'bot';
export type AuthChoice =
  | { kind: 'actor'; actor: Actor }
  | { kind: 'none' }
  | { kind: 'wrong-key'; actor: Actor }
  | { kind: 'raw'; headers: readonly string[] };

export const authChoice: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<Actor>('owner', 'admin', 'member', 'guest', 'bot').map((actor) => ({ kind: 'actor' as const, actor })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constantFrom<Actor>('member', 'owner').map((actor) => ({ kind: 'wrong-key' as const, actor })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Basic',
          'Basic ',
          'Basic !!!not-base64!!!',
          `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
          `Basic ${Buffer.from(':key-without-email').toString('base64')}`,
          `Basic ${Buffer.from('member@example.com:').toString('base64')}`,
          `Basic ${Buffer.from('ünïcødé@example.com:clé').toString('base64')}`,
          `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}`,
          'Basic ünïcødé',
          'Basic ====',
          'Basic QQ',
          `Basic ${'A'.repeat(100_000)}`,
          'Bearer abc',
          'basic bWVtYmVyQGV4YW1wbGUuY29tOng=',
          'Digest username="x"',
          '',
        ),
        fc.string({ maxLength: 40 }).map((s) => `Basic ${s}`),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      )
      // CR, LF and NUL would end the header early: the value is fuzzed, not the framing.
      .map((value) => value.replace(/[\r\n\u0000]/g, ''))
      .chain((value) => fc.constantFrom([value], [value, value], [value, 'Basic eA==']))
      .map((headers) => ({ kind: 'raw' as const, headers })),
  },
);

export type BodyKind =
  | 'none'
  | 'form'
  | 'form-garbage'
  | 'multipart'
  | 'multipart-no-boundary'
  | 'multipart-broken'
  | 'json'
  | 'json-not-object'
  | 'json-invalid'
  | 'json-deep'
  | 'wrong-type'
  | 'empty';

export interface FuzzCase {
  /** Whether the case was made to get past validation (see fuzzCase). */
  tame: boolean;
  method: string;
  /** Path under /api/v1, as it goes on the wire. */
  path: string;
  /** Parameters, duplicates allowed, and where each goes. */
  params: { name: string; value: string; inQuery: boolean; asJson: boolean }[];
  /** Raw text appended to the query string. */
  queryTail: string;
  body: BodyKind;
  contentType: string | undefined;
  /** Bytes for the bodies that are not made of the parameters. */
  garbage: string;
  auth: AuthChoice;
  userAgent: string | undefined;
}

const pathSegment = (name: string, ctx: FuzzContext): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...idsFor(name, ctx)).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: -10, max: 200 }).map(String) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom('0', '-1', '00001', '1.0', '1e3', '9007199254740993', '99999999999999999999999', 'me', 'null', 'undefined', 'NaN', ' 1', '1%20', '%31', '%00', '%zz', '%', '%E0%A4%A', '%FF%FE', '%C0%AF', '..', '.', '%2e%2e', '%2F', 'ünïcødé', '🙂', 'x'.repeat(101), '1'.repeat(100), '1'.repeat(101), ';', ':id', '{user_id}', '[]', '1?x=1', '1#frag', ''),
        fc.string({ maxLength: 12 }).map(percentEncode),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
        fc.integer({ min: 20, max: 400 }).map((n) => '9'.repeat(n)),
      ),
    },
  );

/** Whole-path mutations: trailing and doubled slashes, dot segments, case, encoded separators. */
const pathMutation = fc.oneof(
  { weight: 10, arbitrary: fc.constant((p: string) => p) },
  { weight: 3, arbitrary: fc.constantFrom<(p: string) => string>(
  (p) => `${p}/`,
  (p) => p.replace('/', '//'),
  (p) => `${p}/..`,
  (p) => `/./${p.slice(1)}`,
  (p) => p.toUpperCase(),
  (p) => p.replace(/\//g, '%2F'),
  (p) => `${p}%`,
  (p) => `${p}/extra`,
  (p) => `${p};jsessionid=1`,
  (p) => `${p}\u00e9`,
  ) },
);

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'];

/** Whether the schema lets a parameter be left out. */
function isOptional(route: FuzzRoute, name: string): boolean {
  const schema = ((route.endpoint.params as ZodObject).shape as Record<string, ZodType>)[name];
  return !schema || schema.safeParse(undefined).success;
}

/**
 * A case for one route. Half are tame (the route's own method and path with ids that
 * exist, a real caller, a well-formed body, each of the schema's parameters present as
 * often as it is required, mostly plausible values) so that the handlers and deciders
 * are reached; the other half are wild (anything above, hostile names, broken bodies,
 * mutated paths, bad credentials) and mostly test the gateway.
 */
export function fuzzCase(route: FuzzRoute, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.oneof(tameCase(route, ctx), wildCase(route, ctx));
}

const placed = <T extends { name: string; value: string }>(p: fc.Arbitrary<T>) =>
  fc.tuple(p, fc.boolean(), fc.boolean()).map(([q, inQuery, asJson]) => ({ name: q.name, value: q.value, inQuery, asJson }));

function substitute(route: FuzzRoute, segment: (name: string) => fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(...route.pathParams.map(segment)).map((segments) => {
    let i = 0;
    return route.path.replace(/\{\w+\}/g, () => segments[i++]!);
  });
}

function tameCase(route: FuzzRoute, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const byName = plausibleByName(ctx);
  const inPath = new Set(route.pathParams.map((p) => route.endpoint.http.wireNames?.[p] ?? p));
  const schemaNames = Object.keys((route.endpoint.params as ZodObject).shape).filter((n) => !inPath.has(n));
  const wireNames = Object.entries(route.endpoint.http.wireNames ?? {});
  const one = (name: string) => {
    const spellings = [name, ...wireNames.filter(([, target]) => target === name).map(([wire]) => wire)];
    const present = fc.tuple(fc.constantFrom(...spellings), tameValue(route, name, ctx, byName)).map(([wire, value]) => ({ name: wire, value }));
    // Optional ones are sent now and then: each is one more chance of a refusal that hides the rest.
    // Those with a value made for them (num_before, narrow) more often than the rest.
    const absent = !isOptional(route, name) ? 1 : byName[name] && !name.endsWith('_group') ? 24 : 36;
    return fc.oneof({ weight: 12, arbitrary: present }, { weight: absent, arbitrary: fc.constant(undefined) });
  };
  // At most one value is hostile: a case with several bad values only ever tests the first.
  const params = fc
    .tuple(fc.tuple(...schemaNames.map(one)), fc.boolean(), fc.boolean(), fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(fc.noBias(fc.nat()), hostileValue) }))
    .map(([all, inQuery, asJson, spoil]) => {
      const present = all.filter((p) => p !== undefined).map((p) => ({ ...p, inQuery, asJson }));
      if (spoil && present.length) present[spoil[0] % present.length]!.value = spoil[1];
      return present;
    });
  return fc.record({
    tame: fc.constant(true),
    method: fc.constant(route.method),
    path: substitute(route, (name) => fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...idsFor(name, ctx)).map(String) }, { weight: 1, arbitrary: pathSegment(name, ctx) })),
    params,
    queryTail: fc.constant(''),
    body: route.method === 'GET' ? fc.constant<BodyKind>('none') : fc.constantFrom<BodyKind>('none', 'form', 'form', 'multipart', 'json'),
    contentType: fc.constant(undefined),
    garbage: fc.constant(''),
    auth: fc.constantFrom<Actor>('owner', 'admin', 'member', 'member', 'guest', 'bot').map((actor) => ({ kind: 'actor' as const, actor })),
    userAgent: fc.constant(undefined),
  });
}

function wildCase(route: FuzzRoute, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const byName = plausibleByName(ctx);
  const named = fc.constantFrom(...(route.names.length ? route.names : ['none'])).chain((name) => valueFor(route, name, ctx, byName).map((value) => ({ name, value })));
  const unnamed = fc.record({ name: hostileName, value: hostileValue });
  const param = placed(fc.oneof({ weight: 3, arbitrary: named }, { weight: 1, arbitrary: unnamed }));
  // A parameter repeated with another value (the last one wins, as in Django).
  const params = fc
    .array(param, { maxLength: 7 })
    .chain((ps) => (ps.length ? fc.oneof({ weight: 3, arbitrary: fc.constant(ps) }, { weight: 1, arbitrary: hostileValue.map((value) => [...ps, { ...ps[0]!, value }]) }) : fc.constant(ps)));
  const path = fc.tuple(substitute(route, (name) => pathSegment(name, ctx)), pathMutation).map(([p, mutate]) => mutate(p));
  const method = fc.oneof({ weight: 6, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });
  const body = fc.constantFrom<BodyKind>('none', 'form', 'form', 'form-garbage', 'multipart', 'multipart-no-boundary', 'multipart-broken', 'json', 'json', 'json-not-object', 'json-invalid', 'json-deep', 'wrong-type', 'empty');
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/octet-stream',
        'garbage',
        '',
        ';;;',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'application/x-www-form-urlencoded; charset=utf-16',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary="unterminated',
        'multipart/mixed; boundary=x',
        'application/json, application/x-www-form-urlencoded',
        'ünïcødé/type',
      ),
    },
  );
  const queryTail = fc.oneof(
    { weight: 12, arbitrary: fc.constant('') },
    { weight: 3, arbitrary: fc.constantFrom('&', '&&=&', '=x', '%zz=%zz', 'a[b]=c', 'a[][]=1', '__proto__[x]=1', 'constructor[prototype][x]=1', '%00=%00', 'x', ';a=b', '?', 'narrow=%5B') },
    { weight: 1, arbitrary: fc.constant(`q=${'y'.repeat(300_000)}`) },
  );
  const userAgent = fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'ZulipMobile/27.1 (Android)', 'ünïcødé/1.0', '/', 'x'.repeat(3000)) },
  );
  return fc.record({
    tame: fc.constant(false),
    method,
    path,
    params,
    queryTail,
    body,
    contentType,
    garbage: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('<xml/>', '\u0000\u0001\u0002', '--x\r\nContent-Disposition: form-data\r\n\r\n', '{"a":1}', 'a=1&b=2')),
    auth: authChoice,
    userAgent,
  });
}

// ---------------------------------------------------------------------------------------
// From a case to bytes

/**
 * Percent-encoding as encodeURIComponent does, except that a lone surrogate (which it
 * refuses) becomes the three bytes a careless client would send for it: invalid UTF-8.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

const encodePairs = (pairs: { name: string; value: string }[]) => pairs.map((p) => `${percentEncode(p.name)}=${percentEncode(p.value)}`).join('&');

/** Text that is the value's JSON when it is JSON, else the text itself. */
function jsonValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A file part is not a parameter (Django keeps files apart from POST), so one is sent now and then. */
const hasFilePart = (c: FuzzCase) => c.body.startsWith('multipart') && c.garbage.length % 3 === 1;

function multipartBody(boundary: string, pairs: { name: string; value: string }[], asFile: boolean): Buffer {
  const parts = pairs.map((p, i) => {
    const file = asFile && i === 0 ? `; filename="f${i}.txt"\r\nContent-Type: application/octet-stream` : '';
    return `--${boundary}\r\nContent-Disposition: form-data; name="${p.name.replace(/["\r\n]/g, '_')}"${file}\r\n\r\n${p.value}\r\n`;
  });
  return Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8');
}

/** A replaced Authorization header value, per actor. */
export interface Credentials {
  basic(actor: Actor, wrongKey?: boolean): string;
}

export function toRawRequest(c: FuzzCase, credentials: Credentials, options: { longPoll: boolean; queueIds: readonly string[] }): RawRequest {
  const headers: [string, string][] = [];
  switch (c.auth.kind) {
    case 'actor':
      headers.push(['Authorization', credentials.basic(c.auth.actor)]);
      break;
    case 'wrong-key':
      headers.push(['Authorization', credentials.basic(c.auth.actor, true)]);
      break;
    case 'raw':
      for (const value of c.auth.headers) headers.push(['Authorization', value]);
      break;
  }
  if (c.userAgent !== undefined) headers.push(['User-Agent', c.userAgent.replace(/[\r\n\u0000]/g, '')]);

  let params = c.params;
  // A long-poll on a real queue holds the request for a heartbeat (2 s in tests), and so
  // does one without a queue id (it registers a queue); the fuzzer wants its answer now,
  // so it asks not to block, once and in the query.
  const registers = c.method === 'GET' && c.path === '/events' && !params.some((p) => p.name === 'queue_id');
  const realQueue = options.longPoll && (registers || params.some((p) => options.queueIds.includes(p.value)));
  if (realQueue) params = [...params.filter((p) => p.name !== 'dont_block'), { name: 'dont_block', value: 'true', inQuery: true, asJson: false }];
  const query = params.filter((p) => p.inQuery || c.body === 'none');
  const inBody = params.filter((p) => !(p.inQuery || c.body === 'none'));
  const queryText = [encodePairs(query), c.queryTail].filter(Boolean).join('&');
  // CR, LF and NUL would end the request line early: the path is fuzzed, not the framing.
  const path = c.path.replace(/[\r\n\u0000]/g, (ch) => encodeURIComponent(ch));
  // A fuzzed path may carry a query of its own (`1?x=1`): the parameters join it rather
  // than open a second `?`, which would make them part of its last value.
  const target = `/api/v1${path}${queryText ? `${path.includes('?') ? '&' : '?'}${queryText}` : ''}`;

  let body: Buffer | undefined;
  let contentType: string | undefined;
  switch (c.body) {
    case 'none':
      break;
    case 'form':
      contentType = 'application/x-www-form-urlencoded';
      body = Buffer.from(encodePairs(inBody));
      break;
    case 'form-garbage':
      contentType = 'application/x-www-form-urlencoded';
      body = Buffer.from(`${encodePairs(inBody)}&${c.garbage}&%zz&=&%`);
      break;
    case 'multipart':
    case 'multipart-no-boundary':
    case 'multipart-broken': {
      const boundary = 'fuzz-boundary-7d1e';
      contentType = c.body === 'multipart-no-boundary' ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`;
      const whole = multipartBody(boundary, inBody, hasFilePart(c));
      body = c.body === 'multipart-broken' ? Buffer.concat([whole.subarray(0, Math.floor(whole.length / 2)), Buffer.from(c.garbage)]) : whole;
      break;
    }
    case 'json': {
      contentType = 'application/json';
      const object: Record<string, unknown> = {};
      for (const p of inBody) object[p.name] = p.asJson ? jsonValue(p.value) : p.value;
      body = Buffer.from(JSON.stringify(object));
      break;
    }
    case 'json-not-object':
      contentType = 'application/json';
      body = Buffer.from(JSON.stringify(inBody.length % 2 ? inBody.map((p) => p.value) : (inBody[0]?.value ?? null)));
      break;
    case 'json-invalid':
      contentType = 'application/json';
      body = Buffer.from(`{"${inBody[0]?.name ?? 'a'}": ${c.garbage}`);
      break;
    case 'json-deep':
      contentType = 'application/json';
      body = Buffer.from(`{"${inBody[0]?.name ?? 'narrow'}":${nested(c.garbage.length % 2 ? 40 : 20_000)}}`);
      break;
    case 'wrong-type':
      contentType = 'text/plain';
      body = Buffer.from(c.garbage || encodePairs(inBody));
      break;
    case 'empty':
      contentType = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'][c.garbage.length % 3];
      body = Buffer.alloc(0);
      break;
  }
  if (c.contentType !== undefined) contentType = c.contentType;
  if (contentType !== undefined) headers.push(['Content-Type', contentType.replace(/[\r\n\u0000]/g, '')]);
  return { method: c.method, target, headers, ...(body ? { body } : {}) };
}
