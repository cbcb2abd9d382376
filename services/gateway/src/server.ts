/**
 * The gateway: the only HTTP surface. For every route it authenticates, decodes and
 * validates parameters, sends one request on the bus and maps the reply to Zulip's
 * response envelope. It holds no domain state: only each user's last write position,
 * so that their next request waits for the services to have seen it, and who each
 * Authorization header authenticated as (http/credentials-cache.ts).
 */
import { registerSignupPage } from './routes/registration';
import { registerAccountPages } from './pages/account-pages';
import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { actorChanged, ApiError, endpoints, type FileLocation, instanceOfQueueId, instanceSubject, isApiError, type Actor, type ApiErrorShape, type Endpoint } from '@teamchat/contracts';
import { callContract, describeZodIssue, ReplyMismatchError, stageTracing, traceStage, type BlobStore, type Bus, type HttpSettings, type UploadSettings } from '@teamchat/platform';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { clientName, parseBasicAuth, WWW_AUTHENTICATE } from './http/auth';
import { OpenConnections } from './http/connections';
import { CredentialsCache } from './http/credentials-cache';
import { busRequest, GatewayPeers } from './http/peers';
import { decodeParams } from './http/decode';
import { FileIntake, uploadLimitOf, uploadRouteConfig } from './http/files';
import { EMOJI_DATA_ROUTE, sendEmojiData } from './http/emoji-data';
import { loginAccount, registerRateLimits, type RateLimiter } from './http/rate-limits';
import { eventsFastPath, type RawHandler } from './http/events-fast-path';
import { AnswerInParts, lendUntilDone, sendSuccess } from './http/response';
import { registerEmailsPage } from './pages/emails';
import { registerApiDocs } from './openapi/docs-page';
import { API_PREFIX, returnsOwnApiKey, routes, WEB_API_PREFIX, type Route } from './routes';
import { isPageRequest, WebClient } from './pages/web-client';
import { sessionIdOf, webSessions } from './http/web-sessions';
import { RequestCancellation, serviceBudgetMs } from './http/request-budget';
import { registerHealth, RETRY_AFTER_SECONDS, whileStarting, type Readiness } from './http/readiness';

export { API_PREFIX, WEB_API_PREFIX } from './routes';

export interface GatewayOptions {
  bus: Bus;
  log: Logger;
  heartbeatSeconds: number;
  /** Check each reply against its contract (ServerConfig.checkReplies). */
  checkReplies?: boolean;
  /** Rate limits, timeouts and proxies (ServerConfig.http). */
  http: HttpSettings;
  /**
   * Whether other gateways share the bus (the distributed mode): each user's last write
   * position is then shared with them, so read-your-writes holds across gateways.
   */
  sharedWrites?: boolean;
  /**
   * Whether each request waits for every write acknowledged before it, anyone's, rather
   * than its user's own (see GatewayPeers): the embedded server, whose services may
   * answer a write before their read models show it.
   */
  waitForEveryWrite?: boolean;
  /**
   * The development outbox's directory: serves GET /emails, the page that lists what was
   * sent. Given only in development mode with the outbox transport (absent: no page).
   */
  outboxDir?: string;
  /** Where uploaded files and custom emoji images are kept. */
  blobs: BlobStore;
  /** Their size limits (ServerConfig.uploads). */
  uploads: UploadSettings;
  /** The organization's address: an https one makes the session cookie Secure (ServerConfig.realmUri). */
  realmUri?: string;
  /** The built web client (ServerConfig.webClientDir); absent: `/` says how to build it. */
  webClientDir?: string;
  /** Which of the server's services serve yet (the embedded server, which starts them after listening). */
  readiness?: Readiness;
}

const MAX_HEADER_BYTES = 256 * 1024;
/**
 * The request body's limit where a contract sets none: room for the largest legitimate
 * bodies of today's endpoints (5000 message ids to flag, a subscription request naming
 * hundreds of channels) in any encoding.
 */
const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Fastify's default; no path parameter of the API (ids, short names) comes close. */
const MAX_PARAM_LENGTH = 100;

/**
 * A multipart body's fields without file contents (an upload's file is not a parameter,
 * nor is a field a client calls `file`: the gateway alone describes the stored file).
 */
