/**
 * Message endpoints of issue 17 item 7, served by messaging: a message's edit history,
 * its read receipts, and which of some messages match a narrow (with search terms
 * highlighted).
 */
import { z } from 'zod';
import { endpoint } from './contract';
import { NarrowTerm } from './messaging';

const int = () => z.number().int();

/**
 * One version of a message (Zulip's message_history entry): what it was after the change
 * at `timestamp` by `user_id` (the first entry: as sent, by the sender), with the `prev_*`
 * fields of what that change replaced.
 */
export const MessageHistoryEntry = z.object({
  topic: z.string(),
  content: z.string(),
  rendered_content: z.string(),
  timestamp: int(),
  user_id: int().nullable(),
  prev_topic: z.string().optional(),
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  stream: int().optional(),
  prev_stream: int().optional(),
});
export type MessageHistoryEntry = z.infer<typeof MessageHistoryEntry>;

/** At most as many as GET /messages takes at once. */
export const MAX_MATCHES_NARROW_IDS = 5000;

export const messageHistoryEndpoints = {
  getMessageHistory: endpoint({
    service: 'messaging',
    subject: 'messaging.get_message_history',
    http: { method: 'GET', path: '/messages/{message_id}/history' },
    auth: true,
    params: z.object({ message_id: int(), allow_empty_topic_name: z.boolean().optional() }),
    /** Oldest first. */
    reply: z.object({ message_history: z.array(MessageHistoryEntry) }),
  }),
  getReadReceipts: endpoint({
    service: 'messaging',
    subject: 'messaging.get_read_receipts',
    http: { method: 'GET', path: '/messages/{message_id}/read_receipts' },
    auth: true,
    params: z.object({ message_id: int() }),
    reply: z.object({ user_ids: z.array(int()) }),
  }),
  matchesNarrow: endpoint({
    service: 'messaging',
    subject: 'messaging.matches_narrow',
    http: { method: 'GET', path: '/messages/matches_narrow' },
    auth: true,
    params: z.object({ msg_ids: z.array(int()).max(MAX_MATCHES_NARROW_IDS), narrow: z.array(NarrowTerm) }),
    /** By message id: the matching messages only, their content and topic with search terms highlighted. */
    reply: z.object({ messages: z.record(z.string(), z.object({ match_content: z.string(), match_subject: z.string() })) }),
  }),
};
