/**
 * Every JSON reply the test Client receives (harness.ts) is checked against the OpenAPI
 * description the server publishes (services/gateway/src/openapi): a success against its
 * route's 200 schema, an error against the error envelope. Each route's part of the
 * description is generated and compiled (ajv, JSON Schema 2020-12) on first use, from the
 * same generator that serves /api/v1/openapi.json, so a reply the description does not
 * admit fails the test that got it, in the embedded and the distributed suites alike.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_PREFIX, openApiDocument, routes, type Route } from '@teamchat/gateway';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** The path a route is served at, as a pattern; routes with fewer parameters first (a literal segment wins). */
const patterns = routes
  .map((route) => {
    const at = (route.endpoint.http?.files === 'download' ? '' : API_PREFIX) + route.url;
    const params = (at.match(/:\w+/g) ?? []).length;
    return { route, params, pattern: new RegExp(`^${at.replace(/[.]/g, '\\.').replace(/:\w+/g, '[^/]+')}/?$`) };
  })
  .sort((a, b) => a.params - b.params);

const successChecks = new Map<Route, ValidateFunction | null>();
let errorCheck: ValidateFunction | undefined;

function successCheckOf(route: Route): ValidateFunction | null {
  if (!successChecks.has(route)) {
    const doc = openApiDocument([route]);
    const operation = Object.values(doc.paths)[0]![route.method.toLowerCase()] as { responses: Record<string, { content?: Record<string, { schema: object }> }> };
    const schema = operation.responses['200']?.content?.['application/json']?.schema;
    successChecks.set(route, schema ? ajv.compile(schema) : null);
  }
  return successChecks.get(route)!;
}

/** The web client's paths are the API's under /json. */
const apiPathOf = (pathname: string) => pathname.replace(/^\/json(?=\/)/, API_PREFIX);

/**
 * What in `body` (the reply to `method url` with `status`) the description does not admit;
 * empty when it does, or when the description has nothing to say (a path no route serves).
 */
export function openApiViolations(method: string, url: string, status: number, body: unknown): string[] {
  const pathname = apiPathOf(new URL(url).pathname);
  let check: ValidateFunction | null | undefined;
  if (status >= 400) {
    if (!pathname.startsWith(`${API_PREFIX}/`)) return [];
    errorCheck ??= ajv.compile((openApiDocument([]).components as { schemas: { Error: object } }).schemas.Error);
    check = errorCheck;
  } else if (status === 200) {
    const found = patterns.find((p) => p.route.method === method && p.pattern.test(pathname));
    if (!found) return [];
    check = successCheckOf(found.route);
  }
  if (!check || check(body)) return [];
  return (check.errors ?? []).map((e) => `${e.instancePath || '(reply)'} ${e.message ?? ''}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
}
