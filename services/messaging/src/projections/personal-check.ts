/**
 * The old rows against the new per-user state (personal-state.ts), message by message:
 * who holds each message and with which flags must be the same in both. Used by the
 * equality test, and after every fact when TEAMCHAT_CHECK_PERSONAL_STATE=1, so the HTTP
 * suites check it on every scenario they play while both are written.
 */
import type { FactHandlers, StoredFact } from '@teamchat/platform';
import type { MessagesReadModel } from './messages';

/** Differences between the two models for these messages, in words (none: equal). */
export async function personalStateDifferences(model: MessagesReadModel, messageIds: Iterable<number>): Promise<string[]> {
  const differences: string[] = [];
  for (const id of new Set(messageIds)) {
    const message = await model.messages.get(id);
    const old = new Map((await model.rowsOf(id)).map((r) => [r.user_id, r]));
    const now = message ? await model.personal.holders(message) : new Map<number, readonly string[]>();
    for (const [userId, row] of old) {
      const flags = now.get(userId);
      if (!flags) differences.push(`message ${id}: user ${userId} holds it in the rows only (${JSON.stringify(row.flags)})`);
      else if (JSON.stringify(flags) !== JSON.stringify(row.flags)) {
        differences.push(`message ${id}: user ${userId} has ${JSON.stringify(row.flags)} in the rows, ${JSON.stringify(flags)} now`);
      }
    }
    for (const userId of now.keys()) if (!old.has(userId)) differences.push(`message ${id}: user ${userId} holds it in the new state only`);
    for (const row of await model.personal.rowsOf(id)) {
      const was = old.get(row.user_id);
      if (was && (['channel_id', 'topic_lc', 'dm_key', 'direct', 'sender_id', 'has_link', 'has_image', 'has_attachment'] as const).some((f) => was[f] !== row[f])) {
        differences.push(`message ${id}: user ${userId(row)}'s row keys differ`);
      }
    }
  }
  return differences;
}

/** The newest messages of a channel checked after each fact (a suite's channels hold fewer). */
const CHECKED_PER_CHANNEL = 300;

const userId = (row: { user_id: number }) => row.user_id;

/** The handlers, each followed by the check of the messages its fact touched; a difference throws. */
export function checkedPersonalState(model: MessagesReadModel, handlers: FactHandlers): FactHandlers {
  const checked: FactHandlers = { ...handlers };
  const wrap = (type: string, touched: (fact: never, stored: StoredFact) => Promise<number[]>) => {
    const handler = handlers[type as keyof FactHandlers] as ((fact: never, stored: never) => Promise<void>) | undefined;
    if (!handler) return;
    (checked as Record<string, unknown>)[type] = async (fact: never, stored: StoredFact) => {
      await handler(fact, stored as never);
      const differences = await personalStateDifferences(model, await touched(fact, stored));
      if (differences.length) throw new Error(`per-user state differs from the rows:\n${differences.join('\n')}`);
    };
  };
  // A flag change may move a read mark over the rest of its channels: all of them are checked.
  const inChannelsOf = async (ids: number[]) => {
    const channels = new Set((await model.messages.getMany(ids)).flatMap((m) => (m.channel_id === null ? [] : [m.channel_id])));
    const all = [...ids];
    for (const channelId of channels) {
      all.push(...((await model.messages.findIds({ channel_id: channelId }, { sort: ['_id', -1], limit: CHECKED_PER_CHANNEL })) as number[]));
    }
    return all;
  };
  wrap('MessageSent', (_fact, stored) => inChannelsOf([stored.position]));
  wrap('MessageFlagsUpdated', (fact: { message_ids: number[] }) => inChannelsOf(fact.message_ids));
  wrap('MessageEdited', (fact: { message_id: number; move: { message_ids: number[] } | null }) => inChannelsOf([fact.message_id, ...(fact.move?.message_ids ?? [])]));
  wrap('MessageDeleted', async (fact: { message_id: number }) => [fact.message_id]);
  return checked;
}
