import { describe, expect, it } from '@jest/globals';
import type { StateParams } from '@teamchat/contracts';
import { SqliteReadModelStore } from '@teamchat/platform';
import { dmKey, userMessageId, userTopicId, type MessageDoc, type UserMessageDoc } from '../src/projections/message-docs';
import { MessagesReadModel } from '../src/projections/messages';
import { messagingState } from '../src/queries/register-state';
import { unreadMessages } from '../src/queries/unread-messages';

const ME = 1;
const all: StateParams = { fetch_event_types: null, include_subscribers: false, client_gravatar: true, archived_channels: false };

function row(message_id: number, where: { channel_id: number; topic: string } | { dm: number[] }, flags: string[]): UserMessageDoc {
  const channel = 'channel_id' in where;
  return {
    _id: userMessageId(ME, message_id), user_id: ME, message_id, flags,
    unread: !flags.includes('read'), starred: flags.includes('starred'), mentioned: flags.includes('mentioned'),
    channel_id: channel ? where.channel_id : null, topic_lc: channel ? where.topic.toLowerCase() : null,
    dm_key: channel ? null : dmKey(where.dm), direct: !channel, sender_id: 2, has_link: false, has_image: false, has_attachment: false,
  };
}

async function model() {
  const store = SqliteReadModelStore.open(':memory:');
  const m = new MessagesReadModel(store);
  const rows = [
    row(5, { channel_id: 10, topic: 'Lunch' }, []),
    row(6, { channel_id: 10, topic: 'Lunch' }, ['mentioned']),
    row(7, { channel_id: 10, topic: 'other' }, ['read', 'starred']),
    row(8, { dm: [1, 2] }, []),
    row(9, { dm: [1, 2, 3] }, []),
    row(10, { dm: [1] }, ['read']),
    row(11, { dm: [1, 2] }, ['read']),
  ];
  for (const r of rows) {
    // Held rows: receipts of their own, as direct messages always have (personal-state.ts).
    await m.personal.rows.put({ ...r, held: true });
    const recipient = r.channel_id !== null ? { type: 'channel', channel_id: r.channel_id, channel_name: 'general', topic: r.topic_lc === 'lunch' ? 'Lunch' : 'other' } : { type: 'direct' };
    await m.messages.put({ _id: r.message_id, recipient } as unknown as MessageDoc);
  }
  await m.userTopics.put({ _id: userTopicId(ME, 10, 'Lunch'), user_id: ME, channel_id: 10, topic: 'Lunch', topic_lc: 'lunch', visibility_policy: 3, last_updated: 100 });
  await m.userTopics.put({ _id: userTopicId(ME, 10, 'gone'), user_id: ME, channel_id: 10, topic: 'gone', topic_lc: 'gone', visibility_policy: 0, last_updated: 50 });
  return { store, m };
}

