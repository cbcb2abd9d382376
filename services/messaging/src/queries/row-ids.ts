/** Which of the entries a personal scan keeps have a row of the user's (personal-scan.ts). */
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

/** Rows read per look past what is known. */
const ROWS_PER_READ = 32;

/**
 * Which ids of a personal scan have a row of the user's (a message with a row is the row
 * stream's to yield, whatever its flags), asked only of the entries the scan keeps, in
 * scan order: a merge join over the user's rows. Each look past what is known reads the
 * next rows from the id asked about, by count, not by span, so what it costs depends on
 * the rows near the kept entries, not on how far apart the channels' messages lie nor on
 * how many channels the scan merges (a deep page of the combined feed offered a batch
 * from each of 250 channels, and every batch was looked up: about 2,000 row lookups a
 * page at a million messages).
 */
export class RowIds {
  private readonly ids = new Set<number>();
  /** Every row from the first id asked about through here (scan order) is in `ids` (none yet: undefined). */
  private reached: number | undefined;
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

  /** Whether the message has a row; `id` is never before an id asked about earlier (scan order). */
  async has(id: number): Promise<boolean> {
    if (this.whole) return (await this.all()).has(id);
    if (this.reached === undefined || this.before(this.reached, id)) await this.readFrom(id);
    return this.ids.has(id);
  }

  private async all(): Promise<ReadonlySet<number>> {
    if (this.wholeRead) return this.ids;
    // `$gte: 0` rather than `$ne: null`: a range the (user, channel, message) index serves.
    const rows = await this.model.personal.rows.findFields(within({ user_id: this.userId, channel_id: { $gte: 0 } }, 'message_id', this.bounds), ['message_id']);
    for (const row of rows) this.ids.add(row.message_id as number);
    this.wholeRead = true;
    return this.ids;
  }

  /** Reads the next rows from `id` on (scan order): known through the last, or to the bounds' end when fewer came. */
  private async readFrom(id: number): Promise<void> {
    const { direction } = this;
    const rest: Bounds = direction === 1 ? { lo: id, hi: this.bounds.hi } : { lo: this.bounds.lo, hi: id };
    const rows = await this.model.personal.rows.findFields(within({ user_id: this.userId }, 'message_id', rest), ['message_id'], {
      sort: ['message_id', direction],
      limit: ROWS_PER_READ,
    });
    for (const row of rows) this.ids.add(row.message_id as number);
    this.reached = rows.length < ROWS_PER_READ ? (direction === 1 ? rest.hi : rest.lo) : (rows.at(-1)!.message_id as number);
  }
}
