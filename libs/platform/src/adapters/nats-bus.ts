import type { Codec, Msg, NatsConnection, Subscription } from 'nats';
import {
  BusError,
  type Bus,
  type BusSubscription,
  type Json,
  type MessageHandler,
  type RequestHandler,
} from '../ports/bus';
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_MAX_PAYLOAD } from './in-process-bus';
import { natsDriver } from './lazy-driver';

export interface NatsBusOptions {
  drainTimeoutMs?: number;
  /** Where handler failures go (they never reach the requester). */
  onHandlerError?: (err: unknown, subject: string) => void;
  /**
   * Told once when the connection to nats-server is lost and once when it is back, with the
   * outage's length (the operator's log lines; requests meanwhile fail with DISCONNECTED).
   */
  onConnectionChange?: (change: { up: false } | { up: true; outageMs: number }) => void;
}

let jsonCodec: Codec<Json> | undefined;
const codec = (): Codec<Json> => (jsonCodec ??= natsDriver().JSONCodec<Json>());

/**
 * The bus of the distributed mode, over NATS core (no JetStream).
 *
 * Payload limit: a request, reply or publication larger than the server's `max_payload`
 * (1 MiB by default) is refused by nats.js with code MAX_PAYLOAD_EXCEEDED. A request is
 * rejected with it; a reply that is too large is logged through `onHandlerError` and never
 * sent, so its requester times out. Replies that can grow with the data (message history,
 * initial state) must be paginated or bounded below that, or the server configured higher.
 */
export class NatsBus implements Bus {
  private readonly subscriptions = new Set<Subscription>();
  private readonly drainTimeoutMs: number;
  private readonly onHandlerError: (err: unknown, subject: string) => void;
  private readonly onConnectionChange: NatsBusOptions['onConnectionChange'];
  private lostAt: number | undefined;
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | undefined;
  /**
   * Set while the connection to nats-server is lost and being re-established. Requests
   * then fail at once (the caller answers 503) instead of waiting in nats.js's buffer for
   * their timeout; publications are still buffered and go out on reconnection.
   */
  private disconnected = false;

