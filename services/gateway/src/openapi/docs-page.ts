/**
 * GET /api/v1/openapi.json (the description, document.ts) and GET /api/docs (a reference
 * page rendering it with Swagger UI, the swagger-ui-dist package, pinned).
 *
 * Both are public. The description is built once, on first demand, and sent compressed with an
 * ETag; a client revalidates it after an hour. The page's scripts and style sheet are
 * files the server sends itself (from node_modules, read at start), under names carrying
 * a hash of their contents, cached for a year. Swagger UI needs no inline script and no
 * eval, so the page carries the web client's strict Content-Security-Policy: its own
 * start-up code is a file too (INIT below), not a script in the page. It is told not to
 * ask Swagger's online validator about the document (`validatorUrl: null`), so it makes
 * no request to another host.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assetOf, CONTENT_SECURITY_POLICY, IMMUTABLE, sendAsset, type Asset } from '../pages/web-client';
import { API_PREFIX } from '../routes';
import { openApiDocument } from './document';

export const OPENAPI_ROUTE = `${API_PREFIX}/openapi.json`;
export const DOCS_ROUTE = '/api/docs';
const ASSETS_ROUTE = '/api/docs/static';
/** Compressed on first demand: quality 11 would keep the first reader of the 1.7 MB bundle waiting 46 s (web-client.ts). */
const DOCS_BROTLI_QUALITY = 9;

/** The renderer's start-up: where the description is, and no online validator. */
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_ROUTE)},
    dom_id: '#docs',
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
  });
});
`;

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Swagger UI's files (by the name they are served under), or why there are none. */
function rendererFiles(): { assets: Map<string, Asset>; script: string; style: string; init: string; icon: string } | { missing: string } {
  let dir: string;
  try {
    dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  } catch {
    return { missing: 'The swagger-ui-dist package is not installed (npm ci installs it).' };
  }
  const assets = new Map<string, Asset>();
  const add = (name: string, body: Buffer) => {
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const dot = name.lastIndexOf('.');
    const hashed = `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
    assets.set(hashed, assetOf(hashed, body, DOCS_BROTLI_QUALITY));
    return `${ASSETS_ROUTE}/${hashed}`;
  };
  return {
    assets,
    script: add('swagger-ui-bundle.js', readFileSync(join(dir, 'swagger-ui-bundle.js'))),
    style: add('swagger-ui.css', readFileSync(join(dir, 'swagger-ui.css'))),
    init: add('docs-init.js', Buffer.from(INIT)),
    icon: add('favicon-32x32.png', readFileSync(join(dir, 'favicon-32x32.png'))),
  };
}

function pageHtml(files: { script: string; style: string; init: string; icon: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>teamchat API reference</title>
<link rel="stylesheet" href="${files.style}">
<link rel="icon" type="image/png" href="${files.icon}">
</head><body>
<div id="docs"><noscript>The reference needs JavaScript; the description itself is at <a href="${OPENAPI_ROUTE}">${OPENAPI_ROUTE}</a>.</noscript></div>
<script src="${files.script}"></script>
<script src="${files.init}"></script>
</body></html>
`;
}

/** Registers both routes; `onRequest` spends the caller's anonymous budget. */
export function registerApiDocs(app: FastifyInstance, onRequest: Hook): void {
  // Built on first demand (a few hundred milliseconds), not at every start.
  let built: { description: Asset; etag: string } | undefined;
  const describe = () => {
    if (built) return built;
    const body = Buffer.from(JSON.stringify(openApiDocument()));
    built = { description: assetOf('openapi.json', body, DOCS_BROTLI_QUALITY), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    return built;
  };
  app.get(OPENAPI_ROUTE, { onRequest }, (request, reply) => {
    const { description, etag } = describe();
    reply.header('Cache-Control', 'public, max-age=3600');
    reply.header('ETag', etag);
    reply.header('Access-Control-Allow-Origin', '*');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return sendAsset(request, reply, description);
  });

  // Read on first demand too: 1.7 MB a start that nobody may ask for.
  let renderer: { files: ReturnType<typeof rendererFiles>; page: Asset | undefined } | undefined;
  const render = () => {
    if (renderer) return renderer;
    const files = rendererFiles();
    renderer = { files, page: 'missing' in files ? undefined : assetOf('docs.html', Buffer.from(pageHtml(files))) };
    return renderer;
  };
  app.get(DOCS_ROUTE, { onRequest }, (request, reply) => {
    const { files, page } = render();
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    reply.header('Cache-Control', 'no-cache');
    reply.header('Referrer-Policy', 'same-origin');
    if (!page) return reply.code(503).type('text/plain; charset=utf-8').send(`The API reference page is not available: ${(files as { missing: string }).missing}`);
    return sendAsset(request, reply, page);
  });
  // Not rate-limited, as the web client's files: the page loads three at once, all from memory.
  app.get<{ Params: { file: string } }>(`${ASSETS_ROUTE}/:file`, (request, reply) => {
    const { files } = render();
    const asset = 'missing' in files ? undefined : files.assets.get(request.params.file);
    if (!asset) return reply.code(404).send({ result: 'error', msg: 'File not found', code: 'NOT_FOUND' });
    reply.header('Cache-Control', IMMUTABLE);
    return sendAsset(request, reply, asset);
  });
}
