/**
 * What travels on the bus besides the endpoints' own schemas (endpoints/): the request
 * envelope, the reply, and the publications every instance may hear. Every reply is a
 * value or an API error; the bus never carries exceptions.
 */
import { z } from 'zod';
import type { Actor } from './actor';
import type { ServiceName } from './endpoints/contract';
import type { ApiErrorShape } from './errors';

/** Instances of one service share its requests: one queue group per service, named after it. */
export const queueGroupOf = (service: ServiceName): string => service;

/** A subject anyone may publish on and every subscriber hears, with its payload's schema. */
export interface Publication<S extends z.ZodType> {
  subject: string;
  payload: S;
}

/**
 * Published after appends, carrying the new head position, so that subscribers in other
 * processes read the store at once instead of waiting for their next poll. `rows`: the
 * publisher's own facts up to that position, as the SQLite store holds them (`data` and
 * `metadata` as stored JSON text), so that the others need not query for them; left out
 * when they are large.
 */
export const storeAppended = {
  subject: 'store.appended',
  payload: z.object({
    position: z.number().int(),
    rows: z
      .array(
        z.object({
          position: z.number().int(),
          stream: z.string(),
          revision: z.number().int(),
          id: z.string(),
          type: z.string(),
          data: z.string(),
          metadata: z.string(),
          created: z.number(),
        }),
      )
      .optional(),
  }),
} satisfies Publication<z.ZodType>;
export type StoreAppended = z.infer<typeof storeAppended.payload>;

/**
 * Published by accounts when what the gateway caches of a user's credentials changes:
 * their actor (email, name, role, bot) or whether they may authenticate at all. The
 * gateway drops what it cached for them (see gateway/http/credentials-cache.ts).
 */
export const actorChanged = {
  subject: 'accounts.actor_changed',
  payload: z.object({
    user_id: z.number().int(),
    /** The store position of the fact that changed it. */
    position: z.number().int(),
  }),
} satisfies Publication<z.ZodType>;
export type ActorChanged = z.infer<typeof actorChanged.payload>;

export interface BusRequest<P = unknown> {
  /** Absent only for endpoints that need no authentication. */
  actor?: Actor;
  /**
   * Read-your-writes token: the store position of the caller's last write. The service
   * waits until its read models have caught up with it before answering.
   */
  after?: number;
  /**
   * Answer a write once it is durable, without waiting for the service's read models to
   * show it. Set only by a caller that makes every later request, whoever sends it, wait
   * for this write's position (the embedded server's one gateway: GatewayPeers
   * `everyWrite`); any other caller, e.g. a service calling another, reads the service's
   * read models right after the reply and needs them to show the write.
   */
  whenDurable?: true;
  /**
   * The web session the request came with (`/json/…`), as its hash: a password change
   * keeps it while ending the user's other sessions. Absent for API-key requests.
   */
  session?: string;
  /**
   * How long the caller waits for the answer, in ms (the gateway's timeout, less a
   * margin): work past it is for nobody, and a scan stops there (RequestBudget). Absent:
   * the bus's default timeout.
   */
  budget_ms?: number;
  /** Names the request in a `requestCancelled` notice (its client went away); absent: not cancellable. */
  request_id?: string;
  params: P;
}

/**
 * Members of a response already serialized, which follow `value`'s: the text of a JSON
 * object, or its UTF-8 bytes where the bus carries bytes (Bus `carriesBytes`), or there
 * several objects' bytes whose members together are the reply's (POST /register: each
 * owner's sections). Each of those is compact, `{` its first byte and `}` its last, and
 * they are joined only where they are written: the gateway writes one after another,
 * and a bus without bytes carries them as the text of one object.
 */
export type SerializedMembers = string | Uint8Array | readonly Uint8Array[];

export type BusReply<V = Record<string, unknown>> =
  | {
      ok: true;
      value: V;
      position?: number;
      /**
       * More members of the response, already serialized (see SerializedMembers).
       * Large replies (GET /messages) are assembled from cached per-message JSON and
       * cross the bus and the gateway without being re-serialized.
       */
      json?: SerializedMembers;
    }
  | { ok: false; error: ApiErrorShape };
