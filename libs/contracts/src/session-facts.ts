/**
 * Web sessions (the browser client's login, Zulip's Django sessions): one stream per user.
 * A session is named only by the SHA-256 of its cookie's value (`session_hash`): no fact,
 * read model or log line holds a usable session id. A session ends by logging out, by
 * its expiry, by its user's deactivation (UserDeactivated) or by a new password
 * (UserPasswordSet ends every other session of the user; see `kept_session_hash` there).
 */
import { z } from 'zod';

const int = () => z.number().int();

export const SessionStarted = z.object({
  type: z.literal('SessionStarted'),
  user_id: int(),
  session_hash: z.string(),
  /** How the person logged in: `password` or `dev` (the development login page). */
  method: z.enum(['password', 'dev']),
  /** The client name from the User-Agent, as messages record it. */
  client: z.string(),
  /** Milliseconds since the epoch. */
  started_at: int(),
  expires_at: int(),
});

export const SessionEnded = z.object({
  type: z.literal('SessionEnded'),
  user_id: int(),
  session_hash: z.string(),
  /** `expired`: the sweep dropped a session past its `expires_at` (it was refused from then on already). */
  reason: z.enum(['logout', 'expired']),
});

export const SESSION_FACTS = [SessionStarted, SessionEnded] as const;
