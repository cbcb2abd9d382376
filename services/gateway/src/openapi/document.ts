/**
 * The API's OpenAPI 3.1 description, generated from the route table (routes/index.ts) and
 * so from the endpoint contracts: nothing in it is written by hand but the prose. Served at
 * GET /api/v1/openapi.json and rendered at /api/docs (docs-page.ts).
 *
 * What it expresses: every route of the table (method, path, the path's aliases as
 * operations of their own marked `x-alias-of`), where it is served (paths are absolute:
 * /api/v1 with an API key over HTTP Basic; downloads at the root, with an API key or the
 * web session; `x-web-client` names the same endpoint under /json, with the session
 * cookie and, for any method but GET, its X-CSRFToken, absent for endpoints that answer
 * the caller's own API key), each parameter under every name the wire accepts (Zulip's
 * legacy names as parameters of their own, saying which they stand for), how each is
 * encoded (GET and DELETE: the query string; other methods: a form-encoded body, or
 * multipart for an upload; arrays and objects are JSON text, an OpenAPI `content` or
 * `encoding` of application/json; a union is JSON text unless a plain string), parameters
 * read from headers (User-Agent), the reply's members (the contract's reply, members the
 * service sends pre-serialized, and the envelope's `result`, `msg` and
 * `ignored_parameters_unsupported`), and the error envelope with every error code.
 *
 * What it does not: checks zod makes in code (refine, superRefine, transforms), so a value
 * the description allows may still be refused with a 400; which error codes each endpoint
 * can answer (every operation points to the one envelope); rate limits and body limits
 * (`x-body-limit` where a contract sets one); and the events a queue delivers (GET /events
 * describes its `events` as the contract does).
 */
import { ERROR_CODES, ZULIP_FEATURE_LEVEL, ZULIP_VERSION, type Endpoint } from '@teamchat/contracts';
import type { ZodType } from 'zod';
import { kindOf } from '../http/decode';
import { SESSION_COOKIE } from '../http/web-sessions';
import { API_PREFIX, returnsOwnApiKey, routes as routeTable, WEB_API_PREFIX, type Route } from '../routes';
import { inputSchema, membersOf, outputSchema, type JsonSchema } from './schemas';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

const JSON_TYPE = 'application/json';
const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };

/** `/users/{user_id}` and `/users/{user_id_or_email}` are one path to a router (and to OpenAPI). */
const shapeOf = (path: string) => path.replace(/\{\w+\}/g, '{}');
const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

function securityOf(endpoint: Endpoint): unknown[] {
  if (endpoint.http?.files === 'download') return [{ basicAuth: [] }, { sessionCookie: [] }];
  return endpoint.auth ? [{ basicAuth: [] }] : [];
}

/** The same endpoint for the web client (every /json route needs the session, and CSRF on writes). */
function webClientOf(endpoint: Endpoint, method: string, path: string): JsonSchema | undefined {
  if (endpoint.http?.files === 'download' || returnsOwnApiKey(endpoint)) return undefined;
  return { path: WEB_API_PREFIX + path, security: [method === 'GET' ? { sessionCookie: [] } : { sessionCookie: [], csrfToken: [] }] };
}

/** A parameter's JSON Schema with its encoding: JSON text (content) or plain text (schema). */
function parameterObject(name: string, where: 'query' | 'path', schema: JsonSchema, zod: ZodType, required: boolean, description?: string): JsonSchema {
  const kind = kindOf(zod);
  const described = { ...(description ? { description } : {}) };
  if (kind === 'json' && where === 'query') return { name, in: where, required, ...described, content: { [JSON_TYPE]: { schema } } };
  const note = kind === 'maybe-json' ? { description: [description, 'Sent as JSON text unless it is a plain string.'].filter(Boolean).join(' ') } : described;
  return { name, in: where, required, ...note, schema };
}

interface Parameters {
  path: JsonSchema[];
  /** Query or body parameters: wire name → schema, whether required, how it is encoded. */
  other: { name: string; schema: JsonSchema; zod: ZodType; required: boolean; description?: string }[];
  headers: JsonSchema[];
}

