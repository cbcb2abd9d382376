/**
 * Per-user message state that grows with messages and with the flags users hold, not with
 * messages × recipients.
 *
 * The old model kept a row per (recipient, message): at 1,000 users a channel message
 * wrote hundreds of rows, about 22 KB of read model per message. Here a user's state of a
 * message is derived from three small structures:
 *
 * - Receipts (receipts.ts): per (user, channel), intervals of message ids the user
 *   received, opened and closed as MessageSent recipient lists change. "u received
 *   channel message m" is "m lies in one of u's intervals of m's channel".
 * - Read marks: per (user, channel), `through`, a message id up to which every message u
 *   received there is read unless a row says otherwise. Past it, unread unless a row says
 *   otherwise. So a received message with no row has flags ['read'] or [].
 * - Rows (`user_flags`, the shape of the old rows plus `held`), only where the derived
 *   flags would be wrong: a mention, a star, an alert word, a message read above the mark
 *   (or unread below it). After a flag change the mark moves up over every message that
 *   is read, dropping rows that said only "read", so a user who reads as messages arrive
 *   holds no rows at all, and one who never reads holds none either.
 *
 * Rows with `held` are the user's receipt themselves, not a correction of the intervals:
 * every direct message (few recipients, always rows), a channel message read from history
 * the user never received ("historical"), and the messages of a move to another channel
 * or one that took them from someone: their receipts are written out as held rows at the
 * move, and the message is marked `own_receipts` so its new channel's intervals do not
 * apply to it. Held rows are never dropped by the mark.
 *
 * Order of flags: a derived list has one element, and every change filters then appends
 * exactly as the old rows did, so every list reads the same as before.
 *
 * Growth: a message adds its document; a channel's audience changing adds an interval;
 * a user's flag adds a row only while it differs from the derived default. Measured
 * (BENCH_SIZES=20000, 1,000 users, about 90 recipients a channel message): 552 bytes
 * per message for this state against 36.8 KB for the rows per recipient.
 *
 * Reads: point reads and holders here (flags of given messages, who holds one); scans of
 * a user's whole history (narrows without a channel, is:unread, register's sections) in
 * queries/personal-scan.ts. test/personal-state.test.ts checks both against the rows
 * per recipient this state replaced (test/reference-rows.ts) after every fact of random
 * histories.
 */
import { initialMessageFlags, type FactOf } from '@teamchat/contracts';
import type { Collection, Doc, ReadModelStore } from '@teamchat/platform';
import { flagKeys, userMessageId, rowsOfMessage, type MessageDoc, type UserMessageDoc } from './message-docs';
import { LRUCache } from 'lru-cache';
import { inIntervals, intervalFrom, Receipts, type Interval } from './receipts';
import { linkFields } from './text-features';

export interface PersonalRow extends UserMessageDoc {
  /** The row is the receipt (see above); without it, a correction of the derived flags. */
  held: boolean;
}

export interface ReadMarkDoc extends Doc {
  /** `${user_id}:${channel_id}` */
  _id: string;
  user_id: number;
  channel_id: number;
  through: number;
}

const READ: readonly string[] = Object.freeze(['read']);
const UNREAD: readonly string[] = Object.freeze([]);
/** Messages read per round while moving a read mark. */
const MARK_BATCH = 128;

const sameFlags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((f, i) => f === b[i]);
const markId = (userId: number, channelId: number) => `${userId}:${channelId}`;

type Move = NonNullable<FactOf<'MessageEdited'>['move']>;
type Content = NonNullable<FactOf<'MessageEdited'>['content']>;

/** Whether a move writes its messages' receipts out as held rows (see above). */
export const movesReceipts = (move: Move) => move.prev_channel_id !== move.channel_id || move.revoked_user_ids.length > 0;

export class PersonalState {
  readonly rows: Collection<PersonalRow>;
  readonly marks: Collection<ReadMarkDoc>;
  readonly receipts: Receipts;

