/**
 * The one error type of the API. It carries the wire `code`, the HTTP status and any
 * code-specific fields, and is recognised by its shape rather than by `instanceof` so
 * that it survives a trip over the bus as plain JSON.
 */

/** Every wire `code` an error reply may carry (the OpenAPI description lists them). */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  /** A `/json/…` request without its session's X-CSRFToken (Zulip's CsrfFailureError). */
  'CSRF_FAILED',
  'INVALID_API_KEY',
  'AUTHENTICATION_FAILED',
  'USER_DEACTIVATED',
  'STREAM_DOES_NOT_EXIST',
  'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
  'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
  'INVITATION_FAILED',
  'PERMISSION_DENIED',
  'BAD_EVENT_QUEUE_ID',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMIT_HIT',
  'PUSH_SERVICE_NOT_CONFIGURED',
  'SERVICE_UNAVAILABLE',
  'GATEWAY_TIMEOUT',
  'INTERNAL_SERVER_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ApiErrorShape {
  code: ErrorCode;
  status: number;
  msg: string;
  /** Code-specific fields added to the error envelope (e.g. `stream`). */
  extra?: Record<string, unknown>;
}

export class ApiError extends Error implements ApiErrorShape {
  constructor(
    readonly code: ErrorCode,
    readonly msg: string,
    readonly status: number = 400,
    readonly extra?: Record<string, unknown>,
  ) {
    super(msg);
  }

  toJSON(): ApiErrorShape {
    return { code: this.code, status: this.status, msg: this.msg, ...(this.extra ? { extra: this.extra } : {}) };
  }
}

export function isApiError(err: unknown): err is ApiErrorShape {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Partial<ApiErrorShape>;
  return typeof e.code === 'string' && typeof e.status === 'number' && typeof e.msg === 'string';
}

export const badRequest = (msg: string, extra?: Record<string, unknown>) => new ApiError('BAD_REQUEST', msg, 400, extra);

export const streamDoesNotExist = (stream: string | number) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${String(stream)}' does not exist`, 400, { stream });

/** Zulip's answer, on a server with no push bouncer, to a registration for end-to-end encrypted push notifications. */
export const pushServiceNotConfigured = () =>
  new ApiError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.', 400);
