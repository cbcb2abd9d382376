/**
 * The one wrapper every bus endpoint goes through, on both sides. A service's handler
 * may throw an ApiError (or anything else); `serveEndpoint` always answers with a
 * BusReply, so no request is left hanging and nothing a client sends can crash a
 * process. `callEndpoint` turns the reply back into a value or an ApiError.
 */
import { ApiError, badRequest, isApiError, type BusReply, type BusRequest } from '@teamchat/contracts';
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import { isBusError, type Bus, type BusSubscription, type Json } from '../ports/bus';

export interface HandlerResult {
  value: Record<string, unknown>;
  /** Store position of the last fact the handler appended, for read-your-writes. */
  position?: number;
  /** Further members already serialized: a JSON object as text or as UTF-8 bytes (see BusReply). */
  json?: string | Uint8Array;
}

export type EndpointHandler<P> = (request: BusRequest<P>, log: Logger) => Promise<HandlerResult>;

/** A transport limit this large no reply of this API reaches (5000 maximal messages). */
const UNBOUNDED_PAYLOAD = 256 * 1024 * 1024;

export function serveEndpoint<P>(
  bus: Bus,
  subject: string,
  params: ZodType<P>,
  handler: EndpointHandler<P>,
  options: { queueGroup: string; log: Logger },
): Promise<BusSubscription> {
  // One child logger per endpoint, not per request: a pino child costs as much as a
  // trivial handler.
  const log = options.log.child({ subject });
  return bus.serve(
    subject,
    async (payload) => {
      let reply: BusReply;
      try {
        const request = payload as unknown as BusRequest<unknown>;
        const parsed = params.safeParse(request?.params ?? {});
        if (!parsed.success) throw badRequest(describeZodIssue(parsed.error.issues[0]));
        const result = await handler({ ...request, params: parsed.data }, log);
        reply = {
          ok: true,
          value: result.value,
          ...(result.position !== undefined ? { position: result.position } : {}),
          ...(result.json !== undefined ? { json: bus.carriesBytes ? result.json : asText(result.json) } : {}),
        };
      } catch (err) {
        if (isApiError(err)) {
          reply = { ok: false, error: { code: err.code, status: err.status, msg: err.msg, ...(err.extra ? { extra: err.extra } : {}) } };
        } else {
          log.error({ err }, 'handler failed');
          reply = { ok: false, error: { code: 'INTERNAL_SERVER_ERROR', status: 500, msg: 'Internal server error' } };
        }
      }
      // A reply the transport would refuse becomes a clear error instead of a timeout.
      // Measuring means serializing the reply once more, so only where a limit can bite.
      if (reply.ok && bus.maxPayload < UNBOUNDED_PAYLOAD && Buffer.byteLength(JSON.stringify(reply)) > bus.maxPayload) {
        reply = { ok: false, error: { code: 'BAD_REQUEST', status: 400, msg: 'The response would be too large; ask for less at a time.' } };
      }
      return reply as unknown as Json;
    },
    options.queueGroup,
  );
}

/** Bytes become text for a transport that would otherwise serialize them as an object. */
function asText(json: string | Uint8Array): string {
  return typeof json === 'string' ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8');
}

/** Sends a request and returns the reply's value, or throws the ApiError it carries. */
export async function callEndpoint(
  bus: Bus,
  subject: string,
  request: BusRequest<unknown>,
  timeoutMs = 10_000,
): Promise<HandlerResult> {
  let reply: BusReply;
  try {
    reply = (await bus.request(subject, request as unknown as Json, timeoutMs)) as unknown as BusReply;
  } catch (err) {
    if (isBusError(err) && err.code === 'TIMEOUT') {
      throw new ApiError('GATEWAY_TIMEOUT', `The service behind ${subject} did not answer in time`, 504);
    }
    if (isBusError(err)) {
      throw new ApiError('SERVICE_UNAVAILABLE', `No service is answering ${subject}`, 503);
    }
    throw err;
  }
  if (!reply.ok) throw new ApiError(reply.error.code, reply.error.msg, reply.error.status, reply.error.extra);
  return {
    value: reply.value,
    ...(reply.position !== undefined ? { position: reply.position } : {}),
    ...(reply.json !== undefined ? { json: reply.json } : {}),
  };
}

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
}

/**
 * Zulip-style wording for a parameter that failed validation, naming the parameter:
 * "Missing 'content' argument" or "Invalid 'num_before': ...".
 */
export function describeZodIssue(issue: ZodIssueLike | undefined): string {
  if (!issue) return 'Invalid request';
  const [head, ...rest] = issue.path;
  const name = head === undefined ? 'request' : String(head);
  if (issue.code === 'invalid_type' && issue.input === undefined && rest.length === 0) {
    return `Missing '${name}' argument`;
  }
  const where = rest.length ? `${name}[${rest.map(String).join('][')}]` : name;
  return `Invalid '${where}': ${issue.message}`;
}