describe('messaging register state', () => {
  it('builds unreads, recent conversations, topic policies and stars from the user rows', async () => {
    const { store, m } = await model();
    const state = await messagingState(m, ME, all);
    expect(state.max_message_id).toBe(11);
    expect(state.unread_msgs).toEqual({
      count: 4,
      streams: [{ stream_id: 10, topic: 'Lunch', unread_message_ids: [5, 6] }],
      pms: [{ other_user_id: 2, sender_id: 2, unread_message_ids: [8] }],
      huddles: [{ user_ids_string: '1,2,3', unread_message_ids: [9] }],
      mentions: [6],
      old_unreads_missing: false,
    });
    expect(state.recent_private_conversations).toEqual([
      { max_message_id: 11, user_ids: [2] },
      { max_message_id: 10, user_ids: [] },
      { max_message_id: 9, user_ids: [2, 3] },
    ]);
    expect(state.user_topics).toEqual([{ stream_id: 10, topic_name: 'Lunch', last_updated: 100, visibility_policy: 3 }]);
    expect(state.starred_messages).toEqual([7]);
    await store.close();
  });

  it("names a topic as its oldest unread message spells it, reading that message alone (not every unread one's)", async () => {
    const { store, m } = await model();
    // Two more unread in the topic, spelled otherwise, and a second topic: received as
    // the channel's subscribers receive, with no row (their places come from the index).
    for (const [id, topic] of [[12, 'LUNCH'], [13, 'lunch'], [14, 'Dinner']] as const) {
      const recipient = { type: 'channel', channel_id: 10, channel_name: 'general', topic };
      await m.messages.put({ _id: id, recipient, channel_id: 10, topic_lc: topic.toLowerCase(), dm_key: null } as unknown as MessageDoc);
      await m.personal.receipts.sent(10, id, [ME]);
    }
    expect(await m.personal.rows.count({ message_id: { $gte: 12 } })).toBe(0);
    const read: number[][] = [];
    const getMany = m.messages.getMany.bind(m.messages);
    m.messages.getMany = (ids) => (read.push(ids.map(Number)), getMany(ids));
    const state = await messagingState(m, ME, all);
    expect(state.unread_msgs?.streams).toEqual([
      { stream_id: 10, topic: 'Lunch', unread_message_ids: [5, 6, 12, 13] },
      { stream_id: 10, topic: 'Dinner', unread_message_ids: [14] },
    ]);
    expect(read.flat().sort((a, b) => a - b)).toEqual([5, 14]);
    await store.close();
  });

  it("names a topic whose messages share one spelling from the channel's places, reading a message only for a mixed one", async () => {
    const { store, m } = await model();
    // As a store whose messaging projection started from nothing: every spelling is known.
    await m.spellings.collection.clear();
    // Rows 5 and 6 above.
    await m.spellings.joined(10, 'Lunch');
    await m.spellings.joined(10, 'Lunch');
    for (const [id, topic] of [[12, 'LUNCH'], [13, 'Dinner'], [14, 'Dinner']] as const) {
      await m.spellings.joined(10, topic);
      const recipient = { type: 'channel', channel_id: 10, channel_name: 'general', topic };
      await m.messages.put({ _id: id, recipient, channel_id: 10, topic_lc: topic.toLowerCase(), dm_key: null } as unknown as MessageDoc);
      await m.personal.receipts.sent(10, id, [ME]);
    }
    await m.places.of(10);
    const read: number[][] = [];
    const getMany = m.messages.getMany.bind(m.messages);
    m.messages.getMany = (ids) => (read.push(ids.map(Number)), getMany(ids));
    const state = await messagingState(m, ME, all);
    expect(state.unread_msgs?.streams).toEqual([
      { stream_id: 10, topic: 'Lunch', unread_message_ids: [5, 6, 12] },
      { stream_id: 10, topic: 'Dinner', unread_message_ids: [13, 14] },
    ]);
    // 'Lunch' and 'LUNCH' met: named from its oldest unread message; 'Dinner' from the places.
    expect(read.flat()).toEqual([5]);
    await store.close();
  });

  it('builds only what was asked for; unreads need both message and update_message_flags', async () => {
    const { store, m } = await model();
    const onlyMessage = await messagingState(m, ME, { ...all, fetch_event_types: ['message'] });
    expect(onlyMessage).toEqual({ max_message_id: 11 });
    const both = await messagingState(m, ME, { ...all, fetch_event_types: ['message', 'update_message_flags'] });
    expect(Object.keys(both).sort()).toEqual(['max_message_id', 'unread_msgs']);
    const nobody = await messagingState(m, 99, all);
    expect(nobody.max_message_id).toBe(-1);
    expect(nobody.unread_msgs?.count).toBe(0);
    await store.close();
  });

  it("reads the user's channel rows only from where the listed unread messages start", async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const m = new MessagesReadModel(store);
    // 300 old channel messages the user starred and read (a row each), 40 newer ones
    // unread without a row, then 100 unread direct messages: the newest 30 are all direct.
    for (let id = 100; id < 440; id++) {
      await m.messages.put({ _id: id, recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'old' }, channel_id: 10, topic_lc: 'old', dm_key: null } as unknown as MessageDoc);
      await m.personal.receipts.sent(10, id, [ME]);
      if (id < 400) await m.personal.rows.put({ ...row(id, { channel_id: 10, topic: 'old' }, ['read', 'starred']), held: false });
    }
    for (let id = 440; id < 540; id++) {
      await m.messages.put({ _id: id, recipient: { type: 'direct' }, channel_id: null, topic_lc: null, dm_key: dmKey([1, 2]) } as unknown as MessageDoc);
      await m.personal.rows.put({ ...row(id, { dm: [1, 2] }, []), held: true });
    }
    await m.places.of(10);
    let channelRowsRead = 0;
    const findColumns = m.personal.rows.findColumns.bind(m.personal.rows);
    m.personal.rows.findColumns = async (filter, fields, options) => {
      const columns = await findColumns(filter, fields, options);
      if ('channel_id' in filter && !('unread' in filter)) channelRowsRead += columns[0]!.length;
      return columns;
    };
    const unread = await unreadMessages(m, ME, undefined, 30, { wait: true, firstChunk: 8 });
    expect(unread).toMatchObject({ count: 30, streams: [], old_unreads_missing: true });
    expect(unread.pms).toEqual([{ other_user_id: 2, sender_id: 2, unread_message_ids: Array.from({ length: 30 }, (_, i) => 510 + i) }]);
    // The 300 rows are older than every listed message: none of them is read.
    expect(channelRowsRead).toBe(0);
    // With no limit that cuts the list, all of them are read (they split the channel's unread stretches).
    const whole = await unreadMessages(m, ME, undefined, 50_000, { wait: true, firstChunk: 8 });
    expect(whole.count).toBe(140);
    expect(whole.streams).toEqual([{ stream_id: 10, topic: 'old', unread_message_ids: Array.from({ length: 40 }, (_, i) => 400 + i) }]);
    expect(channelRowsRead).toBe(300);
    await store.close();
  });
});