/** The endpoint's parameters by wire name, `path`'s braces naming the path parameters in this route. */
function parametersOf(endpoint: Endpoint, path: string, contractPath: string): Parameters {
  const json = inputSchema(endpoint.params);
  const { properties, required } = membersOf(json);
  const shape = endpoint.params.shape as Record<string, ZodType>;
  const http = endpoint.http!;
  const inPath = pathParams(contractPath);
  const keyNames = pathParams(path);
  const fromHeaders = http.fromHeaders ?? {};
  const wireNamesOf = new Map<string, string[]>();
  for (const [wire, name] of Object.entries(http.wireNames ?? {})) wireNamesOf.set(name, [...(wireNamesOf.get(name) ?? []), wire]);

  const result: Parameters = { path: [], other: [], headers: [] };
  inPath.forEach((name, i) => {
    const keyName = keyNames[i] ?? name;
    const schema = properties[name] ?? { type: 'string' };
    const description = keyName === name ? undefined : `\`${name}\` in this operation's contract.`;
    result.path.push(parameterObject(keyName, 'path', schema, shape[name] ?? (endpoint.params as ZodType), true, description));
  });
  for (const [name, schema] of Object.entries(properties)) {
    if (inPath.includes(name)) continue;
    if (name in fromHeaders) {
      result.headers.push({ name: fromHeaders[name], in: 'header', required: false, description: `Read by the server as the \`${name}\` parameter.`, schema: { type: 'string' } });
      continue;
    }
    if (http.files === 'upload' && name === 'file') continue;
    const legacy = wireNamesOf.get(name) ?? [];
    // With a legacy name, either name will do: neither is required on its own.
    const needed = required.has(name) && legacy.length === 0;
    const either = required.has(name) && legacy.length > 0 ? ` Required, under this name or as ${legacy.map((w) => `\`${w}\``).join(' or ')}.` : '';
    result.other.push({ name, schema, zod: shape[name]!, required: needed, ...(either ? { description: either.trim() } : {}) });
    for (const wire of legacy) {
      result.other.push({
        name: wire,
        schema,
        zod: shape[name]!,
        required: false,
        description: `Zulip's name for \`${name}\`; when both are sent, \`${name}\` wins.`,
      });
    }
  }
  return result;
}

function requestBodyOf(endpoint: Endpoint, other: Parameters['other']): JsonSchema | undefined {
  const upload = endpoint.http?.files === 'upload';
  if (other.length === 0 && !upload) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const encoding: Record<string, JsonSchema> = {};
  for (const { name, schema, zod, description } of other) {
    properties[name] = description ? { ...schema, description } : schema;
    const kind = kindOf(zod);
    if (kind === 'json') encoding[name] = { contentType: JSON_TYPE };
    if (kind === 'maybe-json') properties[name] = { ...properties[name], description: [description, 'Sent as JSON text unless it is a plain string.'].filter(Boolean).join(' ') };
  }
  const required = other.filter((p) => p.required).map((p) => p.name);
  if (upload) {
    properties.file = { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file: one file part, under any field name.' };
    required.push('file');
  }
  const schema = { type: 'object', properties, ...(required.length ? { required } : {}) };
  const media = upload ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
  return { required: required.length > 0, content: { [media]: { schema, ...(Object.keys(encoding).length ? { encoding } : {}) } } };
}

/** The success reply as sent: the contract's members, the pre-serialized ones and the envelope's. */
function successSchema(endpoint: Endpoint): JsonSchema {
  const reply = membersOf(outputSchema(endpoint.reply));
  const serialized = endpoint.serialized ? membersOf(outputSchema(endpoint.serialized)) : { properties: {}, required: new Set<string>() };
  const properties: Record<string, JsonSchema> = {
    result: { const: 'success' },
    msg: { type: 'string' },
    ...reply.properties,
    ...serialized.properties,
    ignored_parameters_unsupported: { type: 'array', items: { type: 'string' }, description: 'Parameters the request sent that this endpoint does not take.' },
  };
  const required = new Set(['result', 'msg', ...reply.required, ...serialized.required]);
  // The blobs a delete (or a replacing upload) removed are the server's business: the gateway drops them from the reply.
  if (endpoint.http?.files === 'delete' || endpoint.http?.files === 'upload') {
    delete properties.removed_blobs;
    required.delete('removed_blobs');
  }
  return { type: 'object', properties, required: [...required] };
}

function operationOf(route: Route, contractPath: string, key: string, operationId: string, alias: boolean): Operation {
  const { endpoint } = route;
  const http = endpoint.http!;
  const params = parametersOf(endpoint, key, contractPath);
  const inQuery = route.method === 'GET' || route.method === 'DELETE';
  const query = inQuery ? params.other.map((p) => parameterObject(p.name, 'query', p.schema, p.zod, p.required, p.description)) : [];
  const body = inQuery ? undefined : requestBodyOf(endpoint, params.other);
  const download = http.files === 'download';
  const web = webClientOf(endpoint, route.method, contractPath);
  return {
    operationId,
    summary: `${route.method} ${download ? '' : API_PREFIX}${contractPath}`,
    tags: [contractPath.split('/')[1] ?? ''],
    security: securityOf(endpoint),
    parameters: [...params.path, ...query, ...params.headers],
    ...(body ? { requestBody: body } : {}),
    responses: {
      '200': download
        ? { description: "The file's bytes.", content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }
        : { description: 'Success.', content: { [JSON_TYPE]: { schema: successSchema(endpoint) } } },
      default: ERROR_RESPONSE,
    },
    'x-bus-subject': endpoint.subject,
    ...(web ? { 'x-web-client': web } : {}),
    ...(alias ? { 'x-alias-of': http.path } : {}),
    ...(http.longPoll ? { 'x-long-poll': true } : {}),
    ...(http.bodyLimit !== undefined ? { 'x-body-limit': http.bodyLimit } : {}),
  };
}

const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error reply. Some codes add members of their own (`stream`, `var_name`, `queue_id`, …).',
  properties: {
    result: { const: 'error' },
    msg: { type: 'string', description: 'What went wrong, in words.' },
    code: { enum: [...ERROR_CODES] },
  },
  required: ['result', 'msg', 'code'],
};