  constructor(
    readModels: ReadModelStore,
    private readonly messages: Collection<MessageDoc>,
  ) {
    // Few rows per user: the flags they hold. Register reads unread, starred and direct ones.
    this.rows = readModels.collection<PersonalRow>('user_flags', [
      { fields: ['user_id', 'message_id'] },
      // A channel's rows of the user, apart from the rest (personal-scan.ts: a channel's unread, its topics).
      { fields: ['user_id', 'channel_id', 'message_id'] },
      // Unread ones carry what register's unread listing reads of them, so it reads the
      // index alone (unread-messages.ts), not tens of thousands of documents.
      { fields: ['user_id', 'message_id', 'channel_id', 'topic_lc', 'dm_key', 'mentioned'], where: { unread: true } },
      { fields: ['user_id', 'message_id'], where: { starred: true } },
      { fields: ['user_id', 'message_id'], where: { direct: true } },
    ]);
    this.marks = readModels.collection<ReadMarkDoc>('read_marks', [{ fields: ['user_id'] }]);
    this.receipts = new Receipts(readModels);
  }

  /**
   * marksOf of recent readers. This projection alone writes the marks, and a batch that
   * fails stops the store's writing, so the copy never runs ahead of the store (as Receipts).
   */
  private readonly marksByUser = new LRUCache<number, Map<number, number>>({ max: 2_000 });

  get collections(): { clear(): Promise<void> }[] {
    const marks = {
      clear: async () => {
        this.marksByUser.clear();
        await this.marks.clear();
      },
    };
    return [this.rows, marks, this.receipts.clearable];
  }

  /** The user's read mark in every channel where they have one (shared: not to be changed). */
  async marksOf(userId: number): Promise<ReadonlyMap<number, number>> {
    let marks = this.marksByUser.get(userId);
    if (!marks) {
      marks = new Map((await this.marks.find({ user_id: userId })).map((m) => [m.channel_id, m.through]));
      this.marksByUser.set(userId, marks);
    }
    return marks;
  }

  rowsOf(messageId: number): Promise<PersonalRow[]> {
    return this.rows.find(rowsOfMessage(messageId));
  }

  async mark(userId: number, channelId: number): Promise<number> {
    // One document, unless the user's marks are in memory already: holders() asks this of
    // every recipient of a message, and loading each one's every mark would cost more.
    const cached = this.marksByUser.get(userId);
    if (cached) return cached.get(channelId) ?? 0;
    return (await this.marks.get(markId(userId, channelId)))?.through ?? 0;
  }

  /** The user's intervals in the channel (from the copy Receipts keeps of recent readers'). */
  private async intervalsIn(userId: number, channelId: number): Promise<readonly Interval[]> {
    return (await this.receipts.allIntervals(userId)).get(channelId) ?? [];
  }

  /** The flags of a message the intervals say the user received, or undefined when they did not. */
  async derived(userId: number, message: MessageDoc, intervals?: readonly Interval[]): Promise<readonly string[] | undefined> {
    if (message.channel_id === null || message.own_receipts) return undefined;
    if (!inIntervals(intervals ?? (await this.intervalsIn(userId, message.channel_id)), message._id)) return undefined;
    return message._id <= (await this.mark(userId, message.channel_id)) ? READ : UNREAD;
  }

  /** The user's flags on the message, or undefined when it is not in their history. */
  async flagsOf(userId: number, message: MessageDoc): Promise<readonly string[] | undefined> {
    const row = await this.rows.get(userMessageId(userId, message._id));
    return row ? row.flags : this.derived(userId, message);
  }

  /** flagsOf for several messages at once: each channel's intervals and mark are read once. */
  async flagsMany(userId: number, messages: readonly MessageDoc[]): Promise<(readonly string[] | undefined)[]> {
    if (messages.length === 0) return [];
    const rows = new Map<number, readonly string[]>();
    for (const row of await this.rows.getMany(messages.map((m) => userMessageId(userId, m._id)))) rows.set(row.message_id, row.flags);
    const channels = new Map<number, { intervals: readonly Interval[]; mark: number }>();
    const flags: (readonly string[] | undefined)[] = [];
    for (const message of messages) {
      const row = rows.get(message._id);
      if (row || message.channel_id === null || message.own_receipts) {
        flags.push(row);
        continue;
      }
      let channel = channels.get(message.channel_id);
      if (!channel) {
        channel = { intervals: await this.intervalsIn(userId, message.channel_id), mark: await this.mark(userId, message.channel_id) };
        channels.set(message.channel_id, channel);
      }
      flags.push(!inIntervals(channel.intervals, message._id) ? undefined : message._id <= channel.mark ? READ : UNREAD);
    }
    return flags;
  }

