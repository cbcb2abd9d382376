/**
 * Event queues live on one instance of the events service each. With several instances
 * (the distributed mode), a queue id names its instance — `<instance>:<uuid>` — so that
 * the gateway sends every poll and deletion to that instance's own subject
 * (`events.get_events.<instance>`), and a poll of an instance that is gone finds no
 * responder: the client is told BAD_EVENT_QUEUE_ID and registers again. The embedded
 * server has one events service and plain UUIDs.
 */
import { z } from 'zod';

/** Instance names: what a NATS subject token and a database name can both hold. */
export const INSTANCE_NAME = /^[A-Za-z0-9_-]{1,40}$/;

export function queueIdOn(instance: string | undefined, uuid: string): string {
  return instance === undefined ? uuid : `${instance}:${uuid}`;
}

/** The instance a queue id names, if it names one that could exist. */
export function instanceOfQueueId(queueId: unknown): string | undefined {
  if (typeof queueId !== 'string') return undefined;
  const colon = queueId.indexOf(':');
  if (colon <= 0) return undefined;
  const instance = queueId.slice(0, colon);
  return INSTANCE_NAME.test(instance) ? instance : undefined;
}

/** The subject one instance serves a contract's requests on, beside the shared one. */
export function instanceSubject(subject: string, instance: string): string {
  return `${subject}.${instance}`;
}

/**
 * Read-your-writes across gateways: a gateway that answered a write tells the others the
 * writer's new position before it answers (gateway-peers in the gateway).
 */
export const gatewayWrote = {
  subject: 'gateway.wrote',
  payload: z.object({ user_id: z.number().int(), position: z.number().int().nonnegative() }),
};
export type GatewayWrote = z.infer<typeof gatewayWrote.payload>;

/**
 * A gateway's client closed its connection before the answer: the service working on the
 * request (BusRequest.request_id) stops at its next check (RequestBudget).
 */
export const requestCancelled = {
  subject: 'gateway.request_cancelled',
  payload: z.object({ request_id: z.string().max(100) }),
};

/**
 * Presence lives in the memory of each events instance: the instance that takes a report
 * shares it with the others, which record it and tell their own queues.
 */
export const presenceReported = {
  subject: 'events.presence_reported',
  payload: z.object({
    /** The instance that took the report (it has applied it already). */
    origin: z.string(),
    report: z.object({
      user_id: z.number().int(),
      email: z.string(),
      client: z.string(),
      status: z.enum(['active', 'idle']),
      nowSeconds: z.number(),
    }),
  }),
};
export type PresenceReported = z.infer<typeof presenceReported.payload>;