function withoutFileFields(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([name, value]) => !Buffer.isBuffer(value) && name !== 'file'));
}

const isMultipart = (request: FastifyRequest) => /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');

/**
 * Requests Node rejects before routing (oversized headers, malformed HTTP, timeouts)
 * still get the JSON error envelope every reply under /api/v1 has.
 */
function writeClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, msg] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', `Request headers and query string exceed ${MAX_HEADER_BYTES} bytes`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timed out']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ result: 'error', msg, code: 'BAD_REQUEST' });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

function sendError(reply: FastifyReply, error: ApiErrorShape): FastifyReply {
  // The browser client's routes challenge for a session: a Basic challenge would make the browser prompt.
  if (error.status === 401) reply.header('WWW-Authenticate', /^\/(json|login|logout)(\/|$)/.test(reply.request.url) ? 'Session realm="zulip"' : WWW_AUTHENTICATE);
  // Unavailable for now (an engine, the bus, a service starting): when to come back.
  if (error.status === 503 && !reply.hasHeader('Retry-After')) reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return reply.code(error.status).send({ result: 'error', msg: error.msg, code: error.code, ...(error.extra ?? {}) });
}

export async function buildGateway(options: GatewayOptions): Promise<FastifyInstance> {
  const { bus, log, http } = options;
  /** Requests answered before Fastify sees them (http/events-fast-path.ts); set once the routes are. */
  let fastPath: RawHandler | undefined;
  const connections = new OpenConnections();
  // Fastify's own per-request logging stays off: the gateway logs failures itself.
  const app = Fastify({
    // The server Fastify would make (the settings below), with the fast path in front.
    serverFactory: (handler, settings) => {
      const server = createServer(settings.http ?? {}, (request, response) => {
        connections.began(request, response);
        if (!fastPath?.(request, response)) handler(request, response);
      });
      connections.watch(server);
      server.keepAliveTimeout = http.keepAliveTimeoutMs;
      server.requestTimeout = http.requestTimeoutMs;
      server.setTimeout(http.idleTimeoutMs);
      return server;
    },
    logger: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Slow clients are cut off (slow-loris): headers must arrive within headersTimeout,
    // the whole request within requestTimeout (Node answers 408, see writeClientError),
    // and a connection silent for idleTimeout in either direction mid-request is closed.
    // Node checks the first two every connectionsCheckingInterval (30 s by default, which
    // would let a stalled client linger that much longer).
    http: {
      // GET parameters travel in the query string: 5000 message ids must fit (Node's
      // default header limit is 16 KiB).
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: http.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(100, http.headersTimeoutMs / 4)),
    },
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.idleTimeoutMs,
    trustProxy: http.trustProxy,
    clientErrorHandler: writeClientError,
    // The router's own refusals (a path that does not decode, a path parameter past
    // maxParamLength) get the envelope too, not Fastify's {error, code: FST_ERR_…} body.
    frameworkErrors: (error, request, reply) => {
      const refusal: ApiErrorShape =
        (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? { code: 'BAD_REQUEST', status: 414, msg: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters` }
          : { code: 'BAD_REQUEST', status: 400, msg: 'The path is not valid: a percent-encoding does not decode' };
      // No hook runs for a request the router refused: it spends its address's budget here.
      if (!limiter) return sendError(reply, refusal);
      limiter.anonymous(request, reply, { login: false }).then(
        () => sendError(reply, refusal),
        (err: unknown) => sendError(reply, isApiError(err) ? err : refusal),
      );
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  // The stage trace's last line of a request: its reply is written to the socket (with
  // the request's time in ms, so that a tail under load can be set against other stages).
  if (stageTracing) app.addHook('onResponse', async (request, reply) => traceStage('http.response', `${request.method} ${request.url.split('?')[0]} ${reply.elapsedTime.toFixed(3)}`));
  await app.register(formbody);
  const files = new FileIntake(options.blobs, options.uploads, log);
  // An upload's bytes stored before its request failed (a later part broken, a refusal) are removed.
  app.addHook('onResponse', (request, _reply, done) => {
    if (!isMultipart(request)) return done();
    files.discardUnclaimed(request).then(() => done(), done);
  });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    onFile(part) {
      return files.onFile(this, part);
    },
  });

  /** Store position of each user's last write (read-your-writes token), shared with the other gateways. */
  const peers = await GatewayPeers.join(bus, options.sharedWrites ?? false, options.waitForEveryWrite ?? false);
  const longPollTimeoutMs = options.heartbeatSeconds * 1000 + 15_000;

  const credentials = new CredentialsCache();
  const cancellation = new RequestCancellation(bus);
  await bus.subscribe(actorChanged.subject, (payload) => {
    const notice = actorChanged.payload.safeParse(payload);
    // A notice it cannot read says nothing of whom to forget: entries still expire.
    if (notice.success) credentials.forget(notice.data);
    else log.warn({ issue: notice.error.issues[0]?.message }, 'unreadable actor_changed notice');
  });

  /**
   * Who a request's credentials name. A revocation (deactivation, role, address or key
   * change) is published by accounts before its acknowledgement, and each gateway has
   * heard every such notice by the time this looks the credentials up (peers.sync), so no
   * request that arrives after the acknowledgement is served with the old credentials.
   */
  async function authenticate(request: FastifyRequest): Promise<Actor> {
    const synced = peers.sync();
    if (synced) await synced;
    return authenticateHeader(request.headers.authorization, clientName(request.headers['user-agent']));
  }

  async function authenticateHeader(header: string | undefined, client: string): Promise<Actor> {
    const known = header === undefined ? undefined : credentials.get(header);
    if (known) return CredentialsCache.actorOf(known, client);
    const { email, apiKey } = parseBasicAuth(header);
    const after = credentials.newestChange;
    const { value, position } = await callContract(bus, endpoints.accounts.authenticate, {
      ...(after !== undefined ? { after } : {}),
      params: { email, api_key: apiKey, client },
    });
    credentials.remember(header!, value.actor, position);
    return value.actor;
  }

  /** Requests whose body parsed and whose handler started: an error in them is not the body's. */
  const reachedHandler = new WeakSet<FastifyRequest>();
  /** Who each request authenticated as, before its body is read. */
  const actors = new WeakMap<FastifyRequest, Actor>();
  const limiter: RateLimiter | undefined = http.rateLimits ? await registerRateLimits(app, http.rateLimits) : undefined;
  const web = webSessions(app, { bus, credentials, peers, limiter, realmUri: options.realmUri ?? '' });
  /** The web session (its hash) of each request through /json, for the services (BusRequest.session). */
  const sessionOfRequest = new WeakMap<FastifyRequest, string>();

  /**
   * The onRequest hook of a route under /json: the session cookie instead of an API key
   * (never both ways: /json takes no Authorization header, /api/v1 no cookie), and the
   * CSRF token for every method but GET and HEAD. Every /json route needs a session.
   */
  const checkWebCaller = () => async (request: FastifyRequest, reply: FastifyReply) => {
    if (stageTracing) traceStage('http.request', `${request.method} ${request.url.split('?')[0]}`);
    const caller = await web.withSession(request, reply, request.method !== 'GET' && request.method !== 'HEAD');
    actors.set(request, caller.actor);
    sessionOfRequest.set(request, caller.sessionHash);
  };

  /**
   * Each route's onRequest hook (`endpoint` undefined for unknown paths and methods).
   * Credentials and rate limits are checked as soon as the headers are in, so that a
   * client without valid credentials, or over its budget, never has its body read or
   * parsed. Every reply of a routed request (unknown paths included) carries the
   * X-RateLimit-* headers of the strictest budget it spent. A hook per route, rather than
   * one that looks the route up, because Fastify builds `request.routeOptions` anew on
   * each access.
   */
  const checkCaller = (endpoint: Endpoint | undefined) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (stageTracing) traceStage('http.request', `${request.method} ${request.url.split('?')[0]}`);
    if (endpoint?.auth) {
      let actor: Actor;
      try {
        actor = await authenticate(request);
      } catch (err) {
        await limiter?.anonymous(request, reply, { login: false });
        throw err;
      }
      actors.set(request, actor);
      await limiter?.authenticated(request, reply, actor.user_id);
    } else {
      await limiter?.anonymous(request, reply, { login: endpoint?.http?.login ?? false });
    }
  };

  /**
   * A file at the organization's root (`/user_uploads/…`) is also the web client's: an
   * image in a message loads with the session cookie, as in Zulip (a GET: no CSRF token).
   * A request with an Authorization header, or whose cookie names no live session, is
   * checked as the API checks it.
   */
  const checkDownloadCaller = (endpoint: Endpoint) => {
    const api = checkCaller(endpoint);
    const browser = checkWebCaller();
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.headers.authorization === undefined && sessionIdOf(request.headers.cookie) !== undefined) {
        const signedIn = await browser(request, reply).then(
          () => true,
          () => false,
        );
        if (signedIn) return;
      }
      return api(request, reply);
    };
  };

  function handlerFor({ endpoint }: Route) {
    const timeoutMs = endpoint.http?.longPoll ? longPollTimeoutMs : http.serviceTimeoutMs;
    const callOptions = { checkReply: options.checkReplies ?? false, timeoutMs };
    const budget_ms = serviceBudgetMs(timeoutMs);
    const login = endpoint.http?.login ?? false;
    const routeByQueueId = endpoint.http?.routeByQueueId ?? false;
    const fileKind = endpoint.http?.files;
    // Where replies are checked, callContract takes no parts (CallOptions onPart).
    const inParts = endpoint.http?.inParts ?? false;
    /** Parameters the request's headers give (http.fromHeaders), listed once per route, not per request. */
    const fromHeaders = Object.entries(endpoint.http?.fromHeaders ?? {});
    /** To the events instance the queue id names; a gone instance's queue is a bad queue id. */
    const routeToQueue = (queueId: unknown) => {
      const instance = instanceOfQueueId(queueId);
      if (instance === undefined) return {};
      return {
        subject: instanceSubject(endpoint.subject, instance),
        noResponders: () => new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${String(queueId)}`, 400, { queue_id: String(queueId) }),
      };
    };
    return async (request: FastifyRequest, reply: FastifyReply) => {
      reachedHandler.add(request);
      const actor = endpoint.auth ? actors.get(request) : undefined;
      const { params, ignored, wireNameOf } = decodeParams(endpoint.params, {
        query: request.query,
        body: fileKind === 'upload' ? withoutFileFields(request.body) : request.body,
        path: (request.params ?? {}) as Record<string, string>,
      }, endpoint.http?.wireNames, endpoint.http?.maxJsonLength);
      // An upload's file is stored before the service decides on it, and removed if refused.
      const upload = fileKind === 'upload' ? await files.store(request, endpoint) : undefined;
      if (upload) params.file = upload.file;
      for (const [name, header] of fromHeaders) {
        const value = request.headers[header];
        if (typeof value === 'string') params[name] = value;
        else delete params[name];
      }
      const parsed = endpoint.params.safeParse(params);
      if (!parsed.success) {
        await upload?.discard();
        throw new ApiError('BAD_REQUEST', describeZodIssue(parsed.error.issues[0], wireNameOf), 400);
      }
      const account = limiter && login ? await loginAccount(parsed.data) : undefined;
      if (account !== undefined) await limiter!.checkAccount(request, reply, account);
      // The position is at hand (authentication synced with the other gateways): no await.
      const consistency = peers.consistency(actor?.user_id);
      if (stageTracing) traceStage('gateway.call', endpoint.subject);
      let parts: AnswerInParts | undefined;
      const routed = routeByQueueId ? { ...callOptions, ...routeToQueue((parsed.data as { queue_id?: unknown }).queue_id) } : callOptions;
      const answer = await callContract(
        bus,
        endpoint,
        busRequest(actor, consistency, parsed.data, sessionOfRequest.get(request), { budget_ms, request_id: endpoint.http?.longPoll ? undefined : cancellation.follow(reply) }),
        inParts ? { ...routed, onPart: (part) => (parts ??= new AnswerInParts(reply)).write(part) } : routed,
      ).catch(async (err: unknown) => {
        // The status went out with the first part: the answer can only be cut.
        if (parts) {
          log.warn({ subject: endpoint.subject, reason: isApiError(err) ? err.code : 'failed' }, 'answer cut after its first parts');
          parts.cut();
          return undefined;
        }
        // A refused attempt spends the named account's budget; an outage is not the client's.
        if (account !== undefined && isApiError(err) && err.status < 500) await limiter!.accountFailed(request, reply, account);
        await upload?.discard();
        throw err;
      });
      if (answer === undefined) return reply;
      const { value, position, json } = answer;
      if (json !== undefined) lendUntilDone(reply.raw, json);
      if (stageTracing) traceStage('gateway.replied', position);
      if (fileKind === 'download') return files.send(reply, value as unknown as FileLocation);
      if (position !== undefined) await peers.wrote(actor?.user_id, position);
      // The blob keys are the server's own business: removed here, never shown.
      const shown = fileKind === 'delete' || fileKind === 'upload' ? await files.removeBlobs(value as { removed_blobs?: string[] }) : value;
      const body = {
        result: 'success' as const,
        msg: '',
        ...shown,
        ...(ignored.length ? { ignored_parameters_unsupported: ignored } : {}),
      };
      return sendSuccess(reply, body, json, parts);
    };
  }

  app.setErrorHandler((err: unknown, request, reply) => {
    if (isApiError(err)) return sendError(reply, whileStarting(options.readiness, err));
    if (err instanceof ReplyMismatchError) {
      log.error({ subject: err.subject, issue: err.issue }, 'reply does not match its contract');
      return sendError(reply, { code: 'INTERNAL_SERVER_ERROR', status: 500, msg: 'Internal server error' });
    }
    // The multipart parser may notice a file past its route's limit outside the file hook.
    const tooLarge = files.tooLargeError(request, err);
    if (tooLarge) return sendError(reply, tooLarge);
    const statusCode = (err as { statusCode?: unknown }).statusCode;
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      // Malformed bodies, unsupported content types, oversized payloads.
      return sendError(reply, { code: 'BAD_REQUEST', status: statusCode, msg: (err as Error).message });
    }
    // The multipart parser throws plain errors (no boundary, a broken part) before any
    // handler runs: the client's body is at fault, not the server.
    if (isMultipart(request) && !reachedHandler.has(request)) {
      return sendError(reply, { code: 'BAD_REQUEST', status: 400, msg: 'The multipart/form-data body could not be parsed' });
    }
    log.error({ err }, 'unhandled error');
    return sendError(reply, { code: 'INTERNAL_SERVER_ERROR', status: 500, msg: 'Internal server error' });
  });

  const webClient = new WebClient(options.webClientDir ?? '');
  // Fastify offers an unknown path no onRequest hook: its budget is spent just before the answer.
  // A browser opening any other page of the client gets the client (it routes by itself).
  app.setNotFoundHandler({ preValidation: checkCaller(undefined) }, (request, reply) =>
    isPageRequest(request)
      ? webClient.sendPage(request, reply)
      : sendError(reply, { code: 'NOT_FOUND', status: 404, msg: `No such endpoint: ${request.method} ${request.url.split('?')[0]}` }),
  );
  for (const url of ['/', '/login']) app.get(url, { onRequest: checkCaller(undefined) }, (request, reply) => webClient.sendPage(request, reply));
  // Not rate-limited: a page load fetches several files, all served from memory.
  app.get('/static/*', async (request, reply) => {
    const sent = await webClient.sendStatic(request, reply, (request.params as { '*': string })['*']);
    return sent ?? sendError(reply, { code: 'NOT_FOUND', status: 404, msg: 'File not found' });
  });

  registerHealth(app, options.readiness);
  registerApiDocs(app, checkCaller(undefined));
  if (options.outboxDir !== undefined) registerEmailsPage(app, options.outboxDir, checkCaller(undefined));

  // Keyed by the path's shape: one path may name its parameter differently per method
  // (`/users/{user_id}` for DELETE, `/users/{user_id_or_email}` for GET), which the
  // router takes as the same path.
  const methodsByUrl = new Map<string, { url: string; methods: Set<string> }>();
  for (const route of routes) {
    const fileKind = route.endpoint.http?.files;
    // Downloads are at the organization's root (`/user_uploads/…`), where messages link
    // files, as Zulip has them; under /api/v1 the same path answers a temporary URL.
    if (fileKind === 'download') {
      app.route({ method: route.method, url: route.url, onRequest: checkDownloadCaller(route.endpoint), handler: handlerFor(route) });
      continue;
    }
    // The same endpoint twice: under /api/v1 for API keys, under /json for the web client's session.
    const shared = {
      method: route.method,
      bodyLimit: route.endpoint.http?.bodyLimit ?? DEFAULT_BODY_LIMIT,
      ...(fileKind === 'upload' ? { config: uploadRouteConfig(route.endpoint, uploadLimitOf(route.endpoint, options.uploads)) } : {}),
      handler: handlerFor(route),
    };
    app.route({ ...shared, url: API_PREFIX + route.url, onRequest: checkCaller(route.endpoint) });
    if (!returnsOwnApiKey(route.endpoint)) app.route({ ...shared, url: WEB_API_PREFIX + route.url, onRequest: checkWebCaller() });
    const shape = route.url.replace(/:\w+/g, ':');
    const entry = methodsByUrl.get(shape) ?? { url: route.url, methods: new Set<string>() };
    entry.methods.add(route.method);
    methodsByUrl.set(shape, entry);
  }
  // GET /events without Fastify where the route would add nothing but the rate limit
  // (which the fast path spends itself); not with the stage trace (its hooks time the request).
  const pollRoute = routes.find((route) => route.endpoint === endpoints.events.getEvents && route.method === 'GET');
  if (!stageTracing && pollRoute) {
    const poll = eventsFastPath({
      endpoint: pollRoute.endpoint,
      path: API_PREFIX + pollRoute.url,
      bus,
      log,
      credentials,
      authenticate: authenticateHeader,
      peers,
      callOptions: { checkReply: options.checkReplies ?? false, timeoutMs: longPollTimeoutMs },
      ...(limiter ? { limiter } : {}),
    });
    // Once closing, Fastify answers new requests itself (503).
    app.addHook('preClose', async () => {
      fastPath = undefined;
    });
    fastPath = poll;
  }
  // Closing waits for every connection to end. Node closes the keep-alive connections idle
  // when close() begins, but one whose request (a long-poll above all) ends later would
  // stay open for the keep-alive timeout (65 s): a stop, and a restart on the same port,
  // waited that long. So while closing, connections are closed as soon as they fall idle
  // (http/connections.ts); no request in flight is cut.
  let idleSweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    idleSweep = setInterval(() => connections.closeIdle(), 50);
    idleSweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(idleSweep));
  app.get('/user_avatars/:realm_id/emoji/images/:file', { onRequest: checkCaller(undefined) }, (request, reply) => files.sendEmojiImage(request, reply));
  app.get('/user_avatars/:realm_id/:file', { onRequest: checkCaller(undefined) }, (request, reply) => files.sendAvatarImage(request, reply));
  // The file POST /register names as server_emoji_data_url; public, like the images above.
  app.get(EMOJI_DATA_ROUTE, { onRequest: checkCaller(undefined) }, (request, reply) =>
    sendEmojiData(request, reply) || sendError(reply, { code: 'NOT_FOUND', status: 404, msg: 'File not found' }),
  );

  // The account pages spend an address's budget; a form's POST spends the login budget.
  const pageBudget = limiter && ((request: FastifyRequest, reply: FastifyReply) => limiter.anonymous(request, reply, { login: request.method === 'POST' }));
  registerSignupPage(app, bus, log, pageBudget);
  registerAccountPages(app, bus, log, pageBudget);
  // A known path with an unsupported method answers 405, not 404.
  const allMethods = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
  for (const { url, methods } of methodsByUrl.values()) {
    const others = allMethods.filter((m) => !methods.has(m));
    const allow = [...methods].join(', ');
    if (others.length === 0) continue;
    app.route({
      method: [...others],
      url: API_PREFIX + url,
      onRequest: checkCaller(undefined),
      handler: (_request, reply) => {
        reply.header('Allow', allow);
        return sendError(reply, { code: 'METHOD_NOT_ALLOWED', status: 405, msg: 'Method Not Allowed' });
      },
    });
  }
  return app;
}
