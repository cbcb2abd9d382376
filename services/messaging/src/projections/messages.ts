/**
 * Messaging's read models: every message once, and one row per (user, message) for
 * each user who received it — their personal history, with their flags. Pure
 * document writes keyed by the fact's subject, so replaying a fact changes nothing.
 */
import { Fact, initialMessageFlags, type FactOf } from '@teamchat/contracts';
import type { Collection, Doc, ReadModelStore, StoredFact } from '@teamchat/platform';

export interface MessageDoc extends Doc {
  /** The message id: the position of its MessageSent fact. */
  _id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  recipient: FactOf<'MessageSent'>['recipient'];
  /** Set for channel messages, null for direct ones: the narrow keys. */
  channel_id: number | null;
  topic_lc: string | null;
  /** Sorted participant ids joined by commas, for direct messages. */
  dm_key: string | null;
  recipient_id: number;
  content: string;
  rendered_content: string;
  client: string;
  timestamp: number;
  is_me_message: boolean;
}

export interface UserMessageDoc extends Doc {
  /** `${user_id}:${message_id}` */
  _id: string;
  user_id: number;
  message_id: number;
  flags: string[];
  channel_id: number | null;
  topic_lc: string | null;
  dm_key: string | null;
}

export const userMessageId = (userId: number, messageId: number) => `${userId}:${messageId}`;

export function dmKey(userIds: number[]): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

export class MessagesReadModel {
  readonly messages: Collection<MessageDoc>;
  readonly userMessages: Collection<UserMessageDoc>;

  constructor(readModels: ReadModelStore) {
    this.messages = readModels.collection<MessageDoc>('messages', [
      { fields: ['channel_id', 'topic_lc'] },
      { fields: ['dm_key'] },
    ]);
    this.userMessages = readModels.collection<UserMessageDoc>('user_messages', [
      { fields: ['user_id', 'message_id'] },
      { fields: ['user_id', 'channel_id', 'topic_lc', 'message_id'] },
      { fields: ['user_id', 'dm_key', 'message_id'] },
    ]);
  }

  async apply(stored: StoredFact): Promise<void> {
    const parsed = Fact.safeParse(stored.data);
    if (!parsed.success || parsed.data.type !== 'MessageSent') return;
    const fact = parsed.data;
    const id = stored.position;
    const channel = fact.recipient.type === 'channel' ? fact.recipient : null;
    const key = fact.recipient.type === 'direct' ? dmKey(fact.recipient.users.map((u) => u.id)) : null;
    const narrowKeys = {
      channel_id: channel?.channel_id ?? null,
      topic_lc: channel ? channel.topic.toLowerCase() : null,
      dm_key: key,
    };
    await this.messages.put({
      _id: id,
      sender_id: fact.sender_id,
      sender_email: fact.sender_email,
      sender_full_name: fact.sender_full_name,
      recipient: fact.recipient,
      ...narrowKeys,
      recipient_id: fact.recipient_id,
      content: fact.content,
      rendered_content: fact.rendered_content,
      client: fact.client,
      timestamp: fact.timestamp,
      is_me_message: fact.is_me_message,
    });
    for (const userId of fact.recipient_user_ids) {
      await this.userMessages.put({
        _id: userMessageId(userId, id),
        user_id: userId,
        message_id: id,
        flags: initialMessageFlags(fact, userId),
        ...narrowKeys,
      });
    }
  }
}
