import { RecentFacts, toStoredFact, type FactRow } from '../src/adapters/sqlite-recent-facts';
import type { StoreAppended } from '@teamchat/contracts';

// The rows a store notice carries (a zod schema in the contracts) are this table's rows:
// each type must stay assignable to the other, or this file no longer type-checks.
type AnnouncedRow = NonNullable<StoreAppended['rows']>[number];
const asAnnounced = (row: FactRow): AnnouncedRow => row;
const asStored = (row: AnnouncedRow): FactRow => row;


const row = (position: number): FactRow => ({
  position,
  stream: `s-${position}`,
  revision: 0,
  id: `f-${position}`,
  type: 'Thing',
  data: JSON.stringify({ n: position, at: '2026-01-01T00:00:00.000Z', nested: [1, { x: null }] }),
  metadata: JSON.stringify({ causation: 'c' }),
  created: 1_700_000_000_000 + position,
});

describe('RecentFacts', () => {
  it('answers a range it holds whole with the facts a query would return, frozen and shared', () => {
    const recent = new RecentFacts();
    recent.add([row(5), row(6)]);
    recent.add([row(7)]);
    const facts = recent.range(4, 7)!;
    expect(facts).toEqual([5, 6, 7].map((p) => toStoredFact(row(p))));
    expect(Object.isFrozen(facts[0]!.data)).toBe(true);
    expect(recent.range(5, 7)![0]).toBe(facts[1]);
  });

  it('answers nothing for a range with a position it does not hold (another connection committed it)', () => {
    const recent = new RecentFacts();
    recent.add([row(5), row(6)]);
    recent.add([row(9)]);
    expect(recent.range(4, 6)).toHaveLength(2);
    expect(recent.range(6, 9)).toBeUndefined();
    expect(recent.range(8, 9)).toHaveLength(1);
    expect(recent.range(3, 6)).toBeUndefined();
    expect(recent.range(6, 10)).toBeUndefined();
    expect(recent.range(6, 6)).toBeUndefined();
  });

  it('keeps rows in position order whatever order they come in (another writer announces after this one commits), each once', () => {
    const recent = new RecentFacts();
    recent.add([row(5), row(8)]);
    recent.add([row(6), row(7), row(9)]);
    recent.add([row(4), row(6)]);
    expect(recent.range(3, 9)!.map((f) => f.position)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(recent.range(3, 9)).toEqual([4, 5, 6, 7, 8, 9].map((p) => toStoredFact(asStored(asAnnounced(row(p))))));
  });

  it('forgets the oldest rows once it holds many', () => {
    const recent = new RecentFacts();
    for (let p = 1; p <= 2500; p++) recent.add([row(p)]);
    expect(recent.range(0, 1)).toBeUndefined();
    expect(recent.range(2499, 2500)).toHaveLength(1);
  });
});
