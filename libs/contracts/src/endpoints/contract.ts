/**
 * What an endpoint is, once, for both sides of the bus: the gateway builds its route from
 * it and the owning service serves it. A contract names its bus subject (so the subject
 * string exists in one place), the parameters the service receives, the reply it sends
 * and whether the caller must be authenticated. Internal endpoints (seeding, the
 * command-line tool, the gateway's own authentication) have no `http` and no route.
 * The gateway publishes the routed ones as an OpenAPI 3.1 description generated from
 * these schemas (services/gateway/src/openapi/document.ts says what it does not express:
 * refinements and other checks made in code).
 */
import { z, type ZodObject } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The services that answer requests on the bus; each is one queue group. */
export type ServiceName = 'accounts' | 'channels' | 'messaging' | 'events';

export interface HttpBinding {
  method: HttpMethod;
  /** Path under /api/v1 as the spec writes it, path parameters in braces: `/messages/{message_id}`. */
  path: string;
  /** Further paths Zulip clients use for the same endpoint. */
  aliases?: readonly string[];
  /** Long-polls wait longer than the default bus timeout. */
  longPoll?: boolean;
  /**
   * Parameters the wire names otherwise than the spec's resources do (Zulip's legacy
   * names: `stream_id`, `subject`, `new_name`, …): wire name → the name in `params`. The
   * gateway translates them, so no service sees a legacy name; where a request carries
   * both names, the one in `params` wins.
   */
  wireNames?: Readonly<Record<string, string>>;
  /**
   * A key endpoint (an API key for proof of identity): the gateway gives it the stricter
   * login rate limits, per client address and, for failed attempts, per account named.
   */
  login?: boolean;
  /**
   * Parameters the gateway takes from request headers (parameter name → header name, lower
   * case), replacing any the client sent under that name: what a reply depends on that
   * Zulip reads from the request itself (GET /server_settings's `is_incompatible`, from
   * the User-Agent).
   */
  fromHeaders?: Readonly<Record<string, string>>;
  /** The largest request body accepted, in bytes, where the gateway's default does not fit. */
  bodyLimit?: number;
  /** The longest JSON-encoded parameter accepted, in characters, where the gateway's default (1 MiB) does not fit. */
  maxJsonLength?: number;
  /**
   * Served by the events instance that the request's `queue_id` names (queue-ids.ts): the
   * gateway sends it to that instance's subject, and answers BAD_EVENT_QUEUE_ID when no
   * such instance is running.
   */
  routeByQueueId?: boolean;
  /**
   * The service may send members of its reply ahead of it (RequestContext `sendPart`):
   * the gateway starts the response with the first part and writes each as it comes, the
   * reply's members last. Its status is then 200 whatever follows; a failure after it
   * cuts the response, which the client sees as a broken connection, never as a success.
   */
  inParts?: boolean;
  /**
   * `upload`: a multipart request carrying one file, which the gateway stores in the blob
   * store and describes to the service as the `file` parameter. `download`: the reply
   * says where a file is (FileLocation), and the gateway answers with its bytes.
   * `delete`: the reply names the blobs whose records the service removed
   * (`removed_blobs`); the gateway deletes their bytes and answers without the list (an
   * upload's reply may name some too: the file the new one replaced).
   */
  files?: 'upload' | 'download' | 'delete';
  /**
   * What an upload is, for its size limit, where its bytes go and the refusals' wording:
   * a custom emoji's image, a user's avatar, or (absent) a message's attachment.
   */
  upload?: 'emoji' | 'avatar';
}

export interface Endpoint<P extends ZodObject = ZodObject, R extends ZodObject = ZodObject, A extends boolean = boolean> {
  service: ServiceName;
  /** The bus subject the service answers on: `<service>.<name>`. */
  subject: string;
  params: P;
  /** The reply's members (`result` and `msg` are the gateway's). */
  reply: R;
  /**
   * Members the service sends already serialized (a BusReply's `json`), which the gateway
   * splices into the response without parsing them: large or repeated ones (a page of
   * messages, the events of a thousand long-polls) cost one serialization, or none. They
   * are checked against this schema wherever replies are checked (the test suites).
   */
  serialized?: ZodObject;
  /** Whether the request carries an authenticated actor; the service refuses it otherwise. */
  auth: A;
  http?: HttpBinding;
}

/** The parameters a caller sends (before defaults are filled in). */
export type ParamsOf<E extends Endpoint> = z.input<E['params']>;

/** Declares a contract; the literal types of `auth` and the schemas are kept for both sides. */
export function endpoint<P extends ZodObject, R extends ZodObject, A extends boolean>(contract: Endpoint<P, R, A>): Endpoint<P, R, A> {
  return contract;
}

export const NoParams = z.object({});
/** The reply of an endpoint that answers with nothing but success. */
export const EmptyReply = z.object({});

/**
 * Where the mail a request queued stands when it answers (this server's addition; Zulip
 * clients ignore members they do not know): `pending` until the outbox delivers it, `sent`
 * when delivery was immediate (the development outbox), `failed` if it was given up. The
 * request's change is in place whatever it says. Absent when the request mailed nothing.
 */
export const EmailDelivery = z.enum(['pending', 'sent', 'failed']);
export const EmailDeliveryReply = z.object({ email_delivery: EmailDelivery.optional() });
