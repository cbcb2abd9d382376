/**
 * Register's `unread_msgs` computed the plain way, as the tests' oracle for
 * queries/unread-messages.ts: the user's newest unread rows of the rows per recipient
 * (reference-rows.ts), grouped one message at a time in id order.
 */
import type { UnreadMsgs } from '@teamchat/contracts';
import type { Collection } from '@teamchat/platform';
import { unreadCount, type MuteState } from '../src/domain/unread-count';
import type { MessageDoc, UserMessageDoc } from '../src/projections/message-docs';

const byId = (a: number, b: number) => a - b;

export async function referenceUnread(rows: Collection<UserMessageDoc>, messages: Collection<MessageDoc>, userId: number, mutes: MuteState, limit: number): Promise<UnreadMsgs> {
  const newest = await rows.find({ user_id: userId, unread: true }, { sort: ['message_id', -1], limit: limit + 1 });
  const listed = newest.slice(0, limit).reverse();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  for (const row of listed) {
    if (row.flags.includes('mentioned') || row.flags.includes('wildcard_mentioned')) mentions.push(row.message_id);
    if (row.channel_id !== null) {
      const key = `${row.channel_id}:${row.topic_lc}`;
      // The oldest listed message of the topic names it, as it is spelled there.
      if (!streams.has(key)) {
        const message = await messages.get(row.message_id);
        const topic = message?.recipient.type === 'channel' ? message.recipient.topic : '';
        streams.set(key, { stream_id: row.channel_id, topic, unread_message_ids: [] });
      }
      streams.get(key)!.unread_message_ids.push(row.message_id);
      continue;
    }
    const participants = row.dm_key!.split(',').map(Number);
    if (participants.length <= 2) {
      const other = participants.find((id) => id !== userId) ?? userId;
      if (!pms.has(other)) pms.set(other, { other_user_id: other, sender_id: other, unread_message_ids: [] });
      pms.get(other)!.unread_message_ids.push(row.message_id);
    } else {
      const key = [...participants].sort(byId).join(',');
      if (!huddles.has(key)) huddles.set(key, { user_ids_string: key, unread_message_ids: [] });
      huddles.get(key)!.unread_message_ids.push(row.message_id);
    }
  }
  return {
    count: unreadCount(listed, mutes),
    pms: [...pms.values()].sort((a, b) => a.other_user_id - b.other_user_id),
    streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || a.unread_message_ids[0]! - b.unread_message_ids[0]!),
    huddles: [...huddles.values()].sort((a, b) => a.user_ids_string.localeCompare(b.user_ids_string)),
    mentions,
    old_unreads_missing: newest.length > limit,
  };
}
