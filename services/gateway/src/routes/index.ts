/**
 * The gateway's route table, built from the endpoint contracts (libs/contracts/src/endpoints):
 * every HTTP endpoint, its aliases, and the fastify path with `:name` parameters.
 */
import { httpEndpoints, type Endpoint, type HttpMethod } from '@teamchat/contracts';

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
