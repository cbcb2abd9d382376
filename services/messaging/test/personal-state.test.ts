/**
 * The per-user state without a row per recipient (projections/personal-state.ts) against
 * the rows it replaced (reference-rows.ts, the oracle): random histories of sends, flag changes, edits, moves and
 * deletions, projected into both, must give every message the same holders with the
 * same flags after every fact; replaying the facts into an empty store gives the same
 * documents; and the new state holds far fewer documents than the rows.
 */
import { describe, expect, it, jest } from '@jest/globals';
import type { Fact, FactOf } from '@teamchat/contracts';
import { SqliteReadModelStore, type Filter, type StoredFact } from '@teamchat/platform';
import type { IdRange } from '../src/projections/recent-ids';
import { Places } from '../src/projections/channel-places';
import { MessagesReadModel } from '../src/projections/messages';
import { messagesProjection } from '../src/projections/messages-projection';
import { ReferenceRows } from './reference-rows';
import { scanPersonal, scanPersonalPlaces } from '../src/queries/personal-scan';
import { unreadMessages } from '../src/queries/unread-messages';
import { referenceUnread } from './reference-unread';
import type { MuteState } from '../src/domain/unread-count';

/** A small deterministic generator (mulberry32), so a failing history can be replayed. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const some = <T>(items: readonly T[], p: number): T[] => items.filter(() => next() < p);
  return { next, int, pick, some };
}

const USERS = [1, 2, 3, 4, 5, 6, 7, 8];
const CHANNELS = [10, 11, 12];
// 'A' and 'a' are one topic spelled two ways: register names it as its oldest unread message does.
const TOPICS = ['a', 'b', 'C', 'A'];

function sentFact(r: ReturnType<typeof random>, sender: number, recipient: FactOf<'MessageSent'>['recipient'], recipients: number[]): FactOf<'MessageSent'> {
  return {
    type: 'MessageSent',
    sender_id: sender,
    sender_email: `u${sender}@example.com`,
    sender_full_name: `User ${sender}`,
    recipient,
    content: 'words',
    rendered_content: r.next() < 0.2 ? '<p><a href="https://example.com">link</a></p>' : '<p>words</p>',
    is_me_message: false,
    client: 'test',
    recipient_id: recipient.type === 'channel' ? recipient.channel_id : 99,
    timestamp: 1_700_000_000,
    recipient_user_ids: recipients,
    mentioned_user_ids: r.some(recipients, 0.1),
    wildcard_mentioned_user_ids: r.next() < 0.05 ? recipients : [],
    read_by_sender: r.next() < 0.7,
    local_echo: null,
    alert_word_user_ids: r.some(recipients, 0.05),
    muted_sender_user_ids: r.some(recipients, 0.05),
  };
}

/** A random history: who is subscribed changes as it goes, as do flags, contents and places. */
function history(seed: number, steps: number): Fact[] {
  const r = random(seed);
  const subscribers = new Map(CHANNELS.map((c) => [c, new Set(r.some(USERS, 0.6))]));
  const facts: Fact[] = [];
  const sent: { id: number; channel_id: number | null; topic: string }[] = [];
  // Message ids are positions: the index of the fact, plus one.
  const position = () => facts.length + 1;
  for (let step = 0; step < steps; step++) {
    const roll = r.next();
    if (roll < 0.1) {
      const channel = r.pick(CHANNELS);
      const user = r.pick(USERS);
      const set = subscribers.get(channel)!;
      if (set.has(user)) set.delete(user);
      else set.add(user);
      continue;
    }
    if (roll < 0.45 || sent.length === 0) {
      const sender = r.pick(USERS);
      if (r.next() < 0.2) {
        const users = [...new Set([sender, ...r.some(USERS, 0.2)])].sort((a, b) => a - b);
        const recipient = { type: 'direct' as const, users: users.map((id) => ({ id, email: `u${id}@example.com`, full_name: `User ${id}`, is_mirror_dummy: false })) };
        sent.push({ id: position(), channel_id: null, topic: '' });
        facts.push(sentFact(r, sender, recipient, users));
      } else {
        const channel = r.pick(CHANNELS);
        const topic = r.pick(TOPICS);
        // Usually the subscribers; sometimes a sender from outside, who receives it too.
        const recipients = [...new Set([...subscribers.get(channel)!, ...(r.next() < 0.3 ? [sender] : [])])].sort((a, b) => a - b);
        sent.push({ id: position(), channel_id: channel, topic });
        facts.push(sentFact(r, sender, { type: 'channel', channel_id: channel, channel_name: `c${channel}`, topic }, recipients));
      }
      continue;
    }
    const user = r.pick(USERS);
    if (roll < 0.8) {
      const mostly = r.next() < 0.3 ? sent.map((m) => m.id) : r.some(sent, 0.2).map((m) => m.id);
      facts.push({ type: 'MessageFlagsUpdated', user_id: user, op: r.next() < 0.75 ? 'add' : 'remove', flag: r.next() < 0.75 ? 'read' : 'starred', message_ids: mostly });
      continue;
    }
    const message = r.pick(sent);
    if (roll < 0.88) {
      facts.push({
        type: 'MessageEdited', message_id: message.id, editor_id: user, timestamp: 1_700_000_100, audience_user_ids: [],
        content: {
          prev_content: 'words', prev_rendered_content: '<p>words</p>', content: 'new', is_me_message: false,
          rendered_content: r.next() < 0.5 ? '<p>new <a href="https://example.com">x</a></p>' : '<p>new</p>',
          mentioned_user_ids: r.some(USERS, 0.2), wildcard_mentioned_user_ids: r.next() < 0.1 ? USERS : [],
          ...(r.next() < 0.5 ? { alert_word_user_ids: r.some(USERS, 0.2) } : {}),
        },
        move: null,
      });
    } else if (roll < 0.96 && message.channel_id !== null) {
      const from = message.channel_id;
      const to = r.next() < 0.5 ? from : r.pick(CHANNELS);
      const topic = r.pick(TOPICS);
      const moved = sent.filter((m) => m.channel_id === from && m.topic === message.topic && m.id >= message.id);
      for (const m of moved) Object.assign(m, { channel_id: to, topic });
      facts.push({
        type: 'MessageEdited', message_id: message.id, editor_id: user, timestamp: 1_700_000_200, audience_user_ids: [], content: null,
        move: {
          prev_channel_id: from, channel_id: to, channel_name: `c${to}`, prev_topic: message.topic, topic, propagate_mode: 'change_later',
          message_ids: moved.map((m) => m.id), recipient_id: to, revoked_user_ids: r.next() < 0.3 ? r.some(USERS, 0.3) : [],
        },
      });
    } else {
      sent.splice(sent.indexOf(message), 1);
      facts.push({ type: 'MessageDeleted', message_id: message.id, deleted_by: user, channel_id: message.channel_id, topic: message.topic, audience_user_ids: [] });
    }
  }
  return facts;
}

