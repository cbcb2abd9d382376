/**
 * The test of a message's own content against the conditions that read it (search, has),
 * run on the read models' tester thread (ReadModelStore.offThreadTester): the module the
 * thread loads, so it imports nothing that holds state.
 */
import { join } from 'node:path';
import type { MessageDoc } from '../projections/message-docs';
import type { Condition } from './narrow';
import { matches, needs, type Candidate, type MatchContext } from './narrow-match';

/** The compiled module (from the source and from `dist` alike: the thread runs `tsc -b`'s output). */
export const MESSAGE_TESTS_MODULE = join(__dirname, '..', '..', 'dist', 'queries', 'message-tests.js');

/** Whether a condition reads only the message (the tester thread can test it). */
export const testsMessageOnly = (condition: Condition): boolean => needs(condition) === 'message';

/** The conditions handed here read nothing of the requester's: a call to it is a mistake. */
const NO_CONTEXT: MatchContext = {
  topicPolicy: () => {
    throw new Error('a message test reads no topic policy');
  },
  coveredByChannels: () => {
    throw new Error('a message test reads no channel access');
  },
};

/** A passing message's narrow keys, for a candidate listed by its id alone (reader.ts). */
export type MessageKeys = [channel_id: number | null, topic_lc: string | null, dm_key: string | null, sender_id: number];

/** Whether `doc` meets every one of `conditions` (each of them `testsMessageOnly`): its keys if so. */
export function test(doc: MessageDoc, conditions: Condition[]): MessageKeys | false {
  const candidate: Candidate = { id: doc._id, channel_id: doc.channel_id, topic_lc: doc.topic_lc, dm_key: doc.dm_key, sender_id: doc.sender_id, message: doc };
  if (!conditions.every((condition) => matches(condition, candidate, NO_CONTEXT))) return false;
  return [doc.channel_id, doc.topic_lc, doc.dm_key, doc.sender_id];
}
