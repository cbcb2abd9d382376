/**
 * Reading a narrow with search terms: two streams of message ids in the same order, the
 * text index's matches of the search and the plan's candidates (personal history or
 * channel history, by the plan's filter), of which the answer is the intersection (then
 * tested on what neither checks).
 *
 * One stream drives a round: its batch, read from where the last round ended, holds
 * every one of its ids up to where the batch ends, so the round answers that whole
 * stretch of ids by looking its ids up in the other stream (text matches: which of them
 * the plan has; candidates: which of them match, tested on the message's text). The
 * sparser stream drives, its batches reaching further: a rare word is answered from its
 * few matches however long the history, a common word or a small topic from the plan's
 * candidates. Batches double, from about the page asked for, so a long stretch with no
 * answer takes few rounds.
 *
 * The candidates' first batch is always read and answered first: when it holds the page
 * (a common word, a small conversation) the text index is not read at all.
 *
 * Which is sparser is measured, not guessed, with one cost in mind: FTS5 finds the first
 * match below (or above) an id by stepping through every match before it, so a read of
 * a common word that starts deep in the history costs what lies above. So the text
 * stream's density is first measured where it is cheap, at its start (the newest matches
 * for a backward read), against a batch of candidates; the text index is read from the
 * request's range only when it is the sparser stream, where few matches lie above. While
 * it drives, each third round reads a batch of candidates too, to hand over when they
 * become the sparser; once the candidates drive, the text index is not read again.
 */
import type { IdRange } from '../projections/recent-ids';
import type { Candidate } from './narrow-match';

/** The largest batch a round reads from each stream. */
const MAX_BATCH = 2000;
/** The first round's batch at least: the first matches are often near. */
const MIN_BATCH = 50;
/** While the text index drives, how often (in rounds) the candidates are read to choose again. */
const RECHOOSE_EVERY = 3;

export interface TextScanSource {
  /** Whether `accept` tests messages on another thread: a batch then costs this thread little, and is not paced to its slice. */
  offThread?: boolean;
  /** Up to `limit` ids the text index matches within `range` (all of them for `{}`), nearest its start first. */
  textIds(range: IdRange, direction: 1 | -1, limit: number): Promise<number[]>;
  /** Up to `limit` of the plan's candidates within `range`, nearest first (before the residual test). */
  candidates(range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]>;
  /** The plan's candidates among `ids` (given in `direction` order), in the same order. */
  probe(ids: number[], direction: 1 | -1): Promise<Candidate[]>;
  /** Those candidates that meet what is left to test (the search too, unless `textKnown`). */
  accept(candidates: Candidate[], textKnown: boolean): Promise<Candidate[]>;
}

/** How far a full batch of ids reaches (Infinity when it is not full: the stream ended within it). */
const reach = (ids: readonly number[], batch: number) => (ids.length < batch ? Infinity : Math.abs(ids[0]! - ids[batch - 1]!));

/** Up to `limit` messages in both streams within `range` that the source accepts, nearest first. */
export async function scanWithText(
  source: TextScanSource,
  range: IdRange,
  direction: 1 | -1,
  limit: number,
  /** Between rounds: stops a request out of time, lets other requests run, sizes the next round to a slice (RequestBudget). */
  budget?: { enter(): Promise<void>; turn(): Promise<void>; paced(wanted: number, done: number, min: number): number },
): Promise<Candidate[]> {
  if (budget) await budget.enter();
  let batch = Math.min(MAX_BATCH, Math.max(limit + 1, MIN_BATCH));
  // A common word, or a small conversation: the candidates' first batch holds the page, and
  // the text index (whose read of a common word costs more than the page) is not read.
  const first = await source.candidates(range, direction, batch);
  const found = (await source.accept(first, false)).slice(0, limit);
  if (found.length === limit || first.length < batch) return found;
  let bound = past(range, first[batch - 1]!.id, direction);
  if (budget) await budget.turn();
  // Else the first choice. Where the first batch matched, its share of matches estimates the
  // word's density, and the text index's reach with it: the candidates drive when they reach
  // further, without reading the index (a common word's read costs most). Else the index's
  // density where reading it is cheap (its start), against the candidates'.
  const firstReach = reach(first.map((c) => c.id), batch);
  const textReachEstimate = found.length > 0 ? (batch * batch) / found.length : Infinity;
  let driver: 'text' | 'candidates' =
    textReachEstimate < firstReach ? 'candidates' : reach(await source.textIds({}, direction, batch), batch) >= firstReach ? 'text' : 'candidates';
  batch = Math.min(MAX_BATCH, batch * 2);
  for (let round = 1; ; round++) {
    let ids: number[] | undefined;
    let candidates: Candidate[] | undefined;
    if (driver === 'text') {
      const choosing = round % RECHOOSE_EVERY === 0;
      [ids, candidates] = await Promise.all([source.textIds(bound, direction, batch), choosing ? source.candidates(bound, direction, batch) : undefined]);
      if (choosing && reach(candidates!.map((c) => c.id), batch) > reach(ids, batch)) driver = 'candidates';
    } else {
      candidates = await source.candidates(bound, direction, batch);
    }
    const driving = driver === 'text' ? ids! : candidates!.map((c) => c.id);
    const answered = driver === 'text' ? await source.accept(await source.probe(ids!, direction), true) : await source.accept(candidates!, false);
    for (const candidate of answered) {
      found.push(candidate);
      if (found.length === limit) return found;
    }
    if (driving.length < batch) return found;
    bound = past(bound, driving[batch - 1]!, direction);
    const done = batch;
    batch = Math.min(MAX_BATCH, batch * 2);
    if (budget) {
      if (!source.offThread) batch = budget.paced(batch, done, MIN_BATCH);
      await budget.turn();
    }
  }
}

/** The rest of a range beyond an id, in scan order. */
const past = (range: IdRange, end: number, direction: 1 | -1): IdRange =>
  direction === 1 ? { ...without(range, '$gte'), $gt: end } : { ...without(range, '$lte'), $lt: end };

function without(range: IdRange, key: keyof IdRange): IdRange {
  const { [key]: _dropped, ...rest } = range;
  return rest;
}
