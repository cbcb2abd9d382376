/**
 * The gateway's route table, built from the endpoint contracts (libs/contracts/src/endpoints):
 * every HTTP endpoint, its aliases, and the fastify path with `:name` parameters.
 */
import { httpEndpoints, type Endpoint, type HttpMethod } from '@teamchat/contracts';

/** The API's prefix for clients with an API key (HTTP Basic). */
export const API_PREFIX = '/api/v1';
/** The browser client's API prefix (Zulip's): the endpoints of /api/v1, authenticated by the session cookie. */
export const WEB_API_PREFIX = '/json';

/**
 * Endpoints whose reply is the caller's own API key: not under /json, since the page's
 * scripts never see an API key. (A bot's key is its owner's business, as in Zulip's web app.)
 */
export function returnsOwnApiKey(endpoint: Endpoint): boolean {
  const shape = (endpoint.reply as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && 'api_key' in shape && !endpoint.http?.path.startsWith('/bots');
}

export interface Route {
  method: HttpMethod;
  /** Fastify path under /api/v1 (at the root for downloads), with `:name` path parameters. */
  url: string;
  endpoint: Endpoint;
}

/** `/messages/{message_id}` (the spec's form) → `/messages/:message_id` (fastify's). */
const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export const routes: readonly Route[] = httpEndpoints.flatMap((endpoint) =>
  [endpoint.http.path, ...(endpoint.http.aliases ?? [])].map((path) => ({
    method: endpoint.http.method,
    url: fastifyPath(path),
    endpoint,
  })),
);
