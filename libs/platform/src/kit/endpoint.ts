/**
 * The one way an endpoint contract (libs/contracts/src/endpoints) is served and called.
 *
 * `serveContract` does for every endpoint what each would otherwise repeat: it validates
 * the parameters with the contract's schema, refuses a request without the actor the
 * contract requires, waits for the service's read models to show the caller's earlier
 * writes (read-your-writes) and, after a write, its own; and it always answers with a
 * BusReply, whatever the handler throws, so no request is left hanging and nothing a
 * client sends can crash a process. `callContract` turns the reply back into a typed
 * value or an ApiError.
 */
import {
  ApiError,
  badRequest,
  isApiError,
  queueGroupOf,
  requestCancelled,
  type Actor,
  type BusReply,
  type BusRequest,
  type Endpoint,
  type SerializedMembers,
} from '@teamchat/contracts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { isBusError, type Bus, type BusSubscription, type Json } from '../ports/bus';
import { commandAppendsBegun } from './aggregate';
import { DEFAULT_BUDGET_MS, RequestBudget } from './budget';
import { isEngineUnavailable } from './engines';
import { releaseLent } from './reply-arena';
import { stageTracing, traceStage } from './stage-trace';

export interface HandlerResult<V = Record<string, unknown>> {
  value: V;
  /** Store position of the last fact the handler appended, for read-your-writes. */
  position?: number;
  /** Further members already serialized: a JSON object as text or UTF-8 bytes, or several objects' bytes (SerializedMembers). */
  json?: SerializedMembers;
}

export interface RequestContext<A extends boolean> {
  /** The authenticated caller; always present where the contract requires one. */
  actor: A extends true ? Actor : Actor | undefined;
  log: Logger;
  /** The caller's web session (its hash), for a request through `/json/…` (BusRequest.session). */
  session?: string | undefined;
  /** The request's time budget and cancellation: long work checks it between its steps (budget.ts). */
  budget: RequestBudget;
  /**
   * Sends members of the reply ahead of it, for the caller to write while the rest is
   * computed (POST /register: the owners that answered first). Present only where the bus
   * carries parts and the caller takes them; without it, everything goes in the reply. A
   * part is members in the form of `json` (SerializedMembers), none of them also in the
   * reply or another part. Once a part is sent, a failure can no longer be answered as an
   * error of its own: the caller cuts the response.
   */
  sendPart?: (json: SerializedMembers) => void;
}

export type ContractHandler<E extends Endpoint> = (
  params: z.output<E['params']>,
  context: RequestContext<E['auth']>,
) => Promise<HandlerResult<z.input<E['reply']>>>;

/** What a service answers from: its projector, which knows how far its read models are. */
export interface ReadModelProgress {
  waitFor(position: number | undefined): Promise<void>;
  /** The position the read models have applied up to. */
  readonly checkpoint?: number;
  /** Whether the store has facts past `since`; if so, resolves once they are applied. */
  caughtUpPast?(since: number): Promise<boolean>;
}

export interface ContractServerOptions {
  bus: Bus;
  log: Logger;
  /** Absent for a service that keeps no read models of the store. */
  readModels?: ReadModelProgress;
  /**
   * Whether a caller's account is deactivated, as this service's read models know it.
   * Where given, a deactivated caller is refused as unauthenticated (401 USER_DEACTIVATED)
   * whatever the gateway believed of their credentials: the service that owns the data
   * decides who may see it. Checked after the read models show the caller's earlier writes.
   */
  deactivated?: (userId: number) => boolean | Promise<boolean>;
}

/** A transport limit this large no reply of this API reaches (5000 maximal messages). */
const UNBOUNDED_PAYLOAD = 256 * 1024 * 1024;