async function project(facts: Fact[], check?: (model: MessagesReadModel, reference: ReferenceRows, fact: Fact) => Promise<void>, options: { recentIdsPerConversation?: number } = {}) {
  const store = SqliteReadModelStore.open(':memory:');
  const model = new MessagesReadModel(store, options);
  // As the projector starts from nothing: the topics' spellings are then complete.
  for (const collection of model.collections) await collection.clear();
  const reference = new ReferenceRows(store);
  const handlers = messagesProjection(model) as Record<string, (fact: Fact, stored: StoredFact) => Promise<void>>;
  for (const [i, fact] of facts.entries()) {
    const stored: StoredFact = { id: `f${i}`, stream: `s${i}`, revision: 0, position: i + 1, type: fact.type, data: fact, metadata: {}, created: 0 };
    await store.batch(() => handlers[fact.type]!(fact, stored));
    await reference.apply(fact, stored.position, model.messages);
    await check?.(model, reference, fact);
  }
  return { store, model, reference };
}

/** Differences between the oracle's rows and the per-user state for these messages, in words (none: equal). */
async function differencesOf(model: MessagesReadModel, reference: ReferenceRows, messageIds: Iterable<number>): Promise<string[]> {
  const differences: string[] = [];
  for (const id of new Set(messageIds)) {
    const message = await model.messages.get(id);
    const old = new Map((await reference.rowsOf(id)).map((r) => [r.user_id, r]));
    const now = message ? await model.personal.holders(message) : new Map<number, readonly string[]>();
    for (const [userId, row] of old) {
      const flags = now.get(userId);
      if (!flags) differences.push(`message ${id}: user ${userId} holds it in the rows only (${JSON.stringify(row.flags)})`);
      else if (JSON.stringify(flags) !== JSON.stringify(row.flags)) differences.push(`message ${id}: user ${userId} has ${JSON.stringify(row.flags)} in the rows, ${JSON.stringify(flags)} now`);
    }
    for (const userId of now.keys()) if (!old.has(userId)) differences.push(`message ${id}: user ${userId} holds it in the new state only`);
    for (const row of await model.personal.rowsOf(id)) {
      const was = old.get(row.user_id);
      if (was && (['channel_id', 'topic_lc', 'dm_key', 'direct', 'sender_id', 'has_link', 'has_image', 'has_attachment'] as const).some((f) => was[f] !== row[f])) {
        differences.push(`message ${id}: user ${row.user_id}'s row keys differ`);
      }
    }
  }
  return differences;
}

