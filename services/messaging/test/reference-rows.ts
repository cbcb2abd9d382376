/**
 * The model the per-user state replaced, kept as the tests' oracle: a row per (user,
 * message) for everyone who received it or flagged it later, with their flags, written
 * straight from the facts. personal-state.test.ts projects the same facts into both and
 * compares them message by message and narrow by narrow.
 */
import { initialMessageFlags, type Fact, type FactOf } from '@teamchat/contracts';
import type { Collection, ReadModelStore } from '@teamchat/platform';
import { dmKey, flagKeys, rowsOfMessage, userMessageId, type MessageDoc, type UserMessageDoc } from '../src/projections/message-docs';
import { linkFields, messageTextFeatures } from '../src/projections/text-features';

export class ReferenceRows {
  readonly rows: Collection<UserMessageDoc>;

  constructor(store: ReadModelStore) {
    // The indexes the rows had, so a comparison of read costs is fair.
    this.rows = store.collection<UserMessageDoc>('reference_rows', [
      { fields: ['user_id', 'message_id'] },
      { fields: ['user_id', 'message_id'], where: { unread: true } },
      { fields: ['user_id', 'message_id'], where: { starred: true } },
      { fields: ['user_id', 'message_id'], where: { mentioned: true } },
      { fields: ['user_id', 'message_id'], where: { direct: true } },
    ]);
  }

  rowsOf(messageId: number): Promise<UserMessageDoc[]> {
    return this.rows.find(rowsOfMessage(messageId));
  }

  /** Applies a fact; `messages` is the messages collection as the projection left it (after the fact). */
  async apply(fact: Fact, position: number, messages: Collection<MessageDoc>): Promise<void> {
    switch (fact.type) {
      case 'MessageSent':
        return this.sent(fact, position);
      case 'MessageFlagsUpdated':
        return this.flags(fact, messages);
      case 'MessageEdited':
        return this.edited(fact);
      case 'MessageDeleted':
        for (const row of await this.rowsOf(fact.message_id)) await this.rows.delete(row._id);
        return;
      default:
        return;
    }
  }

  private async sent(fact: FactOf<'MessageSent'>, id: number): Promise<void> {
    const channel = fact.recipient.type === 'channel' ? fact.recipient : null;
    const keys = {
      channel_id: channel?.channel_id ?? null,
      topic_lc: channel ? channel.topic.toLowerCase() : null,
      dm_key: fact.recipient.type === 'direct' ? dmKey(fact.recipient.users.map((u) => u.id)) : null,
    };
    const links = linkFields(messageTextFeatures(fact.rendered_content, channel?.topic ?? null));
    for (const userId of fact.recipient_user_ids) {
      await this.rows.put({
        _id: userMessageId(userId, id),
        user_id: userId,
        message_id: id,
        ...flagKeys(initialMessageFlags(fact, userId)),
        ...keys,
        direct: keys.dm_key !== null,
        sender_id: fact.sender_id,
        ...links,
      });
    }
  }

  private async flags(fact: FactOf<'MessageFlagsUpdated'>, messages: Collection<MessageDoc>): Promise<void> {
    for (const messageId of fact.message_ids) {
      const id = userMessageId(fact.user_id, messageId);
      let row = await this.rows.get(id);
      if (!row) {
        // Read from channel history the user never received: a historical row.
        const message = await messages.get(messageId);
        if (!message) continue;
        row = {
          _id: id,
          user_id: fact.user_id,
          message_id: messageId,
          ...flagKeys(['read', 'historical']),
          channel_id: message.channel_id,
          topic_lc: message.topic_lc,
          dm_key: message.dm_key,
          direct: message.dm_key !== null,
          sender_id: message.sender_id,
          ...linkFields(message),
        };
      }
      const flags = row.flags.filter((f) => f !== fact.flag);
      if (fact.op === 'add') flags.push(fact.flag);
      await this.rows.put({ ...row, ...flagKeys(flags) });
    }
  }

  private async edited(fact: FactOf<'MessageEdited'>): Promise<void> {
    const content = fact.content;
    if (content) {
      const links = linkFields(messageTextFeatures(content.rendered_content, null));
      for (const row of await this.rowsOf(fact.message_id)) {
        const alerts = content.alert_word_user_ids;
        const recomputed = (f: string) => f === 'mentioned' || f === 'wildcard_mentioned' || (alerts !== undefined && f === 'has_alert_word');
        const flags = row.flags.filter((f) => !recomputed(f));
        if (content.mentioned_user_ids.includes(row.user_id)) flags.push('mentioned');
        if (content.wildcard_mentioned_user_ids.includes(row.user_id)) flags.push('wildcard_mentioned');
        if (alerts?.includes(row.user_id)) flags.push('has_alert_word');
        await this.rows.put({ ...row, ...flagKeys(flags), ...links });
      }
    }
    if (!fact.move) return;
    const keys = { channel_id: fact.move.channel_id, topic_lc: fact.move.topic.toLowerCase(), dm_key: null };
    const revoked = new Set(fact.move.revoked_user_ids);
    for (const id of fact.move.message_ids) {
      for (const row of await this.rowsOf(id)) {
        if (revoked.has(row.user_id)) await this.rows.delete(row._id);
        else await this.rows.put({ ...row, ...keys });
      }
    }
  }
}
