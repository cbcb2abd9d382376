/**
 * Reading the candidates of a plan: what the store's filter cannot check is tested here
 * on candidates read in id order, a batch at a time, until enough match or the range is
 * exhausted, so memory stays bounded by the batch whatever the size of the channel.
 */
import type { Actor } from '@teamchat/contracts';
import type { DocTester, Filter, RequestBudget } from '@teamchat/platform';
import type { MessageDoc } from '../projections/message-docs';
import { inIdRange, type IdRange } from '../projections/recent-ids';
import { canReadChannelHistory, type AccessDeps } from './access';
import type { Condition } from './narrow';
import { matches, needs, type Candidate, type MatchContext, type PersonalFlags } from './narrow-match';
import type { Plan } from './narrow-plan';
import { scanPersonal, type PersonalEntry } from './personal-scan';
import { scanWithText, type TextScanSource } from './search-scan';
import { MESSAGE_TESTS_MODULE, testsMessageOnly, type MessageKeys } from './message-tests';

type FilterPlan = Extract<Plan, { filter: Filter }>;

/** Candidates read per round when conditions are tested here. */
const SCAN_BATCH = 500;
/** Fewer candidates than this without their documents are tested on this thread even where a tester thread is. */
const OFF_THREAD_FROM = 200;
/** The first round of a small request reads less: the first candidates often match. */
const FIRST_SCAN_BATCH_MIN = 20;

/**
 * Reads candidates for one request. What conditions look up besides the message — the
 * readability of channels, the requester's topic policies — is loaded once per request
 * and only when a condition asks for it.
 */
export class Reader implements MatchContext {
  private readonly channelAccess = new Map<number, { readable: boolean; public: boolean; webPublic: boolean }>();
  private policies: Map<string, number> | undefined;

  constructor(
    private readonly deps: AccessDeps,
    private readonly actor: Actor,
    /** Checked between batches: a scan stops when the request's time is spent, and takes turns with other requests. */
    private readonly budget?: RequestBudget,
    /** `offThread: false`: every test on this thread, as where the store has no tester thread (for comparisons). */
    private readonly options: { offThread?: boolean } = {},
  ) {}

  topicPolicy(channelId: number, topicLc: string): number {
    return this.policies?.get(`${channelId}:${topicLc}`) ?? 0;
  }

  coveredByChannels(channelId: number, webPublic: boolean): boolean {
    const access = this.channelAccess.get(channelId);
    return !!access && access.readable && access.public && (!webPublic || access.webPublic);
  }

  private readable(channelId: number | null): boolean {
    return channelId !== null && !!this.channelAccess.get(channelId)?.readable;
  }

  /** Loads what `conditions` will look up for these candidates. */
  private async prepare(conditions: Condition[], candidates: Candidate[], visibility: boolean): Promise<void> {
    if (visibility || conditions.some((c) => c.kind === 'channels')) {
      for (const id of channelIdsOf(candidates)) {
        if (this.channelAccess.has(id)) continue;
        const channel = await this.deps.directory.channelById(id);
        this.channelAccess.set(id, {
          readable: await canReadChannelHistory(this.deps, this.actor, id),
          public: !!channel && !channel.invite_only,
          webPublic: !!channel?.is_web_public,
        });
      }
    }
    const usesTopics = conditions.some((c) => c.kind === 'in-home' || (c.kind === 'is' && (c.operand === 'followed' || c.operand === 'muted')));
    if (usesTopics && !this.policies) {
      const rows = await this.deps.model.userTopics.find({ user_id: this.actor.user_id });
      this.policies = new Map(rows.map((r) => [`${r.channel_id}:${r.topic_lc}`, r.visibility_policy]));
    }
  }

