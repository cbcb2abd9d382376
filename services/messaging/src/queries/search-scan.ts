/**
 * Reading a narrow with search terms: two streams of message ids in the same order, the
 * text index's matches of the search and the plan's candidates (personal history or
 * channel history, by the plan's filter), of which the answer is the intersection (then
 * tested on what neither checks).
 *
 * A round reads a batch of each from where the last round ended, and the stream whose
 * batch reaches further drives: its batch holds every one of its ids up to where it
 * ends, so the round answers that whole stretch of ids by looking its ids up in the
 * other stream (text matches: which of them the plan has; candidates: which of them
 * match, tested on the message's text). The next rounds read the driver alone, until
 * both are read again to choose anew. A rare word is so answered from its few matches
 * however long the history; a common word, or a small topic, from the plan's own
 * candidates; and a round never reads more than two batches. Batches double, from about
 * the page asked for, so a long stretch with no answer takes few rounds.
 */
import type { IdRange } from '../projections/recent-ids';
import type { Candidate } from './narrow-match';

/** The largest batch a round reads from each stream. */
const MAX_BATCH = 2000;
/** The first round's batch at least: the first matches are often near. */
const MIN_BATCH = 50;
/** How often (in rounds) both streams are read again to choose which one drives. */
const RECHOOSE_EVERY = 3;

export interface TextScanSource {
  /** Up to `limit` ids the text index matches within `range`, nearest its start first. */
  textIds(range: IdRange, direction: 1 | -1, limit: number): Promise<number[]>;
  /** Up to `limit` of the plan's candidates within `range`, nearest first (before the residual test). */
  candidates(range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]>;
  /** The plan's candidates among `ids` (given in `direction` order), in the same order. */
  probe(ids: number[], direction: 1 | -1): Promise<Candidate[]>;
  /** Those candidates that meet what is left to test (the search too, unless `textKnown`). */
  accept(candidates: Candidate[], textKnown: boolean): Promise<Candidate[]>;
}

/** Up to `limit` messages in both streams within `range` that the source accepts, nearest first. */
export async function scanWithText(source: TextScanSource, range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]> {
  const found: Candidate[] = [];
  let bound = range;
  let batch = Math.min(MAX_BATCH, Math.max(limit + 1, MIN_BATCH));
  let driver: 'text' | 'candidates' | undefined;
  for (let round = 0; ; round++) {
    // Both streams are read to choose the driver, in the first round and every
    // RECHOOSE_EVERY; in between only the driver (the other stream's batch would be unused).
    const choosing = round % RECHOOSE_EVERY === 0;
    const [ids, candidates] = await Promise.all([
      choosing || driver === 'text' ? source.textIds(bound, direction, batch) : undefined,
      choosing || driver === 'candidates' ? source.candidates(bound, direction, batch) : undefined,
    ]);
    // Where each batch ends: undefined when it reached the end of the range.
    const textEnd = ids && ids.length === batch ? ids[batch - 1]! : undefined;
    const candidatesEnd = candidates && candidates.length === batch ? candidates[batch - 1]!.id : undefined;
    if (choosing) driver = textEnd === undefined || (candidatesEnd !== undefined && (textEnd - candidatesEnd) * direction > 0) ? 'text' : 'candidates';
    const answered = driver === 'text' ? await source.accept(await source.probe(ids!, direction), true) : await source.accept(candidates!, false);
    for (const candidate of answered) {
      found.push(candidate);
      if (found.length === limit) return found;
    }
    const end = driver === 'text' ? textEnd : candidatesEnd;
    if (end === undefined) return found;
    bound = direction === 1 ? { ...without(bound, '$gte'), $gt: end } : { ...without(bound, '$lte'), $lt: end };
    batch = Math.min(MAX_BATCH, batch * 2);
  }
}

function without(range: IdRange, key: keyof IdRange): IdRange {
  const { [key]: _dropped, ...rest } = range;
  return rest;
}
