/**
 * The bus across threads of one process. The embedded mode runs a service on a worker
 * thread so that it has a core of its own; that thread's services talk to the rest over
 * a MessagePort, through the main thread's in-process bus:
 *
 *   worker: PortBus ── MessagePort ── main: bridgePort(hub) ── InProcessBus (the hub)
 *
 * The hub does all the routing (subjects, wildcards, queue groups, timeouts, payload
 * limits); the PortBus only forwards. A `serve` or `subscribe` on the PortBus becomes a
 * proxy subscription on the hub that passes each delivery to the worker. Payloads cross
 * the port by structured clone, which copies strings without escaping them: a reply that
 * carries its JSON as text is not serialized a second time, and one that carries it as
 * bytes (GET /messages, see `carriesBytes`) moves them without a copy. What the hub
 * hands a worker has already been through JSON, so the wire's rules (Dates as strings,
 * no undefined) hold as on any other bus.
 */
import type { MessagePort } from 'node:worker_threads';
import { BusError, isBusError, type Bus, type BusSubscription, type Json, type MessageHandler, type RequestHandler } from '../ports/bus';
import { enableReplyArena, releaseLent } from '../kit/reply-arena';

/** Worker → main. */
type Upstream =
  | { op: 'serve' | 'subscribe'; id: number; sid: number; subject: string; queueGroup?: string }
  | { op: 'unsubscribe'; id: number; sid: number }
  | { op: 'flush'; id: number }
  | { op: 'request'; id: number; subject: string; payload: Json; timeoutMs: number }
  | { op: 'publish'; subject: string; payload: Json }
  | { op: 'handled'; delivery: number; reply: Json }
  | { op: 'failed'; delivery: number; error: string };

/** Main → worker. */
type Downstream =
  | { op: 'done'; id: number; reply?: Json; error?: { code?: string; message: string } }
  | { op: 'deliver'; sid: number; delivery?: number; subject: string; payload: Json };

const DRAIN_TIMEOUT_MS = 10_000;

/** Serves a worker's PortBus from the hub. `close` drops every proxy subscription. */
export function bridgePort(hub: Bus, port: MessagePort): { close(): Promise<void> } {
  const proxies = new Map<number, BusSubscription>();
  /** Requests the worker is handling, by delivery number. */
  const handling = new Map<number, { resolve: (reply: Json) => void; reject: (err: Error) => void }>();
  let nextDelivery = 0;
  const send = (message: Downstream) => port.postMessage(message);
  const done = (id: number, work: Promise<Json | void>) =>
    work.then(
      (reply) => send({ op: 'done', id, ...(reply === undefined ? {} : { reply }) }),
      (err: unknown) => send({ op: 'done', id, error: describeError(err) }),
    );

  port.on('message', (message: Upstream) => {
    switch (message.op) {
      case 'serve': {
        const { sid } = message;
        const serving = hub.serve(
          message.subject,
          (payload, subject) =>
            new Promise<Json>((resolve, reject) => {
              const delivery = nextDelivery++;
              handling.set(delivery, { resolve, reject });
              send({ op: 'deliver', sid, delivery, subject, payload });
            }),
          message.queueGroup,
        );
        return void done(message.id, serving.then((sub) => void proxies.set(sid, sub)));
      }
      case 'subscribe': {
        const { sid } = message;
        const subscribing = hub.subscribe(
          message.subject,
          (payload, subject) => send({ op: 'deliver', sid, subject, payload }),
          message.queueGroup,
        );
        return void done(message.id, subscribing.then((sub) => void proxies.set(sid, sub)));
      }
      case 'unsubscribe': {
        const proxy = proxies.get(message.sid);
        proxies.delete(message.sid);
        return void done(message.id, proxy ? proxy.unsubscribe() : Promise.resolve());
      }
      case 'flush':
        return void done(message.id, hub.flush());
      case 'request':
        return void done(message.id, hub.request(message.subject, message.payload, message.timeoutMs));
      case 'publish':
        try {
          hub.publish(message.subject, message.payload);
        } catch (err) {
          // Fire-and-forget: the publisher is not waiting for an answer. Dropped quietly
          // while the hub closes; anything else (an oversized payload) is a bug to see.
          if (!isBusError(err)) console.error(`publication on ${message.subject} refused:`, err);
        }
        return;
      case 'handled':
      case 'failed': {
        const waiting = handling.get(message.delivery);
        handling.delete(message.delivery);
        if (message.op === 'failed') waiting?.reject(new Error(message.error));
        else if (waiting) waiting.resolve(message.reply);
        // Nobody will read a reply that comes after close(): its lent bytes go back now.
        else releaseLent((message.reply as { json?: unknown } | null)?.json);
        return;
      }
    }
  });

  return {
    async close() {
      const subs = [...proxies.values()];
      proxies.clear();
      await Promise.all(subs.map((sub) => sub.unsubscribe()));
      for (const { reject } of handling.values()) reject(new BusError('CLOSED', 'the worker thread stopped'));
      handling.clear();
      port.close();
    },
  };
}

