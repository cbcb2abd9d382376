/**
 * Whether the server answers yet, for load balancers and operators. The HTTP listener
 * comes up before the services have caught up with the store (a start behind it, a
 * rebuild: minutes on a large store), so that meanwhile the server says so instead of
 * refusing connections: GET /health answers as long as the process does, with each
 * service's state; GET /health/ready answers 503 until every service serves; and a
 * request to a service that is not ready yet answers 503 in the API's error envelope,
 * naming what is starting, with a Retry-After.
 */
import type { ApiErrorShape } from '@teamchat/contracts';
import type { FastifyInstance } from 'fastify';

/** Each service of the server, and whether it serves (its read models caught up with the store). */
export type Readiness = () => Readonly<Record<string, boolean>>;

/** What a 503 asks the client to wait before trying again, in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** The services still starting, if any. */
function starting(readiness: Readiness | undefined): string[] {
  if (!readiness) return [];
  return Object.entries(readiness())
    .filter(([, ready]) => !ready)
    .map(([name]) => name);
}

/**
 * A 503 while services start says why, in words: the service was not answering because it
 * is catching up, not because something failed.
 */
export function whileStarting(readiness: Readiness | undefined, error: ApiErrorShape): ApiErrorShape {
  if (error.status !== 503) return error;
  const names = starting(readiness);
  if (names.length === 0) return error;
  return { ...error, msg: startingMessage(names) };
}

const startingMessage = (names: string[]) =>
  `The server is starting: the ${names.join(', ')} service${names.length > 1 ? 's are' : ' is'} catching up with the stored history. Try again in a few seconds.`;

/**
 * `readiness` absent (a gateway of the distributed mode, whose services run elsewhere):
 * the gateway answers for itself only; a service not answering yet gives its requests 503.
 */
export function registerHealth(app: FastifyInstance, readiness: Readiness | undefined): void {
  const state = () => {
    const services = readiness ? { ...readiness() } : {};
    return { services, names: starting(readiness) };
  };
  app.get('/health', async (_request, reply) => {
    const { services, names } = state();
    return reply.send({ result: 'success', msg: '', status: names.length ? 'starting' : 'ready', services });
  });
  app.get('/health/ready', async (_request, reply) => {
    const { services, names } = state();
    if (names.length === 0) return reply.send({ result: 'success', msg: '', status: 'ready', services });
    return reply
      .code(503)
      .header('Retry-After', String(RETRY_AFTER_SECONDS))
      .send({ result: 'error', code: 'SERVICE_UNAVAILABLE', msg: startingMessage(names), status: 'starting', services });
  });
}
