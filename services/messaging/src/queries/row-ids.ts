/** Which of a batch of a personal scan's ids have a row of the user's (personal-scan.ts). */
import { userMessageId } from '../projections/message-docs';
import type { Filter } from '@teamchat/platform';
import type { MessagesReadModel } from '../projections/messages';
import type { IdRange } from '../projections/recent-ids';

type Model = Pick<MessagesReadModel, 'personal'>;

/** Inclusive integer bounds; either side may be infinite. */
export interface Bounds {
  lo: number;
  hi: number;
}

export const boundsOf = (r: IdRange): Bounds => ({
  lo: Math.max(r.$gt !== undefined ? r.$gt + 1 : Number.NEGATIVE_INFINITY, r.$gte ?? Number.NEGATIVE_INFINITY),
  hi: Math.min(r.$lt !== undefined ? r.$lt - 1 : Number.POSITIVE_INFINITY, r.$lte ?? Number.POSITIVE_INFINITY),
});

/** `filter` with `field` limited to the bounds (nothing added when they are unbounded). */
export function within(filter: Filter, field: string, b: Bounds): Filter {
  const range = rangeOf(b);
  return Object.keys(range).length === 0 ? filter : { ...filter, [field]: range };
}

export const rangeOf = (b: Bounds): IdRange => {
  const r: IdRange = {};
  if (b.lo !== Number.NEGATIVE_INFINITY) r.$gte = b.lo;
  if (b.hi !== Number.POSITIVE_INFINITY) r.$lte = b.hi;
  return r;
};

/** A batch whose ids lie further apart than this on average is looked up id by id. */
const SPARSE_BATCH = 64;

/**
 * The ids of the user's rows, read in scan order only as far as the channel streams have
 * got (a merge join): a message with a row is the row stream's to yield, whatever its
 * flags. What is known is one stretch of ids, from the first batch asked about (not the
 * scan's start, which may lie far from any message: id 0 for a first unread, Zulip's
 * "newest" anchor 10^16), grown backward as far as a batch needs and forward twice as far
 * as asked, so a scan makes a few reads.
 */
export class RowIds {
  private readonly ids = new Set<number>();
  /** The stretch whose every row is in `ids`, its ends in scan order (none yet: undefined). */
  private near: number | undefined;
  private far: number | undefined;
  private wholeRead = false;

  constructor(
    private readonly model: Model,
    private readonly userId: number,
    private readonly bounds: Bounds,
    private readonly direction: 1 | -1,
    /** Read every channel row of the user's in bounds at once (a long scan: register's unreads). */
    readonly whole: boolean,
  ) {}

  /** Whether `a` comes before `b` in scan order. */
  private before(a: number, b: number): boolean {
    return this.direction === 1 ? a < b : a > b;
  }

  /**
   * Which of a stream's batch of ids (in scan order) have a row. A sparse batch (a quiet
   * channel's few messages spread over much history) looks its own ids up instead of
   * reading every row of the user's over the stretch it spans.
   */
  async among(ids: readonly number[]): Promise<ReadonlySet<number>> {
    if (this.whole) return this.all();
    const first = ids[0]!;
    const last = ids.at(-1)!;
    const covered = this.near !== undefined && !this.before(first, this.near) && !this.before(this.far!, last);
    if (covered) return this.ids;
    if (Math.abs(first - last) > ids.length * SPARSE_BATCH) {
      const rows = await this.model.personal.rows.getMany(ids.map((id) => userMessageId(this.userId, id)));
      return new Set(rows.map((r) => r.message_id));
    }
    return this.through(first, last);
  }

  private async all(): Promise<ReadonlySet<number>> {
    if (this.wholeRead) return this.ids;
    // `$gte: 0` rather than `$ne: null`: a range the (user, channel, message) index serves.
    const rows = await this.model.personal.rows.findFields(within({ user_id: this.userId, channel_id: { $gte: 0 } }, 'message_id', this.bounds), ['message_id']);
    for (const row of rows) this.ids.add(row.message_id as number);
    this.wholeRead = true;
    return this.ids;
  }

  /** The row ids, known for every id from `first` to `last` (in scan order). */
  private async through(first: number, last: number): Promise<ReadonlySet<number>> {
    const { direction } = this;
    if (this.near === undefined) {
      await this.read(first, last);
      [this.near, this.far] = [first, last];
      return this.ids;
    }
    if (this.before(first, this.near)) {
      await this.read(first, this.near - direction);
      this.near = first;
    }
    if (this.before(this.far!, last)) {
      // Twice as far as asked: the stretch's next batches are likely there too.
      const span = Math.abs(last - this.far!);
      const to = direction === 1 ? Math.min(this.bounds.hi, last + span) : Math.max(this.bounds.lo, last - span);
      await this.read(this.far! + direction, to);
      this.far = to;
    }
    return this.ids;
  }

  /** Reads the rows from `from` to `to` (inclusive, in scan order). */
  private async read(from: number, to: number): Promise<void> {
    const part: Bounds = { lo: Math.min(from, to), hi: Math.max(from, to) };
    const rows = await this.model.personal.rows.findFields(within({ user_id: this.userId }, 'message_id', part), ['message_id']);
    for (const row of rows) this.ids.add(row.message_id as number);
  }
}