/** The whole description; `routes` defaults to the gateway's route table. */
export function openApiDocument(routes: readonly Route[] = routeTable): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  /** The key each path's shape is filed under (the first spelling seen). */
  const keys = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const route of routes) {
    const http = route.endpoint.http!;
    const contractPath = route.url.replace(/:(\w+)/g, '{$1}');
    // Downloads are at the root, where messages link files; everything else under /api/v1.
    const absolute = (http.files === 'download' ? '' : API_PREFIX) + contractPath;
    const key = keys.get(shapeOf(absolute)) ?? absolute;
    keys.set(shapeOf(absolute), key);
    const alias = contractPath !== http.path;
    const count = seen.get(route.endpoint.subject) ?? 0;
    seen.set(route.endpoint.subject, count + 1);
    const operationId = count === 0 ? route.endpoint.subject : `${route.endpoint.subject}.${count}`;
    paths[key] ??= {};
    paths[key][route.method.toLowerCase()] = operationOf(route, contractPath, key, operationId, alias);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'teamchat API',
      version: ZULIP_VERSION,
      summary: `A Zulip-compatible API (feature level ${ZULIP_FEATURE_LEVEL}).`,
      description:
        'Generated from the endpoint contracts. Parameters travel in the query string (GET, DELETE) or a ' +
        'form-encoded body; arrays, objects and unions are JSON text. Checks the server makes in code ' +
        '(cross-field rules, limits computed at run time) are not described here: a value this description ' +
        'allows may still be refused with a 400. Under /api/v1 a request authenticates with HTTP Basic (the ' +
        'account email and its API key). The web client reaches the same endpoints under /json (each ' +
        "operation's `x-web-client` names its path there) with its session cookie, and X-CSRFToken on any " +
        'method but GET; endpoints that answer the caller\'s own API key are not under /json.',
    },
    servers: [{ url: '/', description: 'This server' }],
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'The account email as the user name, its API key as the password.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The web session, set by logging in at /login.' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRFToken', description: "The session's CSRF token, required on every /json request but GET and HEAD." },
      },
      schemas: { Error: ERROR_SCHEMA },
      responses: { Error: { description: 'An error: the envelope with its code.', content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/Error' } } } } },
    },
    paths,
  };
}