  private constructor(
    private readonly nc: NatsConnection,
    options: NatsBusOptions,
  ) {
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.onHandlerError = options.onHandlerError ?? reportToStderr;
    this.onConnectionChange = options.onConnectionChange;
    void this.watchStatus();
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.disconnected = true;
        // nats.js reports a disconnect per server tried: the outage began at the first.
        if (this.lostAt === undefined && !this.closing) {
          this.lostAt = Date.now();
          this.onConnectionChange?.({ up: false });
        }
      } else if (status.type === 'reconnect') {
        this.disconnected = false;
        if (this.lostAt !== undefined) {
          const outageMs = Date.now() - this.lostAt;
          this.lostAt = undefined;
          this.onConnectionChange?.({ up: true, outageMs });
        }
      }
    }
  }

  /** Whether the connection is up (not reconnecting, not closed). */
  get connected(): boolean {
    return !this.disconnected && !this.closing && !this.nc.isClosed();
  }

  static async connect(servers: string | string[], name?: string, options: NatsBusOptions = {}): Promise<NatsBus> {
    // A service outlives restarts of its NATS server: keep reconnecting rather than exit.
    const nc = await natsDriver().connect({ servers, name, maxReconnectAttempts: -1 });
    return new NatsBus(nc, options);
  }

  /** Replies cross the wire as JSON. */
  readonly carriesBytes = false;

  get maxPayload(): number {
    return this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  async request(subject: string, payload: Json, timeoutMs: number): Promise<Json> {
    if (this.closing) throw closedError();
    if (this.disconnected) throw disconnectedError();
    let msg: Msg;
    try {
      msg = await this.nc.request(subject, encode(payload), { timeout: timeoutMs });
    } catch (err) {
      throw translate(err, subject, timeoutMs);
    }
    return codec().decode(msg.data);
  }

  serve(subject: string, handler: RequestHandler, queueGroup?: string): Promise<BusSubscription> {
    // Each request is answered on its own, so a slow one (a long-poll) holds up no other.
    return this.listen(subject, queueGroup, (msg) => void this.answer(msg, handler));
  }

  publish(subject: string, payload: Json): void {
    if (this.closing) throw closedError();
    try {
      this.nc.publish(subject, encode(payload));
    } catch (err) {
      throw translate(err, subject);
    }
  }

  subscribe(subject: string, handler: MessageHandler, queueGroup?: string): Promise<BusSubscription> {
    return this.listen(subject, queueGroup, (msg) => {
      // A throw would escape into nats.js's protocol parser and break the connection.
      try {
        handler(codec().decode(msg.data), msg.subject);
      } catch (err) {
        this.onHandlerError(err, msg.subject);
      }
    });
  }

  async flush(): Promise<void> {
    if (this.closing) throw closedError();
    if (this.disconnected) throw disconnectedError();
    try {
      await this.nc.flush();
    } catch (err) {
      throw translate(err, '');
    }
  }

  /**
   * Refuses new work at once; stops this connection's subscriptions so that the other
   * members of their queue groups take over; lets running handlers reply (up to the drain
   * timeout, also covering a server that is unreachable); then drains the connection.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const graceful = (async () => {
      await Promise.all([...this.subscriptions].map((s) => s.drain()));
      await this.idle();
      await this.nc.drain();
    })();
    // Once the deadline has passed, close() below makes the steps still waiting fail.
    graceful.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        graceful,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.drainTimeoutMs);
        }),
      ]);
    } catch {
      // The connection was already gone; nothing left to drain.
    } finally {
      clearTimeout(timer);
      if (!this.nc.isClosed()) await this.nc.close();
    }
  }

  private async answer(msg: Msg, handler: RequestHandler): Promise<void> {
    this.running++;
    try {
      const reply = await handler(codec().decode(msg.data), msg.subject);
      // A publication on a served subject runs the handler with nobody to reply to.
      if (msg.reply) msg.respond(encode(reply));
    } catch (err) {
      // No reply: the requester times out. Handlers are expected to always resolve.
      this.onHandlerError(err, msg.subject);
    } finally {
      if (--this.running === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  private idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async listen(
    subject: string,
    queue: string | undefined,
    onMessage: (msg: Msg) => void,
  ): Promise<BusSubscription> {
    if (this.closing) throw closedError();
    let sub: Subscription;
    try {
      sub = this.nc.subscribe(subject, {
        queue,
        callback: (err, msg) => {
          if (err) this.onHandlerError(err, subject);
          else onMessage(msg);
        },
      });
      // The round trip makes the server know the subscription before this resolves; else a
      // request sent right away from another connection could find no responders.
      await this.nc.flush();
    } catch (err) {
      throw translate(err, subject);
    }
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        if (!this.subscriptions.delete(sub)) return;
        sub.unsubscribe();
        if (!this.closing && !this.nc.isClosed()) await this.nc.flush();
      },
    };
  }
}

function encode(value: Json): Uint8Array {
  // The wire has no undefined; JSONCodec would send an empty body that no one can decode.
  return codec().encode(value === undefined ? null : value);
}

function translate(err: unknown, subject: string, timeoutMs?: number): unknown {
  const { ErrorCode } = natsDriver();
  switch ((err as { code?: unknown } | null)?.code) {
    case ErrorCode.NoResponders:
      return new BusError('NO_RESPONDERS', `no responders for ${subject}`);
    case ErrorCode.Timeout:
      return new BusError('TIMEOUT', `no reply on ${subject} within ${timeoutMs} ms`);
    case ErrorCode.ConnectionClosed:
    case ErrorCode.ConnectionDraining:
      return closedError();
    // What nats.js rejects a flush under way with when the connection drops before its
    // PONG (the status event that sets `disconnected` comes after).
    case ErrorCode.Disconnect:
      return disconnectedError();
    default:
      return err;
  }
}

function disconnectedError(): BusError {
  return new BusError('DISCONNECTED', 'the bus is reconnecting to nats-server');
}

function closedError(): BusError {
  return new BusError('CLOSED', 'the bus is closed');
}

function reportToStderr(err: unknown, subject: string): void {
  console.error(`bus handler on ${subject} failed:`, err);
}
