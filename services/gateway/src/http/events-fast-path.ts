/**
 * GET /events without Fastify, for the polls that need nothing of it.
 *
 * With a thousand clients long-polling, every event is a thousand responses written in
 * one burst, and the last client gets its event only when the gateway has written all
 * the others: whatever a poll costs is multiplied by the number of queues in the delivery
 * latency. Fastify's request and reply objects, its hooks (formbody's and multipart's
 * included) and its send pipeline were most of a poll's cost beside Node's own HTTP
 * parsing and the socket write. So a poll that needs none of what they add is answered
 * from Node's request event directly, with the same steps the route takes (credentials,
 * parameters through the same decoder and schema, read-your-writes position, the bus
 * call routed to the queue's instance) and the same replies, byte for byte in the body.
 *
 * With rate limits on, a poll spends its user's API budget here as through the route (the
 * same counters, the X-RateLimit-* headers, RATE_LIMIT_HIT past the budget): Zulip limits
 * its event polls too. Everything else goes to Fastify as before, decided before anything
 * is read: other methods and paths, stage tracing on, a request with a body, a query the fast path does
 * not parse exactly as Fastify would (anything but the plain characters of ids and
 * numbers), credentials not already known to the gateway (the first request of a key
 * authenticates through the route), and parameters that the decoder would refuse or
 * report as ignored (the route words those errors).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, instanceOfQueueId, instanceSubject, isApiError, type Actor, type ApiErrorShape, type Endpoint } from '@teamchat/contracts';
import { callContract, isPieces, ReplyMismatchError, type Bus, type CallOptions } from '@teamchat/platform';
import type { Logger } from 'pino';
import { clientName, WWW_AUTHENTICATE } from './auth';
import { CredentialsCache } from './credentials-cache';
import { decodeParams } from './decode';
import { busRequest, type GatewayPeers } from './peers';
import type { RateLimiter } from './rate-limits';
import { joinMembers, memberChunks } from './response';

export type RawHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface EventsFastPathOptions {
  /** The GET /events contract. */
  endpoint: Endpoint;
  /** Its path, prefix included (`/api/v1/events`). */
  path: string;
  bus: Bus;
  log: Logger;
  credentials: CredentialsCache;
  /** The route's authentication, for credentials forgotten while this poll synced. */
  authenticate: (authorization: string, client: string) => Promise<Actor>;
  peers: GatewayPeers;
  /** The route's own call options (reply checks, the long-poll timeout). */
  callOptions: CallOptions;
  /** With rate limits on: a poll spends its user's API budget, as through the route. */
  limiter?: Pick<RateLimiter, 'spendOutsideFastify'>;
}

/**
 * Characters of a query the fast path reads itself: letters, digits, `-`, `_`, `.`, `:`
 * (queue ids with their instance), `=`, `&` and percent escapes of them. A `+` (a space in
 * a form), or anything Fastify's parser might read otherwise, goes to Fastify.
 */
const PLAIN_QUERY = /^[A-Za-z0-9\-_.:=&%]*$/;

const JSON_TYPE = 'application/json; charset=utf-8';

/** The query as Fastify's parser gives it, for the plain queries above; undefined otherwise. */
function parseQuery(query: string): Record<string, string> | undefined {
  if (!PLAIN_QUERY.test(query)) return undefined;
  const params: Record<string, string> = Object.create(null);
  if (query === '') return params;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    let key = eq < 0 ? pair : pair.slice(0, eq);
    let value = eq < 0 ? '' : pair.slice(eq + 1);
    // Most polls have nothing escaped (ids and numbers).
    if (pair.includes('%')) {
      try {
        key = decodeURIComponent(key);
        value = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    }
    // A repeated key: the route decides which value wins.
    if (key in params) return undefined;
    params[key] = value;
  }
  return params;
}

/**
 * A whole response in one write(2). `end(body)` queues the head with the body and then an
 * empty chunk, so Node flushes the two with writev. A bare node:http server answering a
 * thousand held requests at once took about 1 ms less per thousand this way (12.1–17.0 ms
 * against 13.0–19.5 ms with `end(body)`, 5 of 5 interleaved pairs faster); strace counts
 * one write per poll instead of one writev. Flushing after `write(body)` sends the head and
 * body as one chunk, and `end()` then has nothing left to send. A socket that cannot take
 * it all at once keeps the rest queued, and `end()` finishes after it as before.
 */