/** Serves one contract on the bus, in the queue group of the service that owns it. */
export function serveContract<E extends Endpoint>(
  options: ContractServerOptions,
  endpoint: E,
  handler: ContractHandler<E>,
): Promise<BusSubscription> {
  const { bus, readModels, deactivated } = options;
  // One child logger per endpoint, not per request: a pino child costs as much as a
  // trivial handler.
  const log = options.log.child({ subject: endpoint.subject });
  const running = cancellableRequests(bus, log);
  return bus.serve(
    endpoint.subject,
    async (payload, _subject, sendPart) => {
      let reply: BusReply;
      const request = payload as unknown as BusRequest<unknown>;
      const budget = new RequestBudget(request?.budget_ms ?? DEFAULT_BUDGET_MS, request?.actor?.user_id);
      const id = request?.request_id;
      if (id !== undefined) running.set(id, budget);
      try {
        const parsed = endpoint.params.safeParse(request?.params ?? {});
        if (!parsed.success) throw badRequest(describeZodIssue(parsed.error.issues[0]));
        if (endpoint.auth && !request.actor) throw badRequest('Authentication required');
        // Most requests carry no position: they skip the await (a turn of the microtask
        // queue each) rather than wait for a promise that is already resolved.
        if (stageTracing) traceStage('serve.received', endpoint.subject);
        if (readModels && request.after !== undefined) await readModels.waitFor(request.after);
        if (deactivated && request.actor) {
          const gone = deactivated(request.actor.user_id);
          if (gone === true || (gone !== false && (await gone))) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
        }
        if (stageTracing) traceStage('serve.handler', request.after);
        const context: RequestContext<E['auth']> = { actor: request.actor as RequestContext<E['auth']>['actor'], log, session: request.session, budget };
        let partsSent = false;
        if (sendPart) {
          // Parts travel only by value (an in-process bus), so bytes need no turning into text.
          context.sendPart = (json) => {
            partsSent = true;
            sendPart(json as unknown as Json);
          };
        }
        const since = readModels?.caughtUpPast ? readModels.checkpoint : undefined;
        const appendsBefore = commandAppendsBegun();
        let result: HandlerResult<z.input<E['reply']>>;
        try {
          result = await handler(parsed.data as z.output<E['params']>, context);
        } catch (err) {
          // A refusal may rest on read models behind the store: a user, channel or message
          // another service recorded a moment ago is not there yet. If the store holds more
          // than the read models had when the handler started, and the handler appended
          // nothing, it decides once more on what they hold now. Only refusals pay for this.
          // Nor once parts are sent: the caller has written them, and a second run would send them again.
          if (!isApiError(err) || err.status >= 500 || since === undefined || commandAppendsBegun() !== appendsBefore || partsSent) throw err;
          if (!(await readModels!.caughtUpPast!(since))) throw err;
          result = await handler(parsed.data as z.output<E['params']>, context);
        }
        if (stageTracing) traceStage('serve.handled', result.position);
        // The caller's later requests wait for this position instead, if it says so (whenDurable).
        if (readModels && result.position !== undefined && request.whenDurable !== true) await readModels.waitFor(result.position);
        if (stageTracing) traceStage('serve.reply', endpoint.subject);
        reply = {
          ok: true,
          value: result.value,
          ...(result.position !== undefined ? { position: result.position } : {}),
          ...(result.json !== undefined ? { json: bus.carriesBytes ? result.json : textOf(result.json) } : {}),
        };
      } catch (err) {
        if (isApiError(err)) {
          reply = { ok: false, error: { code: err.code, status: err.status, msg: err.msg, ...(err.extra ? { extra: err.extra } : {}) } };
        } else if (isEngineUnavailable(err) || (isBusError(err) && err.code !== 'TIMEOUT')) {
          // An engine or the bus is out of reach: nothing was decided, the client may retry.
          log.warn({ reason: (err as Error).message }, 'engine unavailable');
          reply = { ok: false, error: { code: 'SERVICE_UNAVAILABLE', status: 503, msg: 'A storage engine is unavailable; try again shortly' } };
        } else {
          log.error({ err }, 'handler failed');
          reply = { ok: false, error: { code: 'INTERNAL_SERVER_ERROR', status: 500, msg: 'Internal server error' } };
        }
      } finally {
        budget.end();
        if (id !== undefined) running.delete(id);
      }
      // A reply the transport would refuse becomes a clear error instead of a timeout.
      // Measuring means serializing the reply once more, so only where a limit can bite.
      if (reply.ok && bus.maxPayload < UNBOUNDED_PAYLOAD && Buffer.byteLength(JSON.stringify(reply)) > bus.maxPayload) {
        releaseLent(reply.json);
        reply = { ok: false, error: { code: 'BAD_REQUEST', status: 400, msg: 'The response would be too large; ask for less at a time.' } };
      }
      return reply as unknown as Json;
    },
    queueGroupOf(endpoint.service),
  );
}

/** Requests being served on each bus that carry an id, for the notices that cancel them. */
const cancellable = new WeakMap<Bus, Map<string, RequestBudget>>();

/** This bus's requests in progress by id; the first call subscribes to the cancellations. */
function cancellableRequests(bus: Bus, log: Logger): Map<string, RequestBudget> {
  let running = cancellable.get(bus);
  if (running) return running;
  const byId = new Map<string, RequestBudget>();
  cancellable.set(bus, byId);
  bus
    .subscribe(requestCancelled.subject, (payload) => {
      const notice = requestCancelled.payload.safeParse(payload);
      if (notice.success) byId.get(notice.data.request_id)?.abort();
    })
    .catch((err: unknown) => log.warn({ reason: (err as Error).message }, 'cancellations not followed'));
  running = byId;
  return running;
}

/** Serves a group of contracts with the same options; resolves once all are listening. */
export function contractServer(options: ContractServerOptions) {
  return <E extends Endpoint>(endpoint: E, handler: ContractHandler<E>) => serveContract(options, endpoint, handler);
}

/**
 * A reply's serialized members as text (for a bus that carries no bytes, or to join them
 * with others); bytes lent from the arena go back once read.
 */
export function textOf(json: SerializedMembers): string {
  const text = asText(json);
  releaseLent(json);
  return text;
}

/** Bytes become text for a transport that would otherwise serialize them as an object; several objects, one. */
function asText(json: SerializedMembers): string {
  if (typeof json === 'string') return json;
  if (!isPieces(json)) return bytesText(json);
  const members = json.map((piece) => bytesText(piece).slice(1, -1)).filter((inner) => inner.length > 0);
  return `{${members.join(',')}}`;
}

