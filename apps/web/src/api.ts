/**
 * The page's only way to the server: the session interface. `/login` and `/logout` for the
 * session, `/json/<path>` for every API endpoint (the same as `/api/v1/<path>`),
 * authenticated by the HttpOnly session cookie, with the CSRF token in `X-CSRFToken` on
 * every request that is not a GET. The page never sees an API key.
 *
 * Request and reply types come from the endpoint contracts (@teamchat/contracts, types
 * only): a contract change that breaks the client fails its build.
 */
import type { ParamsOf, endpoints, Endpoint, MessageWithFlags } from '@teamchat/contracts';
import { ApiError } from '@teamchat/client-model';
import type { z } from 'zod';

export { ApiError };

type Endpoints = typeof endpoints;
/** What an endpoint answers (its members sent pre-serialized are typed where used: the Endpoint type does not keep their schema). */
export type ReplyOf<E extends Endpoint> = z.output<E['reply']>;

export type RegisterReply = ReplyOf<Endpoints['events']['register']>;
export type GetMessagesReply = ReplyOf<Endpoints['messaging']['getMessages']> & { messages: MessageWithFlags[] };
export type SendMessageParams = ParamsOf<Endpoints['messaging']['sendMessage']>;
export type SendMessageReply = ReplyOf<Endpoints['messaging']['sendMessage']>;
export type GetMessagesParams = ParamsOf<Endpoints['messaging']['getMessages']>;
export type UpdateFlagsParams = ParamsOf<Endpoints['messaging']['updateFlags']>;
export type RegisterParams = ParamsOf<Endpoints['events']['register']>;

export interface Session {
  user_id: number;
  email: string;
  full_name: string;
  csrf_token: string;
}

let csrfToken = '';
/** Called when a request finds the session gone (401): the page goes back to the login form. */
let onSessionLost: (error: ApiError) => void = () => undefined;

/** The session's CSRF token, for requests made outside `request` (uploads, for their progress). */
export const csrf = () => csrfToken;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export function whenSessionLost(handler: (error: ApiError) => void): void {
  onSessionLost = handler;
}

/** A failure in words a person can act on (shown in the page, never only in the console). */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'NETWORK') return 'Cannot reach the server. Check your connection; the app keeps trying.';
  if (error.code === 'TIMEOUT') return 'The server did not answer in time. Check your connection and try again.';
  if (error.code === 'STALLED') return 'The server stopped answering. Reconnecting…';
  if (error.code === 'CSRF_FAILED' || (error.status === 403 && /csrf/i.test(error.message)))
    return 'Your session’s security token was refused. Reload the page to continue; what you typed is kept.';
  if (error.status === 401) return 'Your session has ended. Log in again; what you typed is kept.';
  if (error.status === 429) return 'Too many requests: the server asks to slow down. Retrying shortly.';
  if (error.status === 502 || error.status === 503 || error.status === 504) return 'The server is unavailable right now. Retrying…';
  if (error.status >= 500) return `The server failed (${error.status}). Try again in a moment.`;
  return error.message || `Request failed (${error.status}).`;
}

function encode(params: Record<string, unknown>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    body.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return body;
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: { msg?: string; code?: string } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not JSON: a proxy's page, or the server restarting.
  }
  return new ApiError(body.msg ?? res.statusText ?? `HTTP ${res.status}`, body.code ?? (res.status === 403 ? 'FORBIDDEN' : `HTTP_${res.status}`), res.status);
}

export async function request<R>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<R> {
  const query = method === 'GET' || method === 'DELETE' ? `?${encode(params).toString()}` : '';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-CSRFToken'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`${path}${query === '?' ? '' : query}`, {
      method,
      headers,
      body: method === 'GET' || method === 'DELETE' ? undefined : encode(params),
      credentials: 'same-origin',
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError' ? new ApiError('timeout', 'TIMEOUT', 0) : new ApiError('aborted', 'ABORTED', 0);
    throw new ApiError(e instanceof Error ? e.message : 'network error', 'NETWORK', 0);
  }
  if (!res.ok) {
    const error = await errorOf(res);
    if (res.status === 401 && !path.startsWith('/login')) onSessionLost(error);
    throw error;
  }
  return (await res.json()) as R;
}

/** A multipart POST (a file upload), with the session's CSRF token; a refusal is an ApiError like any other. */
export async function postForm<R>(path: string, form: FormData): Promise<R> {
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers: { Accept: 'application/json', 'X-CSRFToken': csrfToken }, body: form, credentials: 'same-origin' });
  } catch (e) {
    throw new ApiError(e instanceof Error ? e.message : 'network error', 'NETWORK', 0);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as R;
}

export const json = <R>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, params?: Record<string, unknown>, signal?: AbortSignal) =>
  request<R>(method, `/json${path}`, params, signal);

export const api = {
  session: () => request<Session>('GET', '/json/session'),
  login: (username: string, password: string) => request<Session & { result: string }>('POST', '/login', { username, password }),
  devUsers: () => request<{ users: { email: string; full_name: string; role: number | string }[] }>('GET', '/login/dev_users'),
  devLogin: (email: string) => request<Session & { result: string }>('POST', '/login/dev', { email }),
  logout: () => request<unknown>('POST', '/logout'),
  register: (params: RegisterParams) => json<RegisterReply>('POST', '/register', params as Record<string, unknown>),
  getEvents: (queue_id: string, last_event_id: number, signal: AbortSignal) =>
    json<{ events: { type: string; id: number }[] }>('GET', '/events', { queue_id, last_event_id }, signal),
  getMessages: (params: GetMessagesParams) => json<GetMessagesReply>('GET', '/messages', params as Record<string, unknown>),
  // A send that hangs (a server going away mid-request) fails in time, so its text goes back to the box.
  sendMessage: (params: SendMessageParams) => json<SendMessageReply>('POST', '/messages', params as Record<string, unknown>, AbortSignal.timeout(15_000)),
  updateFlags: (params: UpdateFlagsParams) => json<{ messages: number[] }>('POST', '/messages/flags', params as Record<string, unknown>),
  topics: (streamId: number) => json<{ topics: { name: string; max_id: number }[] }>('GET', `/users/me/${streamId}/topics`),
};
