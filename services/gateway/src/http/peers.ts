/**
 * Each user's last write position, the read-your-writes token the gateway sends with
 * the user's next request so that the service answers only once its read models show
 * that write.
 *
 * With several gateways (`shared`), a client may write through one and read through
 * another. The gateway that answered a write publishes the new position on the bus and
 * waits for NATS to have it before answering; every gateway keeps what the others
 * publish. Before authenticating a request, a gateway makes one round trip to NATS
 * (flush): NATS delivers in order on a connection, so every publication NATS had before
 * this request arrived (among them the write the client saw answered) has reached this
 * gateway by the time the round trip ends. One NATS round trip per request is the price.
 *
 * With `everyWrite` (the embedded server, one gateway), the token is the newest write
 * acknowledged to anyone, not the user's own: a service there may answer a write before
 * its read models show it (ServiceDeps.replyBeforeProjection), so every later request,
 * whoever sends it, must wait for every acknowledged write, as one user's requests wait
 * for that user's.
 */
import { ApiError, gatewayWrote, type Actor, type BusRequest } from '@teamchat/contracts';
import { isBusError, type Bus } from '@teamchat/platform';

/** The part of a request to a service that says which writes its answer must show. */
export type RequestConsistency = Pick<BusRequest, 'after' | 'whenDurable'>;

/**
 * A request's envelope, always of one shape: its absent members are undefined, which the
 * bus's JSON leaves out. V8 gives an object spread from another with more than a few
 * members (`{ ...(actor ? { actor } : {}), ...consistency, params }`) a hidden class of
 * its own, so each request allocated classes that only a full collection frees, and the
 * code reading envelopes saw a new class every time.
 */
export function busRequest<P>(
  actor: Actor | undefined,
  consistency: RequestConsistency,
  params: P,
  session?: string,
  budget?: { budget_ms: number; request_id: string | undefined },
): BusRequest<P> {
  const { after, whenDurable } = consistency;
  const budget_ms = budget?.budget_ms;
  const request_id = budget?.request_id;
  return session === undefined
    ? { actor, after, whenDurable, budget_ms, request_id, params }
    : { actor, after, whenDurable, session, budget_ms, request_id, params };
}

export class GatewayPeers {
  private readonly lastWrite = new Map<number, number>();
  /** The newest write acknowledged through this gateway, by anyone. */
  private newest: number | undefined;

  private constructor(
    private readonly bus: Bus,
    private readonly shared: boolean,
    private readonly everyWrite: boolean,
  ) {}

  static async join(bus: Bus, shared: boolean, everyWrite = false): Promise<GatewayPeers> {
    const peers = new GatewayPeers(bus, shared, everyWrite);
    if (shared) {
      await bus.subscribe(gatewayWrote.subject, (payload) => {
        const notice = gatewayWrote.payload.safeParse(payload);
        if (notice.success) peers.remember(notice.data.user_id, notice.data.position);
      });
    }
    return peers;
  }

  private remember(user: number, position: number): void {
    if (position > (this.lastWrite.get(user) ?? 0)) this.lastWrite.set(user, position);
  }

  /** The user's last write known to this gateway (with `everyWrite`, anyone's); without waiting. */
  known(user: number | undefined): number | undefined {
    if (this.everyWrite) return this.newest;
    return user === undefined ? undefined : this.lastWrite.get(user);
  }

  /**
   * Where gateways are `shared`: one round trip to NATS, so that every publication NATS
   * had before this request arrived has reached this gateway (see above): the write
   * positions of the user's requests answered elsewhere, and the notices of revoked
   * credentials (accounts.actor_changed) that any acknowledged revocation was published
   * after. Called once per authenticated request, before its credentials are looked up;
   * undefined (nothing to wait for) with one gateway.
   */
  sync(): Promise<void> | undefined {
    if (!this.shared) return undefined;
    return this.bus.flush().catch((err: unknown) => {
      if (isBusError(err)) throw new ApiError('SERVICE_UNAVAILABLE', 'The message bus is unavailable; try again shortly', 503);
      throw err;
    });
  }

  /**
   * The consistency part of a request on behalf of `user` (undefined: without
   * credentials): the write the service's answer must show (`after`) and, with
   * `everyWrite`, leave for the service to answer a write once durable (`whenDurable`).
   * Where gateways are `shared`, the request's `sync()` has run before this.
   */
  consistency(user: number | undefined): RequestConsistency {
    return this.consistencyAfter(this.known(user));
  }

  private consistencyAfter(after: number | undefined): RequestConsistency {
    // Literals, not spreads of conditional objects: see busRequest.
    if (after === undefined) return this.everyWrite ? { whenDurable: true } : {};
    return this.everyWrite ? { after, whenDurable: true } : { after };
  }

  /** A write was acknowledged: `user`'s, or nobody's in particular (a request without credentials). */
  async wrote(user: number | undefined, position: number): Promise<void> {
    if (position > (this.newest ?? 0)) this.newest = position;
    if (user === undefined || position <= (this.lastWrite.get(user) ?? 0)) return;
    this.lastWrite.set(user, position);
    if (!this.shared) return;
    try {
      this.bus.publish(gatewayWrote.subject, { user_id: user, position });
      await this.bus.flush();
    } catch {
      // The write is stored and is answered as such; only another gateway may not know of
      // it yet (it will once the bus is back and carries the publication).
    }
  }
}
