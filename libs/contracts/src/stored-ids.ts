/**
 * How facts keep lists of user ids in the store. Facts record who a change is announced
 * to (`audience_user_ids`, `peer_user_ids`, a default channel's `user_ids`, ...): most
 * often every active user, so a plain list would make each such fact as large as the
 * organization (49 KB at 10,000 users) and creating N users would store N² ids.
 *
 * A list of ids that rises strictly is stored as its runs of consecutive ids,
 * `{ id_runs: [first, last, first, last, ...] }`, when that is shorter: "every active user"
 * is one run, or one more per deactivated user in between, whatever the organization's
 * size. The encoding is exact (decoding gives back the same list, in the same order), so
 * the fact still records the decision itself, not a rule to resolve later; any other
 * list (unsorted, or scattered ids whose runs would be longer) is stored as it is, and
 * facts written before this encoding hold plain lists, which read unchanged.
 *
 * Writers encode with `storedFactData` (the command path, AggregateRepository); readers
 * get plain lists back through `upcast`, which every reader goes through.
 */

/** The stored form of a run-encoded list. */
export interface IdRuns {
  id_runs: number[];
}

/** Fields holding lists of user ids, at any depth of a fact: the only ones encoded or decoded. */
const ID_LIST_FIELD = /(^|_)(user_ids|subscriber_ids)$/;

/** Whether runs take fewer numbers than the list, for a list that rises strictly. */
function runsOf(ids: readonly unknown[]): number[] | undefined {
  if (ids.length < 4) return undefined;
  const runs: number[] = [];
  let first = ids[0];
  if (!Number.isSafeInteger(first)) return undefined;
  let last = first as number;
  for (let i = 1; i < ids.length; i++) {
    const id = ids[i];
    if (!Number.isSafeInteger(id) || (id as number) <= last) return undefined;
    if (id !== last + 1) {
      runs.push(first as number, last);
      // Runs would take as many numbers as the list: not worth it.
      if (runs.length >= ids.length) return undefined;
      first = id;
    }
    last = id as number;
  }
  runs.push(first as number, last);
  return runs.length < ids.length ? runs : undefined;
}

/** `ids` as stored: its runs when that is shorter and exact, else the list itself. */
export function compactIds<T>(ids: readonly T[]): readonly T[] | IdRuns {
  const runs = runsOf(ids);
  return runs ? { id_runs: runs } : ids;
}

const isIdRuns = (value: unknown): value is IdRuns =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as IdRuns).id_runs) && Object.keys(value).length === 1;

/** The list a stored value holds (a plain list as it is). */
export function expandIds(value: readonly number[] | IdRuns): number[] {
  if (!isIdRuns(value)) return value as number[];
  const runs = value.id_runs;
  let size = 0;
  for (let i = 0; i + 1 < runs.length; i += 2) size += runs[i + 1]! - runs[i]! + 1;
  const ids = new Array<number>(size);
  let at = 0;
  for (let i = 0; i + 1 < runs.length; i += 2) for (let id = runs[i]!; id <= runs[i + 1]!; id++) ids[at++] = id;
  return ids;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Copies of `data` with every id list field changed by `change` (objects are copied only
 * along the paths where something changed; arrays of objects are not entered: no fact
 * keeps an audience inside one).
 */
function mapIdLists(data: Record<string, unknown>, change: (value: unknown) => unknown): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in data) {
    const value = data[key];
    let next = value;
    if (ID_LIST_FIELD.test(key)) next = change(value);
    else if (isPlainObject(value)) next = mapIdLists(value, change);
    if (next !== value) (copy ??= { ...data })[key] = next;
  }
  return copy ?? data;
}

/** A fact's data as the store keeps it: its id lists run-encoded where that is shorter. */
export function storedFactData<T extends object>(fact: T): T {
  return mapIdLists(fact as Record<string, unknown>, (value) => (Array.isArray(value) ? compactIds(value) : value)) as T;
}

/** A stored fact's data with its id lists as plain lists again (upcast's first step). */
export function expandedFactData<T extends object>(data: T): T {
  return mapIdLists(data as Record<string, unknown>, (value) => (isIdRuns(value) ? expandIds(value) : value)) as T;
}
