/**
 * The search narrow answered from the messages' text index (queries/search-scan.ts): the
 * same answers as testing every candidate's text, for every kind of narrow and anchor;
 * the index following edits, moves and deletions; and emptied and refilled by a replay.
 * The read models are a file, as the service's are, so personal history's candidates are
 * tested on the store's tester thread: compared with the same tests on this thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ROLE, upcast, type Actor, type Fact, type FactOf, type NarrowTerm } from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import { applyFact, combineHandlers, RequestBudget, SqliteReadModelStore, type DocTester } from '@teamchat/platform';
import { MessagesReadModel } from '../src/projections/messages';
import { messagesProjection } from '../src/projections/messages-projection';
import { canReadChannelHistory } from '../src/queries/access';
import { normalizeTerm, resolveNarrow } from '../src/queries/narrow-parse';
import { planNarrow } from '../src/queries/narrow-plan';
import { Reader } from '../src/queries/reader';
import { MESSAGE_TESTS_MODULE } from '../src/queries/message-tests';
import type { IdRange } from '../src/projections/recent-ids';

const T0 = 1_700_000_000;
const USERS = [1, 2, 3, 4];
const actor = (id: number): Actor => ({ user_id: id, email: `u${id}@example.com`, full_name: `u${id}`, role: id === 4 ? ROLE.guest : ROLE.member, is_bot: false, client: 'test' });
/** Channel id → subscribers (and whether its history is shared, whether it is private). */
const CHANNELS: Record<number, { subscribers: number[]; history: boolean; invite_only: boolean }> = {
  10: { subscribers: [1, 2, 3, 4], history: true, invite_only: false },
  11: { subscribers: [1, 2], history: true, invite_only: false },
  12: { subscribers: [1, 3], history: false, invite_only: true },
};
const WORDS = ['deploy', 'deployment', 'release', 'notes', 'pizza', 'the', 'a', 'rare', 'café', '会', '議', 'release-notes'];

