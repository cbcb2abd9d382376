/**
 * The user's rows that register's unread listing (unread-messages.ts) reads from the
 * newest down, only as far as the listing needs: their unread ids in growing chunks, and
 * their channel rows from the bound those reached.
 */
import type { Filter } from '@teamchat/platform';
import type { MessagesReadModel } from '../projections/messages';

type Model = Pick<MessagesReadModel, 'personal'>;

/**
 * Unread ids read at first (then twice as many each time). The scale bench's reader, with
 * 28,926 unread rows of which 2,520 are listed, is settled by the first 4,096; from 2,048
 * it took a second round (its channel rows, stretches and bisection again), which cost
 * the process's second registration 20-30 ms while that code was not yet optimized.
 */
export const FIRST_CHUNK = 4_096;

/** A user's rows meeting a filter, read from the newest down in parts. */
abstract class RowsFromTop {
  /** Every row from this id up has been read (minus infinity: all). */
  known = Number.POSITIVE_INFINITY;

  constructor(
    protected readonly model: Model,
    private readonly filter: Filter,
  ) {}

  /** The filter for those not read yet, from `bound` up. */
  protected notYetRead(bound = Number.NEGATIVE_INFINITY): Filter {
    const range = {
      ...(bound === Number.NEGATIVE_INFINITY ? {} : { $gte: bound }),
      ...(this.known === Number.POSITIVE_INFINITY ? {} : { $lt: this.known }),
    };
    return Object.keys(range).length > 0 ? { ...this.filter, message_id: range } : this.filter;
  }
}

/** The ids of the user's rows meeting a filter, newest first, read in chunks. */
export class RowChunks extends RowsFromTop {
  readonly ids: number[] = [];

  async read(limit: number): Promise<void> {
    if (this.known === Number.NEGATIVE_INFINITY) return;
    // A user has one row per message: ordered by the unread index (personal-state.ts) as it is.
    const [found] = await this.model.personal.rows.findColumns(this.notYetRead(), ['message_id'], { sort: ['message_id', -1], sortDistinct: true, limit });
    for (const id of found!) this.ids.push(id as number);
    this.known = found.length < limit ? Number.NEGATIVE_INFINITY : this.ids.at(-1)!;
  }
}

/**
 * A user's rows of channel messages (any flags) from an id on: their ids and (at the same
 * index) channels, in no order. From the (user, channel, message) index alone: scanning
 * it costs little, building each entry's values is what costs, and a heavy reader's
 * 13,702 channel rows held 1,203 past the first listed id.
 */
export class ChannelRows extends RowsFromTop {
  readonly ids: number[] = [];
  readonly channels: number[] = [];

  constructor(model: Model, userId: number) {
    // `$gte: 0` rather than `$ne: null`: only channel rows, read by (user, channel) from the index.
    super(model, { user_id: userId, channel_id: { $gte: 0 } });
  }

  /** Reads those from `bound` up not read yet. */
  async readFrom(bound: number): Promise<void> {
    if (bound >= this.known) return;
    const [ids, channels] = await this.model.personal.rows.findColumns(this.notYetRead(bound), ['message_id', 'channel_id']);
    for (let i = 0; i < ids!.length; i++) {
      this.ids.push(ids![i] as number);
      this.channels.push(channels![i] as number);
    }
    this.known = bound;
  }
}