  /** Up to `limit` messages of the plan within `range`, nearest the range's start first. */
  async scan(plan: Plan, range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]> {
    if (limit <= 0 || plan.source === 'none') return [];
    if (plan.source === 'ids') return this.scanIds(plan.ids, plan.conditions, range, direction, limit);
    if (plan.text) return scanWithText(this.textSource(plan), range, direction, limit, this.budget);
    // Asked again for each batch: a tester thread lost during the scan leaves the rest of
    // it to this thread, paced as without one.
    let tester = this.testerFor(plan);
    const field = plan.source === 'messages' ? '_id' : 'message_id';
    const found: Candidate[] = [];
    let bound: IdRange = range;
    let batch = plan.residual.length === 0 ? limit : Math.min(SCAN_BATCH, Math.max(limit, FIRST_SCAN_BATCH_MIN));
    if (this.budget && plan.residual.length > 0) await this.budget.enter();
    for (;;) {
      // Copied member by member onto a fresh literal: as a spread with a computed key (or
      // through Object.assign) each filter got a hidden class of its own.
      const filter: Filter = {};
      for (const key of Object.keys(plan.filter)) filter[key] = plan.filter[key];
      filter[field] = bound;
      const candidates = await this.load(plan, filter, direction, batch, !tester, tester !== undefined && plan.source === 'messages');
      if (plan.residual.length === 0) return candidates;
      for (const candidate of await this.accept(plan.residual, candidates, false, tester)) {
        found.push(candidate);
        if (found.length === limit) return found;
      }
      if (candidates.length < batch) return found;
      const last = candidates.at(-1)!.id;
      bound = direction === 1 ? { ...without(bound, '$gte'), $gt: last } : { ...without(bound, '$lte'), $lt: last };
      // Batches are paced to half a slice of this thread; tested elsewhere, a batch of
      // this size costs this thread a fraction of one.
      tester = this.testerFor(plan);
      if (this.budget) {
        batch = tester ? SCAN_BATCH : this.budget.paced(SCAN_BATCH, candidates.length, FIRST_SCAN_BATCH_MIN);
        await this.budget.turn();
      } else batch = SCAN_BATCH;
    }
  }

  /** The streams a plan with search terms is read from (see search-scan.ts). */
  private textSource(plan: FilterPlan): TextScanSource {
    const { model } = this.deps;
    const field = plan.source === 'messages' ? '_id' : 'message_id';
    const withIds = (ids: IdRange | { $in: number[] }) => {
      const filter: Filter = {};
      for (const key of Object.keys(plan.filter)) filter[key] = plan.filter[key];
      filter[field] = ids;
      return filter;
    };
    const search: Filter = { search_text: { $text: plan.text! } };
    // Asked at each use, as in scan(): a tester thread lost meanwhile leaves the rest here.
    const tester = () => this.testerFor(plan);
    // Channel history lists its candidates by id alone when the tester thread tests them.
    const listed = () => tester() !== undefined && plan.source === 'messages';
    return {
      get offThread() {
        return tester() !== undefined;
      },
      textIds: async (range, direction, limit) =>
        (await model.messages.findIds(Object.keys(range).length ? { ...search, _id: range } : search, { sort: ['_id', direction], limit })) as number[],
      candidates: (range, direction, limit) => this.load(plan, withIds(range), direction, limit, false, listed()),
      probe: (ids, direction) => (ids.length === 0 ? Promise.resolve([]) : this.load(plan, withIds({ $in: ids }), direction, 0, false, listed())),
      accept: (candidates, textKnown) => this.accept(plan.residual, candidates, textKnown, tester()),
    };
  }

  /**
   * The tester thread for a plan's candidates, where the store has one and the residual
   * reads messages, so that reading and parsing them (most of a long scan's work) happens
   * there. Personal history lists its candidates without their documents. Channel history
   * lists them by id alone, whose keys the thread's test returns; the conditions left that
   * read the keys (a topic, the requester's topic policies) are tested here on those that
   * passed. Not when one reads the requester's flags: those are read with the documents.
   */
  private testerFor(plan: FilterPlan): DocTester | undefined {
    if (this.options.offThread === false || !plan.residual.some(testsMessageOnly)) return undefined;
    if (plan.source === 'messages' && plan.residual.some((c) => needs(c) === 'row')) return undefined;
    return this.deps.model.offThreadTester(MESSAGE_TESTS_MODULE);
  }