/** The worker's side: a Bus whose every operation the main thread's hub carries out. */
export class PortBus implements Bus {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (reply: Json) => void; reject: (err: unknown) => void }>();
  private readonly handlers = new Map<number, { serve?: RequestHandler; message?: MessageHandler }>();
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | undefined;
  /** The main thread's end is gone: nothing sent would be answered. */
  private disconnected = false;

  /**
   * `carriesBytes`: the hub passes replies by value (InProcessBus `copyReplies: false`),
   * so a reply's bytes (BusReply `json`) reach the requester as bytes. They cross the
   * port by moving their buffer, not copying it: a page of GET /messages goes from this
   * thread's renderer to the main thread's socket without ever being a string there.
   * Such a thread leases its reply bytes from shared memory when it can (reply-arena.ts):
   * those cross by reference and the main thread gives them back.
   */
  readonly carriesBytes: boolean;

  constructor(
    private readonly port: MessagePort,
    readonly maxPayload: number,
    options: { carriesBytes?: boolean } = {},
  ) {
    this.carriesBytes = options.carriesBytes ?? false;
    if (this.carriesBytes) enableReplyArena();
    port.on('message', (message: Downstream) => (message.op === 'done' ? this.settle(message) : this.deliver(message)));
    port.on('close', () => {
      this.disconnected = true;
      this.failWaiting();
    });
  }

  request(subject: string, payload: Json, timeoutMs: number): Promise<Json> {
    if (this.closing || this.disconnected) return Promise.reject(closedError());
    return new Promise<Json>((resolve, reject) => {
      const id = this.nextId++;
      // The hub times the request out; this timer only guards against a silent main thread.
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new BusError('TIMEOUT', `no reply on ${subject} within ${timeoutMs} ms`));
      }, timeoutMs + 1000);
      const settle = <T>(fn: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        fn(value);
      };
      this.waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
      this.post({ op: 'request', id, subject, payload, timeoutMs });
    });
  }

  serve(subject: string, handler: RequestHandler, queueGroup?: string): Promise<BusSubscription> {
    return this.add('serve', subject, { serve: handler }, queueGroup);
  }

  publish(subject: string, payload: Json): void {
    if (this.closing) throw closedError();
    this.post({ op: 'publish', subject, payload });
  }

  subscribe(subject: string, handler: MessageHandler, queueGroup?: string): Promise<BusSubscription> {
    return this.add('subscribe', subject, { message: handler }, queueGroup);
  }

  flush(): Promise<void> {
    // A round trip: the hub has had every earlier publication, and flushed its own.
    return this.closing ? Promise.reject(closedError()) : this.call({ op: 'flush' }).then(() => undefined);
  }

  /**
   * Refuses new work, lets running handlers reply (up to the drain timeout), then drops
   * this thread's subscriptions on the hub and fails requests still unanswered.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const idle = this.running === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await Promise.race([idle, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)))]);
    clearTimeout(timer);
    const sids = [...this.handlers.keys()];
    this.handlers.clear();
    await Promise.all(sids.map((sid) => this.call({ op: 'unsubscribe', sid }).catch(() => undefined)));
    this.failWaiting();
    this.port.close();
  }

  private failWaiting(): void {
    for (const { reject } of this.waiting.values()) reject(closedError());
    this.waiting.clear();
  }

  private async add(
    op: 'serve' | 'subscribe',
    subject: string,
    handler: { serve?: RequestHandler; message?: MessageHandler },
    queueGroup: string | undefined,
  ): Promise<BusSubscription> {
    if (this.closing) throw closedError();
    const sid = this.nextId++;
    this.handlers.set(sid, handler);
    try {
      await this.call({ op, sid, subject, ...(queueGroup === undefined ? {} : { queueGroup }) });
    } catch (err) {
      this.handlers.delete(sid);
      throw err;
    }
    return {
      unsubscribe: async () => {
        if (!this.handlers.delete(sid)) return;
        await this.call({ op: 'unsubscribe', sid });
      },
    };
  }

  /** An operation the hub confirms (or refuses) with a `done` message. */
  private call(message: DistributiveOmit<Extract<Upstream, { id: number }>, 'id'>): Promise<Json> {
    if (this.disconnected) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      this.post({ ...message, id } as Upstream);
    });
  }

  private settle(message: Extract<Downstream, { op: 'done' }>): void {
    const waiting = this.waiting.get(message.id);
    if (!waiting) return;
    this.waiting.delete(message.id);
    if (message.error) waiting.reject(restore(message.error));
    else waiting.resolve(message.reply ?? null);
  }

  private deliver(message: Extract<Downstream, { op: 'deliver' }>): void {
    const handler = this.handlers.get(message.sid);
    const { delivery } = message;
    if (delivery === undefined) {
      if (!handler?.message) return;
      try {
        handler.message(message.payload, message.subject);
      } catch (err) {
        console.error(`bus handler on ${message.subject} failed:`, err);
      }
      return;
    }
    if (!handler?.serve) {
      // Unsubscribed since the hub chose us: no reply, as over NATS.
      this.post({ op: 'failed', delivery, error: `no handler on ${message.subject} any more` });
      return;
    }
    this.running++;
    handler.serve(message.payload, message.subject).then(
      (reply) => this.reply(delivery, reply),
      // The hub logs it, once, and the requester gets no reply (a timeout), as over NATS.
      (err: unknown) => this.post({ op: 'failed', delivery, error: (err as Error)?.stack ?? String(err) }),
    ).finally(() => {
      if (--this.running === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }

  private reply(delivery: number, reply: Json): void {
    const bytes = (reply as { json?: unknown } | null)?.json;
    // Only a buffer the bytes fill alone can move (a slice of Node's pool would take the
    // pool with it); any other is copied, as structured clone does, except lent bytes
    // (shared memory), which structured clone passes by reference.
    const movable = bytes instanceof Uint8Array && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    if (movable) this.port.postMessage({ op: 'handled', delivery, reply } satisfies Upstream, [bytes.buffer as ArrayBuffer]);
    else this.post({ op: 'handled', delivery, reply });
  }

  private post(message: Upstream): void {
    this.port.postMessage(message);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function describeError(err: unknown): { code?: string; message: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return { ...(typeof code === 'string' ? { code } : {}), message: (err as Error)?.message ?? String(err) };
}

/** Bus failures keep their class across the port, so `isBusError` still recognises them. */
function restore(error: { code?: string; message: string }): Error {
  if (isBusError(error)) return new BusError(error.code, error.message);
  return Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code });
}

function closedError(): BusError {
  return new BusError('CLOSED', 'the bus is closed');
}