/** The filters personal-history narrows give the scan (narrow-plan.ts), over the rows' fields. */
const FILTERS: Filter[] = [
  {}, { unread: true }, { unread: false }, { starred: true }, { starred: false }, { mentioned: true }, { mentioned: false },
  { direct: true }, { direct: false }, { channel_id: 10 }, { channel_id: { $ne: 10 } }, { channel_id: 11, topic_lc: 'a' },
  { sender_id: 3 }, { has_link: true }, { unread: true, channel_id: 12 }, { direct: false, unread: true }, { dm_key: null },
  { channel_id: { $nin: [10, 11] }, sender_id: { $ne: 2 } }, { topic_lc: { $ne: 'b' }, unread: false, starred: false }, { channel_id: null },
];

/** The scan of personal history against the rows, for every filter, both directions, several ranges and limits. */
async function scanDifferences(model: MessagesReadModel, reference: ReferenceRows, user: number, ids: number[], round: number): Promise<string[]> {
  const differences: string[] = [];
  const top = Math.max(0, ...ids);
  const mid = Math.floor(top / 2);
  // The last is one id: GET /messages' anchor.
  const ranges: IdRange[] = [{}, { $lt: mid }, { $gte: mid }, { $gt: Math.floor(top / 4), $lte: Math.floor((3 * top) / 4) }, { $gte: mid, $lte: mid }];
  for (const [f, filter] of FILTERS.entries()) {
    for (const direction of [1, -1] as const) {
      const range = ranges[(f + round) % ranges.length]!;
      const limit = [1, 3, 50, Number.POSITIVE_INFINITY][(f + round + direction + 1) % 4]!;
      const rows = await reference.rows.find(Object.keys(range).length ? { ...filter, user_id: user, message_id: range } : { ...filter, user_id: user }, { sort: ['message_id', direction], ...(Number.isFinite(limit) ? { limit } : {}) });
      const expected = rows.map((r) => [r.message_id, r.flags]);
      const got = (await scanPersonal(model, user, filter, range, direction, limit)).map((e) => [e.message_id, e.flags]);
      const places = (await scanPersonalPlaces(model, user, filter, range, direction, limit)).map((e) => [e.message_id, e.flags, e.channel_id, e.topic_lc, e.dm_key]);
      const expectedPlaces = rows.map((r) => [r.message_id, r.flags, r.channel_id, r.topic_lc, r.dm_key]);
      if (JSON.stringify(places) !== JSON.stringify(expectedPlaces)) {
        differences.push(`user ${user} places ${JSON.stringify(filter)} ${JSON.stringify(range)} dir ${direction} limit ${limit}: ${JSON.stringify(places)}, rows ${JSON.stringify(expectedPlaces)}`);
      }
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        differences.push(`user ${user} scan ${JSON.stringify(filter)} ${JSON.stringify(range)} dir ${direction} limit ${limit}: ${JSON.stringify(got)}, rows ${JSON.stringify(expected)}`);
      }
    }
    // A page of listed ids (a search's candidates).
    const listed = ids.filter((_, i) => (i + f) % 3 === 0);
    const rows = await reference.rows.find({ ...filter, user_id: user, message_id: { $in: listed } }, { sort: ['message_id', -1] });
    const got = (await scanPersonal(model, user, filter, { $in: listed }, -1, 1000)).map((e) => e.message_id);
    if (JSON.stringify(got) !== JSON.stringify(rows.map((r) => r.message_id))) differences.push(`user ${user} listed ${JSON.stringify(filter)}: ${JSON.stringify(got)}, rows ${JSON.stringify(rows.map((r) => r.message_id))}`);
  }
  return differences;
}

