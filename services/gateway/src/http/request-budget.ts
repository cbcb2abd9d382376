/**
 * What a request to a service may spend: the time the gateway waits for its answer, and
 * its client's presence. The service is told both (BusRequest budget_ms and request_id)
 * and stops a long scan when either runs out (RequestBudget in the platform), so that a
 * request nobody waits for any more no longer holds the service's thread: a search
 * abandoned at the gateway's timeout went on for about 58 s, every other user's messaging
 * request waiting behind it.
 */
import { randomBytes } from 'node:crypto';
import { requestCancelled } from '@teamchat/contracts';
import type { Bus } from '@teamchat/platform';
import type { FastifyReply } from 'fastify';

/**
 * The service's share of the gateway's timeout: it stops a little before the gateway
 * gives up, so that its own error (which says what to do) reaches the client rather than
 * the gateway's bare timeout.
 */
export function serviceBudgetMs(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(1000, timeoutMs / 4));
}

export class RequestCancellation {
  /** Unique across gateways sharing a bus: a random prefix per gateway, then a counter. */
  private readonly prefix = randomBytes(6).toString('base64url');
  private count = 0;

  constructor(private readonly bus: Bus) {}

  /**
   * Names the request, and tells the services to stop working on it if its client closes
   * the connection before the answer is written.
   */
  follow(reply: FastifyReply): string {
    const requestId = `${this.prefix}.${++this.count}`;
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      try {
        this.bus.publish(requestCancelled.subject, { request_id: requestId });
      } catch {
        // The bus is down: the service stops at the request's deadline instead.
      }
    });
    return requestId;
  }
}