class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'teamchat-search-index-'));
  readonly store = SqliteReadModelStore.open(join(this.dir, 'messaging.sqlite'));
  readonly directory = new Directory(this.store);
  readonly model = new MessagesReadModel(this.store);
  readonly facts: Fact[] = [];
  private readonly handlers = combineHandlers(this.directory.handlers, messagesProjection(this.model));

  async apply(data: Fact): Promise<number> {
    this.facts.push(data);
    return this.project(data, this.facts.length);
  }

  private async project(data: Fact, position: number): Promise<number> {
    const fact = { id: `f${position}`, stream: `s-${position}`, revision: 0, position, type: data.type, data, metadata: {}, created: 0 };
    await this.store.batch(() => applyFact(this.handlers, fact));
    return position;
  }

  /** Empties the read models and applies every fact again, as a rebuild does. */
  async replay(): Promise<void> {
    for (const collection of this.model.collections) await collection.clear();
    for (const [i, fact] of this.facts.entries()) await this.project(fact, i + 1);
  }

  async setUp(): Promise<void> {
    for (const id of USERS) {
      await this.apply({ type: 'UserCreated', user_id: id, email: `u${id}@example.com`, full_name: `u${id}`, role: actor(id).role, is_bot: false, bot_type: null, bot_owner_id: null, timezone: '', date_joined: T0, api_key_salt: '', api_key_hash: '' });
    }
    for (const [id, c] of Object.entries(CHANNELS)) {
      await this.apply(upcast({ type: 'ChannelCreated', channel_id: Number(id), name: `c${id}`, description: '', rendered_description: '', invite_only: c.invite_only, is_web_public: false, history_public_to_subscribers: c.history, is_default: false, topics_policy: 'inherit', message_retention_days: null, creator_id: 1, date_created: T0 }));
      await this.apply({ type: 'SubscriptionsAdded', channel_id: Number(id), user_ids: c.subscribers });
    }
  }

  send(sender: number, to: { channel: number; topic: string } | { dm: number[] }, content: string): Promise<number> {
    const base = { type: 'MessageSent' as const, sender_id: sender, sender_email: `u${sender}@example.com`, sender_full_name: `u${sender}`, content, rendered_content: `<p>${content}</p>`, is_me_message: false, client: 'test', timestamp: T0 + this.facts.length, mentioned_user_ids: [], wildcard_mentioned_user_ids: [], read_by_sender: true, local_echo: null };
    if ('channel' in to) {
      return this.apply({ ...base, recipient: { type: 'channel', channel_id: to.channel, channel_name: `c${to.channel}`, topic: to.topic }, recipient_id: 100 + to.channel, recipient_user_ids: CHANNELS[to.channel]!.subscribers });
    }
    const ids = [...new Set([sender, ...to.dm])].sort();
    return this.apply({ ...base, recipient: { type: 'direct', users: ids.map((id) => ({ id, email: `u${id}@example.com`, full_name: `u${id}`, is_mirror_dummy: false })) }, recipient_id: 1000 + ids.reduce((a, b) => a * 10 + b, 0), recipient_user_ids: ids });
  }

  /**
   * What a narrow selects within `range` (nearest first), read as the service does and,
   * for comparison, with the text index left out (every candidate's text tested).
   */
  async both(who: number, terms: NarrowTerm[], range: IdRange, direction: 1 | -1, limit: number) {
    const deps = { directory: this.directory, model: this.model };
    const narrow = await resolveNarrow(this.directory, actor(who), terms.map(normalizeTerm));
    const readable = narrow.channel ? await canReadChannelHistory(deps, actor(who), narrow.channel._id) : false;
    const plan = planNarrow(narrow, readable);
    const withIndex = await new Reader(deps, actor(who)).scan(plan, range, direction, limit);
    const withoutIndex = plan.source === 'messages' || plan.source === 'personal' ? { ...plan, text: undefined } : plan;
    const scanned = await new Reader(deps, actor(who)).scan(withoutIndex, range, direction, limit);
    const here = await new Reader(deps, actor(who), undefined, { offThread: false }).scan(withoutIndex, range, direction, limit);
    return { plan, withIndex: withIndex.map((c) => c.id), scanned: scanned.map((c) => c.id), here: here.map((c) => c.id) };
  }

  async ids(who: number, terms: NarrowTerm[]): Promise<number[]> {
    const { withIndex, scanned, here } = await this.both(who, terms, { $gte: 0 }, 1, 5000);
    expect(withIndex).toEqual(scanned);
    expect(scanned).toEqual(here);
    return withIndex;
  }

  /** What the text index itself holds for a word. */
  indexed(word: string): Promise<number[]> {
    return this.model.messages.findIds({ search_text: { $text: { phrases: [[word]] } } }, { sort: ['_id', 1] }) as Promise<number[]>;
  }
}

/** The store's tester thread, each test it is asked for counted (how many documents); `delete tester.test` undoes it. */
function countedTester(world: World): { tester: DocTester; asked: number[] } {
  const tester = world.model.offThreadTester(MESSAGE_TESTS_MODULE)!;
  const asked: number[] = [];
  const test = tester.test.bind(tester);
  tester.test = (collection, ids, args) => {
    asked.push(ids.length);
    return test(collection, ids, args);
  };
  return { tester, asked };
}

/** Stops the store's tester thread, as a crash would leave it (the store then lends none); nothing if it is gone. */
async function stopTester(world: World): Promise<void> {
  const tester = world.model.offThreadTester(MESSAGE_TESTS_MODULE);
  if (tester) await (tester as unknown as { stop(): Promise<void> }).stop();
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
}