/** Mutes that make the unread count leave messages out, and some that let them back in. */
const MUTES: MuteState[] = [
  { muted_channel_ids: new Set(), topic_policies: new Map() },
  { muted_channel_ids: new Set([10]), topic_policies: new Map([['10:b', 2], ['11:a', 1], ['12:c', 3]]) },
];

/** Register's unread_msgs against the rows', at limits that cut the list and one that does not. */
async function unreadDifferences(model: MessagesReadModel, reference: ReferenceRows, user: number, round: number): Promise<string[]> {
  const limit = [1, 4, 50_000][round % 3]!;
  const mutes = MUTES[round % 2]!;
  const expected = JSON.stringify(await referenceUnread(reference.rows, model.messages, user, mutes, limit));
  // From the channels' places in memory, and (on alternate rounds, places dropped) from a scan of the index.
  const fromPlaces = JSON.stringify(await unreadMessages(model, user, mutes, limit, { wait: true, firstChunk: [1, 2, 2048][round % 3]! }));
  if (round % 2 === 0) model.places.clear();
  const fromScan = JSON.stringify(await unreadMessages(model, user, mutes, limit));
  const differences: string[] = [];
  if (fromPlaces !== expected) differences.push(`user ${user} unread_msgs from places (limit ${limit}): ${fromPlaces}, rows ${expected}`);
  if (fromScan !== expected) differences.push(`user ${user} unread_msgs (limit ${limit}): ${fromScan}, rows ${expected}`);
  return differences;
}

const allIds = async (model: MessagesReadModel) => (await model.messages.findIds({})) as number[];