function sendWhole(response: ServerResponse, status: number, headers: Record<string, string | number>, body: string | Uint8Array): void {
  response.writeHead(status, headers);
  response.write(body);
  response.socket?.uncork();
  response.end();
}

export function eventsFastPath(options: EventsFastPathOptions): RawHandler {
  const { endpoint, path, bus, log, credentials, authenticate, peers, callOptions, limiter } = options;
  const prefix = `${path}?`;

  /** The error envelope, as the gateway's error handler writes it. */
  function sendError(response: ServerResponse, error: ApiErrorShape, extraHeaders: Record<string, number> = {}): void {
    const body = JSON.stringify({ result: 'error', msg: error.msg, code: error.code, ...(error.extra ?? {}) });
    const headers: Record<string, string | number> = { ...extraHeaders, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) };
    if (error.status === 401) headers['www-authenticate'] = WWW_AUTHENTICATE;
    sendWhole(response, error.status, headers, body);
  }

  function fail(response: ServerResponse, err: unknown): void {
    if (response.headersSent || response.destroyed) return;
    if (isApiError(err)) return sendError(response, err);
    if (err instanceof ReplyMismatchError) {
      log.error({ subject: err.subject, issue: err.issue }, 'reply does not match its contract');
    } else {
      log.error({ err }, 'unhandled error');
    }
    sendError(response, { code: 'INTERNAL_SERVER_ERROR', status: 500, msg: 'Internal server error' });
  }

  async function poll(response: ServerResponse, cachedActor: Actor, authorization: string, params: Record<string, unknown>): Promise<void> {
    let actor = cachedActor;
    // With other gateways: the credentials again once every revocation notice NATS had
    // before this poll arrived is in (peers.sync); a forgotten entry authenticates anew.
    const synced = peers.sync();
    if (synced) {
      await synced;
      const current = credentials.get(authorization);
      actor = current ? CredentialsCache.actorOf(current, actor.client) : await authenticate(authorization, actor.client);
    }
    const budget = limiter ? await limiter.spendOutsideFastify(actor.user_id) : undefined;
    if (budget?.refusal) return sendError(response, budget.refusal, budget.headers);
    const consistency = peers.consistency(actor.user_id);
    const instance = instanceOfQueueId(params.queue_id);
    const routed: CallOptions =
      instance === undefined
        ? callOptions
        : {
            ...callOptions,
            subject: instanceSubject(endpoint.subject, instance),
            noResponders: () => new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${String(params.queue_id)}`, 400, { queue_id: String(params.queue_id) }),
          };
    const { value, position, json } = await callContract(bus, endpoint, busRequest(actor, consistency, params), routed);
    if (position !== undefined) await peers.wrote(actor.user_id, position);
    if (response.destroyed) return;
    const body = { result: 'success', msg: '', ...value };
    const payload = json === undefined ? JSON.stringify(body) : isPieces(json) ? Buffer.concat(memberChunks(body, json)) : joinMembers(body, json);
    sendWhole(response, 200, { ...budget?.headers, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(payload) }, payload);
  }

  return (request, response) => {
    if (request.method !== 'GET') return false;
    const url = request.url ?? '';
    if (url !== path && !url.startsWith(prefix)) return false;
    const { headers } = request;
    // A GET with a body: Fastify decides what to make of it.
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const authorization = headers.authorization;
    const known = authorization === undefined ? undefined : credentials.get(authorization);
    if (!known) return false;
    const query = parseQuery(url.length > path.length ? url.slice(prefix.length) : '');
    if (!query) return false;
    let params: Record<string, unknown>;
    try {
      const decoded = decodeParams(endpoint.params, { query, body: undefined, path: {} }, endpoint.http?.wireNames, endpoint.http?.maxJsonLength);
      if (decoded.ignored.length > 0) return false;
      const parsed = endpoint.params.safeParse(decoded.params);
      if (!parsed.success) return false;
      params = parsed.data as Record<string, unknown>;
    } catch {
      return false;
    }
    const actor = CredentialsCache.actorOf(known, clientName(headers['user-agent']));
    poll(response, actor, authorization!, params).catch((err: unknown) => fail(response, err));
    return true;
  }
}
