/**
 * Where each channel message is, kept from messaging's facts: what channel settings need
 * to know of a channel's messages — its first message (for the channel objects of events)
 * and whether any message is in a topic other than the empty one (for `empty_topic_only`).
 * Idempotent: every write is a full put (or delete) keyed by the message id.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface ChannelMessageDoc extends Doc {
  /** The message id. */
  _id: number;
  channel_id: number;
  /** In a topic other than the empty one. */
  named: boolean;
}

export class ChannelMessages {
  private readonly messages: Collection<ChannelMessageDoc>;

  constructor(readModels: ReadModelStore) {
    this.messages = readModels.collection<ChannelMessageDoc>('channel_messages', [{ fields: ['channel_id', 'named'] }, { fields: ['channel_id'] }]);
  }

  readonly handlers = {
    MessageSent: async ({ recipient }, stored) => {
      if (recipient.type !== 'channel') return;
      await this.messages.put({ _id: stored.position, channel_id: recipient.channel_id, named: recipient.topic !== '' });
    },
    MessageEdited: async ({ move }) => {
      if (!move) return;
      for (const id of move.message_ids) await this.messages.put({ _id: id, channel_id: move.channel_id, named: move.topic !== '' });
    },
    MessageDeleted: ({ message_id }) => this.messages.delete(message_id),
  } satisfies FactHandlers;

  async firstMessageId(channelId: number): Promise<number | null> {
    const [first] = await this.messages.find({ channel_id: channelId }, { sort: ['_id', 1], limit: 1 });
    return first?._id ?? null;
  }

  async hasNamedTopics(channelId: number): Promise<boolean> {
    return (await this.messages.find({ channel_id: channelId, named: true }, { limit: 1 })).length > 0;
  }
}