describe('per-user state without a row per recipient', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    // Histories 4-6 keep 3 recent ids per conversation, not 200: pages read past them, from
    // the index or from the channels' places in memory.
    it(`gives every message the holders and flags of the rows after every fact (history ${seed})`, async () => {
      // 220 steps: each check reads the whole history, so the cost grows with its square;
      // the assertions below hold that every kind of change still happened.
      const facts = history(seed, 220);
      let checked = 0;
      const { store, model } = await project(facts, async (model, reference, fact) => {
        const ids = await allIds(model);
        const differences = await differencesOf(model, reference, ids);
        // What reads ask: one user's flags on a page of messages (every few facts: it costs).
        const messages = (checked++ % 4 === 0) ? await model.messages.getMany(ids) : [];
        for (const user of messages.length ? USERS : []) {
          const rows = new Map((await reference.rows.find({ user_id: user })).map((r) => [r.message_id, r.flags]));
          const flags = await model.personal.flagsMany(user, messages);
          messages.forEach((m, i) => {
            if (JSON.stringify(flags[i]) !== JSON.stringify(rows.get(m._id))) differences.push(`user ${user} reads ${JSON.stringify(flags[i])} on ${m._id}, rows ${JSON.stringify(rows.get(m._id))}`);
          });
          differences.push(...(await scanDifferences(model, reference, user, ids, checked)));
          differences.push(...(await unreadDifferences(model, reference, user, checked)));
        }
        if (differences.length) throw new Error(`after ${fact.type} ${JSON.stringify(fact)}:\n${differences.join('\n')}`);
      }, seed > 3 ? { recentIdsPerConversation: 3 } : {});
      // The history did what it is for: moves, flags, mark advances and historical rows happened.
      expect(facts.some((f) => f.type === 'MessageEdited' && f.move && f.move.prev_channel_id !== f.move.channel_id)).toBe(true);
      expect(await model.personal.marks.count({})).toBeGreaterThan(0);
      expect(await model.personal.rows.count({ held: true, channel_id: { $ne: null } })).toBeGreaterThan(0);
      await store.close();
    }, 60_000);
  }

  /** 2,000 messages of a busy channel from user 2 to user 1, user 1 mentioned in every other: 1,000 rows. */
  function mentionedInEveryOther(seed: number): Fact[] {
    const r = random(seed);
    return Array.from({ length: 2000 }, (_, i): Fact => {
      const fact = sentFact(r, 2, { type: 'channel', channel_id: 10, channel_name: 'ten', topic: 'a' }, [1, 2]);
      return { ...fact, mentioned_user_ids: i % 2 === 0 ? [1] : [], wildcard_mentioned_user_ids: [], alert_word_user_ids: [], muted_sender_user_ids: [], read_by_sender: true };
    });
  }

  /** Counts the flag rows the scans read from now on. */
  function countRowsRead(model: MessagesReadModel): { rows: number } {
    const count = { rows: 0 };
    const findFields = model.personal.rows.findFields.bind(model.personal.rows);
    model.personal.rows.findFields = (async (...args: Parameters<typeof findFields>) => {
      const rows = await findFields(...args);
      count.rows += rows.length;
      return rows;
    }) as typeof findFields;
    return count;
  }

  it("reads the user's rows near a page at Zulip's newest anchor, not every row they have", async () => {
    const { store, model } = await project(mentionedInEveryOther(11));
    expect(await model.personal.rows.count({ user_id: 1 })).toBe(1000);
    const read = countRowsRead(model);
    // The range GET /messages gives for anchor=newest: below 10^16, a finite bound.
    const page = await scanPersonal(model, 1, {}, { $lte: 10_000_000_000_000_000 }, -1, 50);
    expect(page.map((e) => e.message_id)).toEqual(Array.from({ length: 50 }, (_, i) => 2000 - i));
    expect(read.rows).toBeLessThan(200);
    await store.close();
  });

  it('reads, for a deep page of the combined feed, about what the page holds, not a batch of every channel with history there', async () => {
    // 40 channels taking turns, 25 messages each; user 1 is mentioned in every seventh
    // message (rows to check). Every channel has messages below the anchor.
    const r = random(13);
    const channels = Array.from({ length: 40 }, (_, i) => 100 + i);
    const facts = Array.from({ length: 1000 }, (_, i): Fact => {
      const channel = channels[i % channels.length]!;
      const fact = sentFact(r, 2, { type: 'channel', channel_id: channel, channel_name: `c${channel}`, topic: 'a' }, [1, 2]);
      return { ...fact, mentioned_user_ids: i % 7 === 0 ? [1] : [], wildcard_mentioned_user_ids: [], alert_word_user_ids: [], muted_sender_user_ids: [], read_by_sender: true };
    });
    const { store, model, reference } = await project(facts);
    // The channels are in memory, as after the first scans that ask for them.
    for (const channel of channels) await model.places.of(channel);
    const read = { documents: 0, rowLookups: 0, slices: 0 };
    const rowsRead = countRowsRead(model);
    const getMany = model.messages.getMany.bind(model.messages);
    model.messages.getMany = async (ids) => {
      read.documents += ids.length;
      return getMany(ids);
    };
    const rowsGetMany = model.personal.rows.getMany.bind(model.personal.rows);
    model.personal.rows.getMany = async (ids) => {
      read.rowLookups += ids.length;
      return rowsGetMany(ids);
    };
    const slice = jest.spyOn(Places.prototype, 'slice');
    const page = await scanPersonal(model, 1, {}, { $lt: 600 }, -1, 11);
    const expected = await reference.rows.find({ user_id: 1, message_id: { $lt: 600 } }, { sort: ['message_id', -1], limit: 11 });
    expect(page.map((e) => [e.message_id, e.flags])).toEqual(expected.map((row) => [row.message_id, row.flags]));
    read.slices = slice.mock.calls.length;
    slice.mockRestore();
    // The page's 11 messages come from 11 channels: their documents, a read of each of
    // those channels and of the rows near the page, not a batch of each of the 40.
    expect(read.documents).toBeLessThanOrEqual(11);
    expect(read.slices).toBeLessThanOrEqual(11);
    expect(read.rowLookups + rowsRead.rows).toBeLessThanOrEqual(40);
    await store.close();
  });

  it("reads the user's rows near their first unread message, not every row below it", async () => {
    // User 1 reads all but the last 21: their 1,000 mention rows stay (read, mentioned), and the
    // first unread (1980) has no row: the channel's messages are read, and which have a row.
    const facts = mentionedInEveryOther(12);
    facts.push({ type: 'MessageFlagsUpdated', user_id: 1, op: 'add', flag: 'read', message_ids: Array.from({ length: 1979 }, (_, i) => i + 1) });
    const { store, model } = await project(facts);
    const read = countRowsRead(model);
    // The first_unread anchor of a channel narrow: from id 0 onward, one message.
    const [first] = await scanPersonal(model, 1, { channel_id: 10, unread: true }, { $gte: 0 }, 1, 1);
    expect(first?.message_id).toBe(1980);
    expect(read.rows).toBeLessThan(50);
    await store.close();
  });

  it('rebuilds the same documents from the same facts', async () => {
    const facts = history(7, 300);
    const dump = async (model: MessagesReadModel) => ({
      rows: await model.personal.rows.find({}),
      marks: await model.personal.marks.find({}),
      receipts: await model.personal.receipts.collection.find({}),
    });
    const first = await project(facts);
    const second = await project(facts);
    expect(await dump(second.model)).toEqual(await dump(first.model));
    expect((await dump(first.model)).rows.length).toBeGreaterThan(0);
    await first.store.close();
    await second.store.close();
  }, 60_000);

  it('keeps no row for a message a user received with no flag or read in order, where the rows kept one per recipient', async () => {
    const r = random(8);
    const facts: Fact[] = [];
    for (let i = 0; i < 50; i++) {
      const fact = sentFact(r, 1, { type: 'channel', channel_id: 10, channel_name: 'c10', topic: 'a' }, USERS);
      facts.push({ ...fact, mentioned_user_ids: [], wildcard_mentioned_user_ids: [], alert_word_user_ids: [], muted_sender_user_ids: [], read_by_sender: false });
      // User 2 reads each message as it arrives.
      facts.push({ type: 'MessageFlagsUpdated', user_id: 2, op: 'add', flag: 'read', message_ids: [facts.length] });
    }
    const { store, model, reference } = await project(facts);
    expect(await reference.rows.count({})).toBe(50 * USERS.length);
    expect(await model.personal.rows.count({})).toBe(0);
    expect(await model.personal.receipts.collection.count({})).toBe(USERS.length);
    expect(await model.personal.mark(2, 10)).toBe(99);
    expect(await differencesOf(model, reference, await allIds(model))).toEqual([]);
    await store.close();
  });
});