  /** Everyone holding the message in their history, with their flags. */
  async holders(message: MessageDoc): Promise<Map<number, readonly string[]>> {
    const holders = new Map<number, readonly string[]>();
    for (const row of await this.rowsOf(message._id)) holders.set(row.user_id, row.flags);
    if (message.channel_id !== null && !message.own_receipts) {
      for (const userId of await this.receipts.holders(message.channel_id, message._id)) {
        if (holders.has(userId)) continue;
        holders.set(userId, message._id <= (await this.mark(userId, message.channel_id)) ? READ : UNREAD);
      }
    }
    return holders;
  }

  private rowFor(userId: number, message: MessageDoc, flags: string[], held: boolean): PersonalRow {
    return {
      _id: userMessageId(userId, message._id),
      user_id: userId,
      message_id: message._id,
      ...flagKeys(flags),
      channel_id: message.channel_id,
      topic_lc: message.topic_lc,
      dm_key: message.dm_key,
      direct: message.dm_key !== null,
      sender_id: message.sender_id,
      ...linkFields(message),
      held,
    };
  }

  async sent(fact: FactOf<'MessageSent'>, message: MessageDoc): Promise<void> {
    const channelId = message.channel_id;
    if (channelId !== null) await this.receipts.sent(channelId, message._id, fact.recipient_user_ids);
    const readers: number[] = [];
    for (const userId of new Set(fact.recipient_user_ids)) {
      const flags = initialMessageFlags(fact, userId);
      // A new message is past every read mark: the derived flags are none.
      if (channelId === null || flags.length > 0) await this.rows.put(this.rowFor(userId, message, flags, channelId === null));
      if (channelId !== null && flags.includes('read')) readers.push(userId);
    }
    if (channelId !== null) for (const userId of readers) await this.advance(userId, channelId);
  }

  async flags(fact: FactOf<'MessageFlagsUpdated'>): Promise<void> {
    const touched = new Set<number>();
    for (const messageId of fact.message_ids) {
      const message = await this.messages.get(messageId);
      const id = userMessageId(fact.user_id, messageId);
      const row = await this.rows.get(id);
      let base: readonly string[] | undefined = row?.flags;
      let held = row?.held ?? false;
      if (!row) {
        if (!message) continue;
        base = await this.derived(fact.user_id, message);
        // A message read from channel history the user never received: a row marked
        // historical makes it theirs, so a flag like starred can stick (as Zulip does).
        if (base === undefined) [base, held] = [['read', 'historical'], true];
      }
      const flags = base!.filter((f) => f !== fact.flag);
      if (fact.op === 'add') flags.push(fact.flag);
      if (held || !message) {
        if (row) await this.rows.put({ ...row, ...flagKeys(flags) });
        else if (message) await this.rows.put(this.rowFor(fact.user_id, message, flags, true));
        continue;
      }
      const channelId = message.channel_id!;
      const derived = messageId <= (await this.mark(fact.user_id, channelId)) ? READ : UNREAD;
      if (sameFlags(flags, derived)) {
        if (row) await this.rows.delete(id);
      } else await this.rows.put(row ? { ...row, ...flagKeys(flags) } : this.rowFor(fact.user_id, message, flags, false));
      touched.add(channelId);
    }
    for (const channelId of touched) await this.advance(fact.user_id, channelId);
  }