const bytesText = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

/** Whether serialized members are several objects' bytes (SerializedMembers). */
export function isPieces(json: SerializedMembers): json is readonly Uint8Array[] {
  return Array.isArray(json);
}

export interface CallOptions {
  timeoutMs?: number;
  /** Another subject than the contract's (one instance's own; see queue-ids.ts). */
  subject?: string;
  /** The error when nobody serves the subject, instead of SERVICE_UNAVAILABLE. */
  noResponders?: () => ApiError;
  /**
   * Whether to check the reply against the contract's reply schema (default true). The
   * gateway, which only forwards replies, turns it off unless configured to check.
   */
  checkReply?: boolean;
  /**
   * Takes the members the service sends ahead of its reply (RequestContext `sendPart`),
   * where the bus carries them. Ignored where the reply is checked (`checkReply`): parts
   * are not checked, so such a caller gets everything in the reply.
   */
  onPart?: (json: SerializedMembers) => void;
}

/** Sends a request for a contract and returns the reply's value, or throws the ApiError it carries. */
export async function callContract<E extends Endpoint>(
  bus: Bus,
  endpoint: E,
  request: BusRequest<z.input<E['params']>>,
  options: CallOptions = {},
): Promise<HandlerResult<z.output<E['reply']>>> {
  const subject = options.subject ?? endpoint.subject;
  let reply: BusReply;
  try {
    // Parts are never checked: a checking caller gets everything in the reply, and checks it.
    const onPart = (options.checkReply ?? true) ? undefined : options.onPart;
    reply = (await bus.request(subject, request as unknown as Json, options.timeoutMs ?? 10_000, onPart && ((part) => onPart(part as unknown as SerializedMembers)))) as unknown as BusReply;
  } catch (err) {
    if (isBusError(err) && err.code === 'TIMEOUT') {
      throw new ApiError('GATEWAY_TIMEOUT', `The service behind ${subject} did not answer in time`, 504);
    }
    if (isBusError(err) && err.code === 'NO_RESPONDERS' && options.noResponders) throw options.noResponders();
    if (isBusError(err)) {
      throw new ApiError('SERVICE_UNAVAILABLE', `No service is answering ${subject}`, 503);
    }
    // A request the transport refuses by its size (both buses give nats.js's code): the
    // client's doing (a bot storage write of megabytes), so a clear refusal, not a 500.
    if ((err as { code?: unknown } | null)?.code === 'MAX_PAYLOAD_EXCEEDED') {
      throw badRequest('The request is too large to be handled at once; send less at a time.');
    }
    throw err;
  }
  if (!reply.ok) throw new ApiError(reply.error.code, reply.error.msg, reply.error.status, reply.error.extra);
  let value = reply.value as z.output<E['reply']>;
  if (options.checkReply ?? true) {
    const checked = endpoint.reply.safeParse(reply.value);
    if (!checked.success) {
      releaseLent(reply.json);
      throw new ReplyMismatchError(subject, describeZodIssue(checked.error.issues[0]));
    }
    value = checked.data as z.output<E['reply']>;
    if (endpoint.serialized && reply.json !== undefined) {
      const members = endpoint.serialized.safeParse(JSON.parse(asText(reply.json)));
      if (!members.success) {
        releaseLent(reply.json);
        throw new ReplyMismatchError(subject, describeZodIssue(members.error.issues[0]));
      }
    }
  }
  return {
    value,
    ...(reply.position !== undefined ? { position: reply.position } : {}),
    ...(reply.json !== undefined ? { json: reply.json } : {}),
  };
}

/** A service answered with a value its contract does not allow: a bug, reported as one. */
export class ReplyMismatchError extends Error {
  constructor(
    readonly subject: string,
    readonly issue: string,
  ) {
    super(`The reply to ${subject} does not match its contract: ${issue}`);
  }
}

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
}

/**
 * Whether a type issue is about a value that is not there. Zod 4 leaves `input` out of an
 * issue unless the parse asked for it (`reportInput`), so its absence says nothing; the
 * message then names the type received ("…, received undefined").
 */
function wasAbsent(issue: ZodIssueLike): boolean {
  return 'input' in issue ? issue.input === undefined : /\breceived undefined$/.test(issue.message);
}

/**
 * Zulip-style wording for a parameter that failed validation, naming the parameter as the
 * client knows it (`wireNameOf`): "Missing 'content' argument" or "Invalid 'num_before': ...".
 */
export function describeZodIssue(issue: ZodIssueLike | undefined, wireNameOf: (name: string) => string = (name) => name): string {
  if (!issue) return 'Invalid request';
  const [head, ...rest] = issue.path;
  const name = head === undefined ? 'request' : wireNameOf(String(head));
  if (issue.code === 'invalid_type' && rest.length === 0 && wasAbsent(issue)) return `Missing '${name}' argument`;
  const where = rest.length ? `${name}[${rest.map(String).join('][')}]` : name;
  return `Invalid '${where}': ${issue.message}`;
}