  /**
   * The candidates that meet `residual` (but a positive search, when `textKnown`: the text
   * index matched them), in their order. With a `tester`, what reads only the message is
   * tested on its thread, after the rest here.
   */
  private async accept(residual: Condition[], candidates: Candidate[], textKnown: boolean, tester?: DocTester): Promise<Candidate[]> {
    const tested = residual.filter((c) => !(textKnown && c.kind === 'search' && !c.negated));
    const elsewhere = tester ? tested.filter(testsMessageOnly) : [];
    const here = elsewhere.length > 0 ? tested.filter((c) => !testsMessageOnly(c)) : tested;
    const listed = candidates.some((c) => c.listed);
    if (elsewhere.length > 0 && here.length > 0 && listed) {
      // Listed by id alone, their keys unknown until the thread's test returns them: the
      // message's conditions there first, then the keys' here, on what passed.
      const passed = await this.testElsewhere(tester!, elsewhere, candidates);
      await this.prepare(here, passed, false);
      return passed.filter((candidate) => here.every((c) => matches(c, candidate, this)));
    }
    // Listed candidates have no keys yet: read with their documents when something here reads them.
    const readsHere = here.length > 0 && (listed || here.some((c) => needs(c) === 'message'));
    const complete = readsHere ? await this.withMessages(candidates) : candidates;
    await this.prepare(here, complete, false);
    const kept: Candidate[] = [];
    for (const candidate of complete) if (here.every((c) => matches(c, candidate, this))) kept.push(candidate);
    if (elsewhere.length > 0 && kept.length > 0) return this.testElsewhere(tester!, elsewhere, kept);
    // Listed candidates the text index alone answered: their documents (a page's worth).
    return kept.some((c) => c.listed) ? this.withMessages(kept) : kept;
  }

  /** Those of `candidates` that meet `conditions` (each reading only the message), tested on the tester's thread. */
  private async testElsewhere(tester: DocTester, conditions: Condition[], candidates: Candidate[]): Promise<Candidate[]> {
    const unloaded: number[] = [];
    for (const candidate of candidates) if (!candidate.message) unloaded.push(candidate.id);
    // A page's first candidates are tested here: a round trip to the thread, and reading
    // from the file what this thread's cache holds, cost more than testing a few.
    if (unloaded.length < OFF_THREAD_FROM) return this.testHere(conditions, candidates);
    const passed = new Map<number, MessageKeys>();
    try {
      // A message that is gone is a deletion still being projected: it does not pass.
      const result = await tester.test('messages', unloaded, conditions);
      for (let i = 0; i < result.passed.length; i++) passed.set(result.passed[i] as number, result.values[i] as MessageKeys);
    } catch {
      // The thread is gone (it said why on stderr): the test runs here, as without one.
      return this.testHere(conditions, candidates);
    }
    const accepted: Candidate[] = [];
    for (const candidate of candidates) {
      if (candidate.message) {
        if (conditions.every((c) => matches(c, candidate, this))) accepted.push(candidate);
        continue;
      }
      const keys = passed.get(candidate.id);
      if (!keys) continue;
      if (!candidate.listed) accepted.push(candidate);
      else {
        const [channel_id, topic_lc, dm_key, sender_id] = keys;
        accepted.push({ id: candidate.id, channel_id, topic_lc, dm_key, sender_id });
      }
    }
    return accepted;
  }

  private async testHere(conditions: Condition[], candidates: Candidate[]): Promise<Candidate[]> {
    const complete = await this.withMessages(candidates);
    return complete.filter((candidate) => conditions.every((c) => matches(c, candidate, this)));
  }

  /** The candidates with their messages (one whose message is gone is a deletion still being projected: left out). */
  private async withMessages(candidates: Candidate[]): Promise<Candidate[]> {
    const missing = candidates.filter((c) => !c.message).map((c) => c.id);
    if (missing.length === 0) return candidates;
    const messages = byId(await this.deps.model.messages.getMany(missing));
    const complete: Candidate[] = [];
    for (const candidate of candidates) {
      if (candidate.message) complete.push(candidate);
      else {
        const message = messages.get(candidate.id);
        if (message) complete.push(fromMessage(message, candidate.row));
      }
    }
    return complete;
  }

