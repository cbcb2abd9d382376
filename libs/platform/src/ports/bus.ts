/**
 * The message bus port, shaped after NATS core: request/reply with a timeout for commands
 * and queries, publish/subscribe for fan-out, and queue groups so that N instances of a
 * service share the load (each request or message goes to one member of a group).
 *
 * Payloads are plain JSON values; adapters serialise them so that what crosses an
 * in-process bus is exactly what would cross the wire.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A failure of the bus itself, recognised by `code` so it survives any transport. */
export class BusError extends Error {
  constructor(
    /** DISCONNECTED: the transport is reconnecting; the request was not sent. */
    readonly code: 'NO_RESPONDERS' | 'TIMEOUT' | 'CLOSED' | 'DISCONNECTED',
    message: string,
  ) {
    super(message);
  }
}

export function isBusError(err: unknown): err is BusError {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'NO_RESPONDERS' || code === 'TIMEOUT' || code === 'CLOSED' || code === 'DISCONNECTED';
}

/**
 * A part of a reply sent ahead of it: the handler's `sendPart` (third argument) exists
 * only where the transport carries parts (the embedded mode's bus, which hands values
 * over) and the requester takes them. Elsewhere the handler puts everything in its reply.
 */
export type PartHandler = (part: Json) => void;

export type RequestHandler = (payload: Json, subject: string, sendPart?: PartHandler) => Promise<Json>;
export type MessageHandler = (payload: Json, subject: string) => void;

export interface BusSubscription {
  unsubscribe(): Promise<void>;
}

export interface Bus {
  /** Largest payload (bytes of JSON) the transport carries; larger ones are refused. */
  readonly maxPayload: number;

  /**
   * Whether bytes in a reply (a Uint8Array where BusReply allows one) reach the
   * requester as bytes: only where replies are not serialized on the way (by value in
   * one process, or moved between its threads). Elsewhere a replier sends text.
   */
  readonly carriesBytes: boolean;

  /**
   * Sends a request and waits for one reply. Rejects with BusError NO_RESPONDERS when
   * nobody serves the subject and TIMEOUT when no reply comes within `timeoutMs`.
   * `onPart` takes the parts the handler sends ahead of its reply, in order and before it,
   * where the transport carries them (RequestHandler); a transport that does not ignores it.
   */
  request(subject: string, payload: Json, timeoutMs: number, onPart?: PartHandler): Promise<Json>;

  /**
   * Serves requests on `subject`. With `queueGroup`, each request goes to one member of
   * the group. The handler's resolved value is the reply; a handler that throws is a bug
   * of the caller of `serve` (wrap handlers so they always resolve).
   */
  serve(subject: string, handler: RequestHandler, queueGroup?: string): Promise<BusSubscription>;

  /** Fire-and-forget publication to every subscriber (one per queue group). */
  publish(subject: string, payload: Json): void;

  /** `subject` may end in `.>` to match every subject under a prefix, as NATS does. */
  subscribe(subject: string, handler: MessageHandler, queueGroup?: string): Promise<BusSubscription>;

  /** Waits until everything published so far has been handed to the transport. */
  flush(): Promise<void>;

  close(): Promise<void>;
}
