import { deepFreeze } from './deep-freeze';
import type { StoredFact } from '../ports/event-store';

/** A row of the event store's `facts` table. */
export interface FactRow {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}

export function toStoredFact(row: FactRow): StoredFact {
  return {
    id: row.id,
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    created: row.created,
  };
}

/** Enough for every subscription of the process to find what the last few commits wrote. */
const KEPT = 1000;

/**
 * The facts an event store instance committed last, and those another writer sharing the
 * file announced with its notice (NotifyingEventStore), kept as the rows inserted. Once
 * their fsync ends, the store's subscriptions (the projectors a writer waits for,
 * read-your-writes, and the other threads' projectors and fan-out) read them from here
 * instead of querying SQLite for rows just written: on a connection that did not write
 * them, that query reads its pages afresh after every commit of another, about 0.15 ms a
 * message on the development VM. A range is answered only if every position in it is here
 * (a commit nobody announced leaves a gap, which the query fills); the facts are the rows'
 * own strings parsed, so they equal what the query would return.
 */
export class RecentFacts {
  /** In position order, each position once. */
  private rows: FactRow[] = [];
  /** Parsed on first read, shared by every subscription after it (so frozen). */
  private readonly parsed = new Map<number, StoredFact>();

  add(rows: readonly FactRow[]): void {
    for (const row of rows) {
      const last = this.rows.at(-1);
      if (last === undefined || row.position > last.position) {
        this.rows.push(row);
        continue;
      }
      // Another writer's rows can arrive after this instance's later ones: kept in order.
      let at = this.rows.length - 1;
      while (at > 0 && this.rows[at - 1]!.position >= row.position) at--;
      if (this.rows[at]!.position !== row.position) this.rows.splice(at, 0, row);
    }
    if (this.rows.length > 2 * KEPT) {
      for (const row of this.rows.splice(0, this.rows.length - KEPT)) this.parsed.delete(row.position);
    }
  }

  /** The facts in (after, upTo], if every one of them is here; else undefined. */
  range(after: number, upTo: number): StoredFact[] | undefined {
    const rows = this.rows;
    if (rows.length === 0 || upTo <= after) return undefined;
    const first = rows[0]!.position;
    const last = rows[rows.length - 1]!.position;
    if (after + 1 < first || upTo > last) return undefined;
    // Positions are increasing; where gaps are, an index search finds the start.
    let start = Math.min(after + 1 - first, rows.length - 1);
    while (start > 0 && rows[start]!.position > after + 1) start--;
    if (rows[start]!.position !== after + 1) return undefined;
    const facts: StoredFact[] = [];
    for (let i = start, position = after + 1; position <= upTo; i++, position++) {
      const row = rows[i];
      if (row?.position !== position) return undefined;
      let fact = this.parsed.get(position);
      if (!fact) {
        fact = deepFreeze(toStoredFact(row));
        this.parsed.set(position, fact);
      }
      facts.push(fact);
    }
    return facts;
  }
}