describe('search from the text index', () => {
  const world = new World();
  afterAll(async () => {
    await world.store.close();
    rmSync(world.dir, { recursive: true, force: true });
  });
  const pick = random(7);
  const choose = <T>(items: readonly T[]): T => items[Math.floor(pick() * items.length)]!;

  beforeAll(async () => {
    await world.setUp();
    for (let i = 0; i < 1500; i++) {
      const words = Array.from({ length: 1 + Math.floor(pick() * 4) }, () => (pick() < 0.02 ? 'rare' : choose(WORDS.filter((w) => w !== 'rare'))));
      const to = pick() < 0.15 ? { dm: [choose(USERS)] } : { channel: choose([10, 10, 11, 12]), topic: choose(['alpha', 'beta', 'gamma']) };
      await world.send(choose(USERS), to, words.join(' '));
    }
  }, 120_000);

  it('answers every narrow as testing each candidate does, from either end and around anchors', async () => {
    const searches = ['rare', 'deploy', 'the', 'a', 'release notes', '"release notes"', 'notes release', 'caf', '会議', 'pizza rare', 'zzz', 'd'];
    const others: NarrowTerm[][] = [
      [],
      [['channel', 'c10']],
      [['channel', 'c11'], ['topic', 'beta']],
      [['channel', 'c12']],
      [['channels', 'public']],
      [['is', 'dm']],
      [['sender', 'u2']],
      [{ operator: 'topic', operand: 'alpha', negated: true }],
      [{ operator: 'search', operand: 'pizza', negated: true }],
      [['is', 'unread']],
    ];
    let compared = 0;
    let nonEmpty = 0;
    for (const who of USERS) {
      for (const search of searches) {
        for (const other of others) {
          const terms: NarrowTerm[] = [['search', search], ...other];
          for (const [range, direction, limit] of [[{ $gte: 0 }, -1, 7], [{ $lte: 1e9 }, 1, 3], [{ $lt: 900 }, -1, 40], [{ $gt: 300 }, 1, 1000]] as const) {
            let result;
            try {
              result = await world.both(who, terms, range, direction, limit);
            } catch (err) {
              // A narrow the requester may not use (a private channel's name) is refused either way.
              expect(err).toMatchObject({ status: 400 });
              continue;
            }
            expect({ who, terms, range, ids: result.withIndex }).toEqual({ who, terms, range, ids: result.scanned });
            expect({ who, terms, range, ids: result.scanned }).toEqual({ who, terms, range, ids: result.here });
            if (result.plan.source !== 'none' && result.plan.source !== 'ids') expect(result.plan.text).toBeDefined();
            compared++;
            if (result.withIndex.length > 0) nonEmpty++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(nonEmpty).toBeGreaterThan(compared / 3);
  }, 120_000);

  it("tests channel history's candidates on the tester thread too, listed by id alone", async () => {
    const { tester, asked } = countedTester(world);
    try {
      // Channel history (user 1 may read c10's), every candidate tested for the negated word.
      const ids = await world.ids(1, [['channel', 'c10'], { operator: 'search', operand: 'the', negated: true }]);
      expect(ids.length).toBeGreaterThan(100);
      // And with a positive word the candidates drive (a common one).
      expect((await world.ids(1, [['channel', 'c10'], ['search', 'release'], { operator: 'search', operand: 'the', negated: true }])).length).toBeGreaterThan(10);
    } finally {
      delete (tester as Partial<DocTester>).test;
    }
    expect(asked.filter((n) => n >= 200).length).toBeGreaterThan(1);
  });

  it("tests channel history's words on the tester thread when a topic condition is left too, that one here on what passed", async () => {
    const { tester, asked } = countedTester(world);
    // Whether the topic is resolved reads its key; whether it is muted, the requester's policies.
    const notAlpha = { operator: 'is', operand: 'resolved', negated: true };
    const notMuted = { operator: 'is', operand: 'muted', negated: true };
    const mute = (visibility_policy: number) => world.apply({ type: 'UserTopicUpdated', user_id: 1, channel_id: 10, topic: 'beta', visibility_policy, last_updated: T0 });
    await mute(1);
    try {
      const terms: NarrowTerm[] = [['channel', 'c10'], { operator: 'search', operand: 'the', negated: true }, notAlpha, notMuted];
      const plan = planNarrow(await resolveNarrow(world.directory, actor(1), terms.map(normalizeTerm)), true);
      // Both are left to the scan: no index it reads holds them.
      expect('residual' in plan ? plan.residual.map((c) => c.kind) : plan).toEqual(['search', 'is', 'is']);
      const ids = await world.ids(1, terms);
      expect(ids.length).toBeGreaterThan(50);
      // Its candidates went to the thread, by the hundred.
      expect(asked.filter((n) => n >= 200).length).toBeGreaterThan(1);
      asked.length = 0;
      // The muted topic's messages are left out, and only those.
      const beta = new Set(await world.ids(1, [['channel', 'c10'], ['topic', 'beta'], { operator: 'search', operand: 'the', negated: true }]));
      const every = await world.ids(1, [['channel', 'c10'], { operator: 'search', operand: 'the', negated: true }]);
      expect(beta.size).toBeGreaterThan(10);
      expect(ids).toEqual(every.filter((id) => !beta.has(id)));
      // With a positive word too, whose candidates the text index lists.
      expect((await world.ids(1, [['channel', 'c10'], ['search', 'release'], notAlpha])).length).toBeGreaterThan(10);
      expect((await world.ids(1, [['channel', 'c10'], ['search', 'release'], { operator: 'search', operand: 'the', negated: true }, notMuted])).length).toBeGreaterThan(5);
    } finally {
      delete (tester as Partial<DocTester>).test;
      await mute(0);
    }
  });

  it('finds the new text of an edited message and not the old', async () => {
    const id = await world.send(2, { channel: 10, topic: 'edits' }, 'quarterly forecast draft');
    expect(await world.ids(1, [['search', 'forecast']])).toEqual([id]);
    await world.apply({
      type: 'MessageEdited',
      message_id: id,
      editor_id: 2,
      timestamp: T0 + 10_000,
      content: { prev_content: 'quarterly forecast draft', prev_rendered_content: '<p>quarterly forecast draft</p>', content: 'annual budget final', rendered_content: '<p>annual budget final</p>', is_me_message: false, mentioned_user_ids: [], wildcard_mentioned_user_ids: [] },
      move: null,
      audience_user_ids: [],
    } as FactOf<'MessageEdited'>);
    expect(await world.ids(1, [['search', 'forecast']])).toEqual([]);
    expect(await world.indexed('forecast')).toEqual([]);
    expect(await world.ids(1, [['search', 'budget']])).toEqual([id]);
    expect(await world.ids(1, [['search', '"annual budget"'], ['channel', 'c10']])).toEqual([id]);
  });

  it('finds a moved message under its new topic and channel, by its new topic words and not the old', async () => {
    const id = await world.send(1, { channel: 10, topic: 'Old Place' }, 'migrating ledger');
    const move = (prev: [number, string], next: [number, string], revoked: number[]) =>
      world.apply({
        type: 'MessageEdited',
        message_id: id,
        editor_id: 1,
        timestamp: T0 + 20_000,
        content: null,
        move: { prev_channel_id: prev[0], prev_topic: prev[1], channel_id: next[0], channel_name: `c${next[0]}`, topic: next[1], propagate_mode: 'change_one', message_ids: [id], recipient_id: 100 + next[0], revoked_user_ids: revoked },
        audience_user_ids: [],
      } as FactOf<'MessageEdited'>);
    await move([10, 'Old Place'], [10, 'New Home'], []);
    expect(await world.ids(3, [['search', 'ledger'], ['channel', 'c10'], ['topic', 'new home']])).toEqual([id]);
    expect(await world.ids(3, [['search', 'ledger'], ['channel', 'c10'], ['topic', 'old place']])).toEqual([]);
    expect(await world.ids(3, [['search', 'home ledger']])).toEqual([id]);
    expect(await world.ids(3, [['search', 'old place']])).toEqual([]);
    // To a channel user 3 is not in: gone from their search, found by its subscribers.
    await move([10, 'New Home'], [11, 'New Home'], [3, 4]);
    expect(await world.ids(3, [['search', 'ledger']])).toEqual([]);
    expect(await world.ids(2, [['search', 'ledger'], ['channel', 'c11'], ['topic', 'new home']])).toEqual([id]);
  });

  it('no longer finds a deleted message', async () => {
    const id = await world.send(3, { channel: 12, topic: 'secret' }, 'shredded memo');
    expect(await world.ids(1, [['search', 'shredded']])).toEqual([id]);
    await world.apply({ type: 'MessageDeleted', message_id: id, deleted_by: 3, channel_id: 12, topic: 'secret', audience_user_ids: [1, 3] });
    expect(await world.ids(1, [['search', 'shredded']])).toEqual([]);
    expect(await world.indexed('shredded')).toEqual([]);
  });

  it('holds the same after a replay from the start', async () => {
    const before = await Promise.all(['rare', 'deploy', 'budget', 'ledger', 'shredded', 'forecast'].map((w) => world.indexed(w)));
    const answers = await Promise.all(USERS.map((who) => world.ids(who, [['search', 'rare']])));
    await world.replay();
    expect(await Promise.all(['rare', 'deploy', 'budget', 'ledger', 'shredded', 'forecast'].map((w) => world.indexed(w)))).toEqual(before);
    expect(await Promise.all(USERS.map((who) => world.ids(who, [['search', 'rare']])))).toEqual(answers);
    expect(before[0]!.length).toBeGreaterThan(5);
  });

  // Last: the store's tester thread is gone for the rest of the file.
  it('goes on without a tester thread lost during a search the text index drives: the rounds after it paced here', async () => {
    // In c11, a long run of messages holding the word and left out by the narrow, then the
    // two it finds: read oldest first, a page of 2 takes rounds of 100, 200 and 400.
    for (let i = 0; i < 400; i++) await world.send(1, { channel: 11, topic: 'pacing' }, 'filler noise');
    const wanted = [await world.send(1, { channel: 11, topic: 'pacing' }, 'filler quiet'), await world.send(1, { channel: 11, topic: 'pacing' }, 'filler quiet')];
    const terms: NarrowTerm[] = [['channel', 'c11'], ['search', 'filler'], { operator: 'search', operand: 'noise', negated: true }];
    const plan = planNarrow(await resolveNarrow(world.directory, actor(1), terms.map(normalizeTerm)), true);
    expect(plan.source === 'messages' && plan.text).toBeTruthy();
    // The thread is stopped right after its first test (the round of 200), as a crash would leave it.
    const { tester, asked: tested } = countedTester(world);
    const counted = tester.test.bind(tester);
    tester.test = async (collection, ids, args) => {
      const result = await counted(collection, ids, args);
      if (tested.length === 1) await stopTester(world);
      return result;
    };
    const deps = { directory: world.directory, model: world.model };
    const budget = new RequestBudget(60_000, 1);
    const paced = jest.spyOn(budget, 'paced');
    const found = await new Reader(deps, actor(1), budget).scan(plan, { $gte: 0 }, 1, 2);
    budget.end();
    expect(tested).toEqual([200]);
    expect(world.model.offThreadTester(MESSAGE_TESTS_MODULE)).toBeUndefined();
    // Before the loss no round was paced (tested elsewhere, a round costs this thread
    // little); from the round of 200 on, each next round's size came from this thread's pace.
    expect(paced).toHaveBeenCalled();
    expect(paced.mock.calls[0]![1]).toBe(200);
    const here = await new Reader(deps, actor(1), undefined, { offThread: false }).scan(plan, { $gte: 0 }, 1, 2);
    expect(found.map((c) => c.id)).toEqual(wanted);
    expect(here.map((c) => c.id)).toEqual(wanted);
  });

  it('goes on without a lost tester thread: tests here, its batches paced as without one', async () => {
    // Gone already when the test before ran (this one may run alone).
    await stopTester(world);
    expect(world.model.offThreadTester(MESSAGE_TESTS_MODULE)).toBeUndefined();
    const deps = { directory: world.directory, model: world.model };
    // Channel history with a word left out: every candidate is tested, in batches of which
    // the second is paced (the whole channel is read). Then one the text index drives, where
    // the channel's candidates fit in its first batch: the same answer as on this thread.
    for (const [terms, pacing] of [
      [[['channel', 'c10'], { operator: 'search', operand: 'the', negated: true }], true],
      [[['channel', 'c10'], ['search', 'release'], { operator: 'search', operand: 'the', negated: true }], false],
    ] as [NarrowTerm[], boolean][]) {
      const plan = planNarrow(await resolveNarrow(world.directory, actor(1), terms.map(normalizeTerm)), true);
      const budget = new RequestBudget(60_000, 1);
      const paced = jest.spyOn(budget, 'paced');
      const found = await new Reader(deps, actor(1), budget).scan(plan, { $gte: 0 }, 1, 5000);
      budget.end();
      const here = await new Reader(deps, actor(1), undefined, { offThread: false }).scan(plan, { $gte: 0 }, 1, 5000);
      expect(found.map((c) => c.id)).toEqual(here.map((c) => c.id));
      expect(found.length).toBeGreaterThan(10);
      if (pacing) expect(paced).toHaveBeenCalled();
    }
  });
});
