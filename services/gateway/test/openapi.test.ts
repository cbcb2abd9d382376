import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { endpoints, ERROR_CODES } from '@teamchat/contracts';
import { openApiDocument, type OpenApiDocument } from '../src/openapi/document';
import { API_PREFIX, routes, type Route } from '../src/routes';

/** The maintained validator's verdict (run in a child: it is an ES module jest cannot load). */
function validate(doc: unknown): { valid: boolean; version: string; errors: unknown[] } {
  const run = spawnSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], { input: JSON.stringify(doc), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const shape = (path: string) => path.replace(/\{\w+\}/g, '{}');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Where a route is served: downloads at the root, the rest under /api/v1. */
const servedAt = (route: Route) => (route.endpoint.http?.files === 'download' ? '' : API_PREFIX) + route.url.replace(/:(\w+)/g, '{$1}');

function operations(doc: OpenApiDocument): { key: string; method: string; op: Record<string, any> }[] {
  return Object.entries(doc.paths).flatMap(([key, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ key, method: method.toUpperCase(), op: op as Record<string, any> })),
  );
}

function operation(doc: OpenApiDocument, method: string, path: string): Record<string, any> {
  const found = operations(doc).find((o) => o.method === method && shape(o.key) === shape(path));
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found.op;
}

describe('the OpenAPI description', () => {
  const doc = openApiDocument();

  it('is a valid OpenAPI 3.1 document by a maintained validator, which refuses a broken one', () => {
    const verdict = validate(doc);
    expect(verdict.errors).toEqual([]);
    expect(verdict).toMatchObject({ valid: true, version: '3.1' });
    // The validator can fail: a parameter in the request body is OpenAPI 2's, not 3.1's.
    const broken = structuredClone(doc) as OpenApiDocument;
    (broken.paths['/api/v1/messages/{message_id}']!.get!.parameters as { in: string }[])[0]!.in = 'body';
    expect(validate(broken).valid).toBe(false);
  });

  it('has every route of the route table, and nothing else', () => {
    const fromTable = routes.map((r) => `${r.method} ${shape(servedAt(r))}`).sort();
    const described = operations(doc).map((o) => `${o.method} ${shape(o.key)}`).sort();
    expect(described).toEqual(fromTable);
    // Each route is the operation of its own contract (by bus subject).
    for (const route of routes) {
      const op = operation(doc, route.method, servedAt(route));
      expect(op['x-bus-subject']).toBe(route.endpoint.subject);
    }
  });

  it('marks aliases and keeps operation ids unique', () => {
    const ids = operations(doc).map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/fetch_api_key/dev']!.post).toMatchObject({ 'x-alias-of': '/dev_fetch_api_key', 'x-bus-subject': endpoints.accounts.devFetchApiKey.subject });
  });

  it('gives parameters their wire names and encodings', () => {
    const send = operation(doc, 'POST', '/api/v1/messages');
    const form = send.requestBody.content['application/x-www-form-urlencoded'];
    // Zulip's legacy name is a parameter of its own, saying which it stands for.
    expect(form.schema.properties.subject.description).toMatch(/`topic`/);
    expect(form.schema.required).toEqual(expect.arrayContaining(['type', 'to', 'content']));
    // A JSON-valued query parameter is described as JSON content; a path parameter as a plain one.
    const narrow = operation(doc, 'GET', '/api/v1/messages').parameters.find((p: any) => p.name === 'narrow');
    expect(narrow).toMatchObject({ in: 'query', content: { 'application/json': { schema: { type: 'array' } } } });
    expect(operation(doc, 'GET', '/api/v1/messages/{message_id}').parameters[0]).toMatchObject({ name: 'message_id', in: 'path', required: true, schema: { type: 'integer' } });
    // A JSON-valued body parameter has an encoding of application/json.
    const subscribe = operation(doc, 'POST', '/api/v1/users/me/subscriptions').requestBody.content['application/x-www-form-urlencoded'];
    expect(subscribe.encoding.subscriptions).toEqual({ contentType: 'application/json' });
    // A parameter the server reads from a header is that header.
    expect(operation(doc, 'GET', '/api/v1/server_settings').parameters).toContainEqual(expect.objectContaining({ name: 'user-agent', in: 'header' }));
    // An upload is multipart with its file.
    expect(operation(doc, 'POST', '/api/v1/user_uploads').requestBody.content['multipart/form-data'].schema.required).toContain('file');
  });

  it('describes the replies, the error envelope with every code, and who may call', () => {
    const reply = operation(doc, 'GET', '/api/v1/messages').responses['200'].content['application/json'].schema;
    // The members the service sends pre-serialized are in the reply too.
    expect(reply.required).toEqual(expect.arrayContaining(['result', 'msg', 'messages']));
    expect((doc.components as any).schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
    // /api/v1 takes an API key; the same endpoint under /json the session, and its CSRF token on a write.
    expect(operation(doc, 'GET', '/api/v1/messages')).toMatchObject({ security: [{ basicAuth: [] }], 'x-web-client': { path: '/json/messages', security: [{ sessionCookie: [] }] } });
    expect(operation(doc, 'POST', '/api/v1/messages')['x-web-client']).toEqual({ path: '/json/messages', security: [{ sessionCookie: [], csrfToken: [] }] });
    // A public endpoint needs nothing; the own-API-key endpoints are not under /json.
    expect(operation(doc, 'POST', '/api/v1/dev_fetch_api_key')).toMatchObject({ security: [] });
    expect(operation(doc, 'POST', '/api/v1/dev_fetch_api_key')['x-web-client']).toBeUndefined();
    // Downloads are at the root, with an API key or the web session.
    expect(operation(doc, 'GET', '/user_uploads/{realm_id}/{dir}/{key}/{filename}')).toMatchObject({ security: [{ basicAuth: [] }, { sessionCookie: [] }], 'x-bus-subject': expect.any(String) });
    expect(operation(doc, 'GET', '/user_uploads/{realm_id}/{dir}/{key}/{filename}').responses['200'].content['*/*']).toBeDefined();
    // The blobs a delete removed are never shown.
    expect(operation(doc, 'DELETE', '/api/v1/attachments/{attachment_id}').responses['200'].content['application/json'].schema.properties.removed_blobs).toBeUndefined();
  });
});
