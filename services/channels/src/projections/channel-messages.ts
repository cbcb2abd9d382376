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
  /**
   * Each channel's first message id as last read: register lists it for every channel the
   * user may see (1,000 reads at 1,000 channels). Kept by this projection, the only writer.
   */
  private readonly firstIds = new Map<number, number | null>();
  /** Counts writes, so a read that a write overtook is not kept. */
  private writes = 0;

  constructor(readModels: ReadModelStore) {
    this.messages = readModels.collection<ChannelMessageDoc>('channel_messages', [{ fields: ['channel_id', 'named'] }, { fields: ['channel_id'] }]);
  }

  readonly handlers = {
    MessageSent: async ({ recipient }, stored) => {
      if (recipient.type !== 'channel') return;
      await this.writing(() => this.messages.put({ _id: stored.position, channel_id: recipient.channel_id, named: recipient.topic !== '' }));
      // A later message never changes a known first one (a replay may send older ids: forget).
      const known = this.firstIds.get(recipient.channel_id);
      if (known === null || (known !== undefined && stored.position < known)) this.firstIds.delete(recipient.channel_id);
    },
    MessageEdited: async ({ move }) => {
      if (!move) return;
      await this.writing(async () => {
        for (const id of move.message_ids) await this.messages.put({ _id: id, channel_id: move.channel_id, named: move.topic !== '' });
      });
      // The channels moved from are not named by the fact: every first id may have changed.
      this.firstIds.clear();
    },
    MessageDeleted: async ({ message_id }) => {
      await this.writing(() => this.messages.delete(message_id));
      for (const [channelId, first] of this.firstIds) if (first === message_id) this.firstIds.delete(channelId);
    },
  } satisfies FactHandlers;

  /** A write, counted before and after: a read overlapping it in any way is not kept. */
  private async writing(write: () => Promise<void>): Promise<void> {
    this.writes++;
    try {
      await write();
    } finally {
      this.writes++;
    }
  }

  async firstMessageId(channelId: number): Promise<number | null> {
    const known = this.firstIds.get(channelId);
    if (known !== undefined) return known;
    const writes = this.writes;
    const [first] = await this.messages.find({ channel_id: channelId }, { sort: ['_id', 1], limit: 1 });
    const id = first?._id ?? null;
    if (writes === this.writes) this.firstIds.set(channelId, id);
    return id;
  }

  async hasNamedTopics(channelId: number): Promise<boolean> {
    return (await this.messages.find({ channel_id: channelId, named: true }, { limit: 1 })).length > 0;
  }
}
