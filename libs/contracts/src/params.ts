/**
 * Endpoint parameters, typed as the services receive them. The gateway decodes the wire
 * form (query string, form-urlencoded or multipart; JSON-encoded arrays and objects;
 * `true`/`false` booleans) into these shapes guided by the schema itself, then validates;
 * services validate again at their bus edge, so nothing unchecked reaches a decider.
 */
import { z } from 'zod';

const int = () => z.number().int();
const nonNegativeInt = () => z.number().int().min(0);

export const DevFetchApiKeyParams = z.object({ username: z.string() });

export const JwtFetchApiKeyParams = z.object({
  token: z.string(),
  include_profile: z.boolean().optional(),
});

export const SendMessageParams = z.object({
  type: z.enum(['direct', 'private', 'channel', 'stream']),
  to: z.union([z.string(), int(), z.array(z.string()), z.array(int())]),
  content: z.string(),
  topic: z.string().optional(),
  /** Legacy name of `topic`. */
  subject: z.string().optional(),
  queue_id: z.string().optional(),
  local_id: z.string().optional(),
  read_by_sender: z.boolean().optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

const NarrowOperand = z.union([z.string(), int(), z.array(z.union([z.string(), int()]))]);
export const NarrowTerm = z.union([
  z.object({ operator: z.string(), operand: NarrowOperand, negated: z.boolean().optional() }),
  /** Legacy form: [operator, operand]. */
  z.tuple([z.string(), NarrowOperand]),
]);
export type NarrowTerm = z.infer<typeof NarrowTerm>;

export const GetMessagesParams = z.object({
  anchor: z.union([z.string(), int()]).optional(),
  include_anchor: z.boolean().optional(),
  anchor_date: z.string().optional(),
  num_before: nonNegativeInt().optional(),
  num_after: nonNegativeInt().optional(),
  narrow: z.array(NarrowTerm).optional(),
  client_gravatar: z.boolean().optional(),
  apply_markdown: z.boolean().optional(),
  message_ids: z.array(int()).optional(),
  allow_empty_topic_name: z.boolean().optional(),
  use_first_unread_anchor: z.boolean().optional(),
});
export type GetMessagesParams = z.infer<typeof GetMessagesParams>;

export const RegisterParams = z.object({
  event_types: z.array(z.string()).optional(),
  fetch_event_types: z.array(z.string()).optional(),
  narrow: z.array(NarrowTerm).optional(),
  apply_markdown: z.boolean().optional(),
  client_gravatar: z.boolean().optional(),
  all_public_streams: z.boolean().optional(),
  slim_presence: z.boolean().optional(),
  include_subscribers: z.union([z.boolean(), z.literal('partial')]).optional(),
  client_capabilities: z.record(z.string(), z.unknown()).optional(),
});
export type RegisterParams = z.infer<typeof RegisterParams>;

export const GetEventsParams = z.object({
  queue_id: z.string(),
  last_event_id: int().optional(),
  dont_block: z.boolean().optional(),
});
export type GetEventsParams = z.infer<typeof GetEventsParams>;

export const DeleteQueueParams = z.object({ queue_id: z.string() });

export const UserIdPathParams = z.object({ user_id: int() });

export const NoParams = z.object({});