  /**
   * Moves the user's read mark in the channel up over every message they received there
   * that is read, dropping the rows that said only that. Stops at the first unread one.
   */
  async advance(userId: number, channelId: number): Promise<void> {
    const start = await this.mark(userId, channelId);
    const intervals = await this.receipts.intervals(userId, channelId);
    let through = start;
    let batch = 8;
    walk: for (;;) {
      const interval = intervalFrom(intervals, through);
      if (!interval) break;
      // Between intervals the user received nothing: the mark may jump the gap.
      if (through < interval[0] - 1) through = interval[0] - 1;
      const range = interval[1] === Number.POSITIVE_INFINITY ? { $gt: through } : { $gt: through, $lt: interval[1] };
      const ids = (await this.messages.findIds({ channel_id: channelId, _id: range }, { sort: ['_id', 1], limit: batch })) as number[];
      if (ids.length === 0) {
        if (interval[1] === Number.POSITIVE_INFINITY) break;
        through = interval[1] - 1;
        continue;
      }
      const rows = new Map((await this.rows.getMany(ids.map((id) => userMessageId(userId, id)))).map((r) => [r.message_id, r]));
      const docs = new Map((await this.messages.getMany(ids.filter((id) => !rows.has(id)))).map((m) => [m._id, m]));
      for (const id of ids) {
        const row = rows.get(id);
        if (row && !row.held) {
          if (!row.flags.includes('read')) break walk;
          if (sameFlags(row.flags, READ)) await this.rows.delete(row._id);
        } else if (!row && !docs.get(id)?.own_receipts) break walk;
        through = id;
      }
      batch = MARK_BATCH;
    }
    if (through > start) {
      await this.marks.put({ _id: markId(userId, channelId), user_id: userId, channel_id: channelId, through });
      this.marksByUser.get(userId)?.set(channelId, through);
    }
  }

  /** Before a move's documents change: its receipts written out as held rows, where the move needs them. */
  async beforeMove(move: Move): Promise<void> {
    if (!movesReceipts(move)) return;
    for (const message of await this.messages.getMany(move.message_ids)) {
      if (message.channel_id === null || message.own_receipts) continue;
      const rows = new Map((await this.rowsOf(message._id)).map((r) => [r.user_id, r]));
      for (const [userId, flags] of await this.holders(message)) {
        const row = rows.get(userId);
        if (row?.held) continue;
        await this.rows.put(row ? { ...row, held: true } : this.rowFor(userId, message, [...flags], true));
      }
    }
  }

  /** After a move's documents changed: the rows follow the messages, and leave whoever lost them. */
  async afterMove(move: Move): Promise<void> {
    const keys = { channel_id: move.channel_id, topic_lc: move.topic.toLowerCase(), dm_key: null };
    const revoked = new Set(move.revoked_user_ids);
    for (const id of move.message_ids) {
      for (const row of await this.rowsOf(id)) {
        if (revoked.has(row.user_id)) await this.rows.delete(row._id);
        else await this.rows.put({ ...row, ...keys });
      }
    }
  }

  /** New content: the mention and alert-word flags, and the link fields rows copy, follow it. */
  async edited(message: MessageDoc, content: Content): Promise<void> {
    const alerts = content.alert_word_user_ids;
    const recomputed = (f: string) => f === 'mentioned' || f === 'wildcard_mentioned' || (alerts !== undefined && f === 'has_alert_word');
    const recompute = (base: readonly string[], userId: number) => {
      const flags = base.filter((f) => !recomputed(f));
      if (content.mentioned_user_ids.includes(userId)) flags.push('mentioned');
      if (content.wildcard_mentioned_user_ids.includes(userId)) flags.push('wildcard_mentioned');
      if (alerts?.includes(userId)) flags.push('has_alert_word');
      return flags;
    };
    const links = linkFields(message);
    const withRows = new Set<number>();
    for (const row of await this.rowsOf(message._id)) {
      withRows.add(row.user_id);
      const flags = recompute(row.flags, row.user_id);
      if (!row.held && sameFlags(flags, message._id <= (await this.mark(row.user_id, message.channel_id!)) ? READ : UNREAD)) {
        await this.rows.delete(row._id);
        continue;
      }
      const linksChanged = (Object.keys(links) as (keyof typeof links)[]).some((field) => row[field] !== links[field]);
      if (!sameFlags(flags, row.flags) || linksChanged) await this.rows.put({ ...row, ...flagKeys(flags), ...links });
    }
    // Who holds the message without a row has no mention flags: only the newly flagged change.
    const flagged = new Set([...content.mentioned_user_ids, ...content.wildcard_mentioned_user_ids, ...(alerts ?? [])]);
    for (const userId of flagged) {
      if (withRows.has(userId)) continue;
      const derived = await this.derived(userId, message);
      if (derived) await this.rows.put(this.rowFor(userId, message, recompute(derived, userId), false));
    }
  }

  async deleted(messageId: number): Promise<void> {
    for (const row of await this.rowsOf(messageId)) await this.rows.delete(row._id);
  }
}