  /** `withMessages`: read each row's message too when a residual condition needs it (false: left to the caller). */
  private async load(plan: FilterPlan, filter: Filter, direction: 1 | -1, limit: number, withMessages = true, listed = false): Promise<Candidate[]> {
    const { model } = this.deps;
    const wants = new Set(plan.residual.map(needs));
    if (plan.source === 'messages') {
      // Ids from memory for a conversation's recent messages, else from the index; then
      // documents by id, recent ones from the cache.
      const range = filter._id as IdRange | { $in: number[] };
      const ids =
        ('$in' in range ? undefined : await model.conversationIds(plan.filter, range, direction, limit)) ??
        ((await model.messages.findIds(filter, { sort: ['_id', direction], limit })) as number[]);
      if (listed) return ids.map(listedCandidate);
      const messages = await model.messages.getMany(ids);
      const rows = wants.has('row') ? await this.rows(messages) : undefined;
      const candidates: Candidate[] = [];
      for (const message of messages) candidates.push(fromMessage(message, rows && (rows.get(message._id) ?? null)));
      return candidates;
    }
    // Personal history (personal-scan.ts): the filter without its range, which the scan takes apart.
    const personal: Filter = {};
    for (const key of Object.keys(filter)) if (key !== 'message_id') personal[key] = filter[key]!;
    const range = (filter.message_id ?? {}) as IdRange | { $in: number[] };
    const entries = await scanPersonal(model, this.actor.user_id, personal, range, direction, limit === 0 ? Number.POSITIVE_INFINITY : limit, withMessages);
    const candidates: Candidate[] = [];
    if (!wants.has('message') || !withMessages) {
      for (const entry of entries) candidates.push(entry.message ? fromMessage(entry.message, entry) : fromEntry(entry));
      return candidates;
    }
    const messages = byId(await model.messages.getMany(entries.flatMap((e) => (e.message ? [] : [e.message_id]))));
    for (const entry of entries) {
      const message = entry.message ?? messages.get(entry.message_id);
      // A row whose message is gone is a deletion still being projected: not a message.
      if (message) candidates.push(fromMessage(message, entry));
    }
    return candidates;
  }

  /** The requester's flags on the messages they hold (personal-state.ts). */
  private async rows(messages: readonly MessageDoc[]): Promise<Map<number, PersonalFlags>> {
    const flags = await this.deps.model.personal.flagsMany(this.actor.user_id, messages);
    const rows = new Map<number, PersonalFlags>();
    for (let i = 0; i < messages.length; i++) if (flags[i]) rows.set(messages[i]!._id, { flags: flags[i]! });
    return rows;
  }

  /** Exact ids: those that exist, that the requester may see and that meet every condition. */
  private async scanIds(ids: number[], conditions: Condition[], range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]> {
    const wanted = [...new Set(ids)].filter((id) => inIdRange(id, range)).sort((a, b) => (a - b) * direction);
    if (wanted.length === 0) return [];
    const messages = await this.deps.model.messages.getMany(wanted);
    const rows = await this.rows(messages);
    const candidates = messages.map((message) => fromMessage(message, rows.get(message._id) ?? null));
    await this.prepare(conditions, candidates, true);
    return candidates
      .filter((c) => (c.row !== null || this.readable(c.channel_id)) && conditions.every((condition) => matches(condition, c, this)))
      .slice(0, limit);
  }
}

function without(range: IdRange, key: keyof IdRange): IdRange {
  const { [key]: _dropped, ...rest } = range;
  return rest;
}

/** `row` as Candidate.row: absent when not read. */
function fromMessage(m: MessageDoc, row?: PersonalFlags | null): Candidate {
  const candidate: Candidate = { id: m._id, channel_id: m.channel_id, topic_lc: m.topic_lc, dm_key: m.dm_key, sender_id: m.sender_id, message: m };
  if (row !== undefined) candidate.row = row;
  return candidate;
}

// Per-message loops below are plain loops, not flatMap: V8's flatMap costs about ten
// times as much, and these run for every message of every read.

function byId(messages: MessageDoc[]): Map<number, MessageDoc> {
  const map = new Map<number, MessageDoc>();
  for (const m of messages) map.set(m._id, m);
  return map;
}

export function channelIdsOf(items: { channel_id: number | null }[]): Set<number> {
  const ids = new Set<number>();
  for (const item of items) if (item.channel_id !== null) ids.add(item.channel_id);
  return ids;
}

/** A candidate known by its id alone (see Candidate.listed). */
const listedCandidate = (id: number): Candidate => ({ id, channel_id: null, topic_lc: null, dm_key: null, sender_id: 0, listed: true });

const fromEntry = (r: PersonalEntry): Candidate => ({
  id: r.message_id,
  channel_id: r.channel_id,
  topic_lc: r.topic_lc,
  dm_key: r.dm_key,
  sender_id: r.sender_id,
  row: r,
});
