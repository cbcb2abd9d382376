/**
 * GET /messages over real read models: facts projected into SQLite (in memory), then
 * queried as the service does. Covers paging through candidates in batches, the privacy
 * rules (personal history, readable channel history, channels:public, late subscribers
 * to a channel whose history is not shared), anchors, and derived fields kept current
 * through edits and moves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROLE, upcast, type Actor, type Fact, type FactOf, type GetMessagesParams, type NarrowTerm } from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import { applyFact, combineHandlers, SqliteReadModelStore, type Filter } from '@teamchat/platform';
import { MessagesReadModel } from '../src/projections/messages';
import { messagesProjection } from '../src/projections/messages-projection';
import { getMessages, selectMessageIds } from '../src/queries/get-messages';
import { renderMessages, renderMessagesJson } from '../src/queries/render-messages';

const T0 = 1_700_000_000;

const people = {
  owner: { id: 1, role: ROLE.owner },
  mark: { id: 4, role: ROLE.member },
  mary: { id: 5, role: ROLE.member },
  gus: { id: 6, role: ROLE.guest },
} as const;
type Person = keyof typeof people;

const actor = (name: Person): Actor => ({
  user_id: people[name].id,
  email: `${name}@example.com`,
  full_name: name,
  role: people[name].role,
  is_bot: false,
  client: 'test',
});

const CHANNELS = {
  general: { id: 10, invite_only: false, history: true, web: false, subscribers: [1, 4, 5, 6] },
  eng: { id: 11, invite_only: false, history: true, web: false, subscribers: [1, 4] },
  secret: { id: 12, invite_only: true, history: false, web: false, subscribers: [1, 4] },
  vault: { id: 13, invite_only: true, history: true, web: false, subscribers: [1] },
  web: { id: 14, invite_only: false, history: true, web: true, subscribers: [1] },
} as const;
type ChannelName = keyof typeof CHANNELS;

class World {
  readonly store = SqliteReadModelStore.open(':memory:');
  readonly directory = new Directory(this.store);
  readonly model = new MessagesReadModel(this.store);
  /** What the messaging service's projector applies. */
  private readonly handlers = combineHandlers(this.directory.handlers, messagesProjection(this.model));
  private position = 0;
  private clock = T0;
  readonly subscribers = new Map<number, Set<number>>();

  async apply(data: Fact): Promise<number> {
    const position = ++this.position;
    const fact = { id: `f${position}`, stream: `s-${position}`, revision: 0, position, type: data.type, data, metadata: {}, created: 0 };
    await this.store.batch(async () => {
      await applyFact(this.handlers, fact);
    });
    return position;
  }

  async setUp(): Promise<void> {
    for (const [name, { id, role }] of Object.entries(people)) {
      await this.apply({
        type: 'UserCreated',
        user_id: id,
        email: `${name}@example.com`,
        full_name: name,
        role,
        is_bot: false,
        bot_type: null,
        bot_owner_id: null,
        timezone: '',
        date_joined: T0,
        api_key_salt: '',
        api_key_hash: '',
      });
    }
    for (const [name, c] of Object.entries(CHANNELS)) {
      await this.apply(upcast({
        type: 'ChannelCreated',
        channel_id: c.id,
        name,
        description: '',
        rendered_description: '',
        invite_only: c.invite_only,
        is_web_public: c.web,
        history_public_to_subscribers: c.history,
        is_default: false,
        topics_policy: 'inherit',
        message_retention_days: null,
        creator_id: 1,
        date_created: T0,
      }));
      await this.subscribe(name as ChannelName, [...c.subscribers]);
    }
  }

  async subscribe(channel: ChannelName, userIds: number[]): Promise<void> {
    const id = CHANNELS[channel].id;
    await this.apply({ type: 'SubscriptionsAdded', channel_id: id, user_ids: userIds });
    const set = this.subscribers.get(id) ?? new Set();
    for (const u of userIds) set.add(u);
    this.subscribers.set(id, set);
  }

  /** Sends a channel message (`to` a channel and topic) or a direct message (`to` user ids). */
  async send(
    from: Person,
    to: { channel: ChannelName; topic: string } | { dm: Person[] },
    content: string,
    options: { html?: string; mentioned?: number[]; timestamp?: number } = {},
  ): Promise<number> {
    const sender = people[from].id;
    const base = {
      type: 'MessageSent' as const,
      sender_id: sender,
      sender_email: `${from}@example.com`,
      sender_full_name: from,
      content,
      rendered_content: options.html ?? `<p>${content}</p>`,
      is_me_message: false,
      client: 'test',
      timestamp: options.timestamp ?? (this.clock += 1),
      mentioned_user_ids: options.mentioned ?? [],
      wildcard_mentioned_user_ids: [],
      read_by_sender: true,
      local_echo: null,
    };
    if ('channel' in to) {
      const c = CHANNELS[to.channel];
      return this.apply({
        ...base,
        recipient: { type: 'channel', channel_id: c.id, channel_name: to.channel, topic: to.topic },
        recipient_id: 100 + c.id,
        recipient_user_ids: [...(this.subscribers.get(c.id) ?? [])],
      });
    }
    const ids = [...new Set([sender, ...to.dm.map((p) => people[p].id)])].sort((a, b) => a - b);
    return this.apply({
      ...base,
      recipient: { type: 'direct', users: ids.map((id) => ({ id, email: `${id}@example.com`, full_name: String(id), is_mirror_dummy: false })) },
      recipient_id: 1000 + ids.reduce((a, b) => a * 10 + b, 0),
      recipient_user_ids: ids,
    });
  }

  /** The response as a client reads it: the fields, and the messages parsed from their JSON text. */
  async get(who: Person, params: Partial<GetMessagesParams>) {
    const { result, messagesJson } = await getMessages({ directory: this.directory, model: this.model }, actor(who), params as GetMessagesParams);
    return { ...result, ...(JSON.parse(messagesJson.toString()) as { messages: Record<string, any>[] }) };
  }

  /** The ids a request returns, with its found_* fields. */
  async ids(who: Person, narrow: NarrowTerm[], params: Partial<GetMessagesParams> = { anchor: 'newest', num_before: 5000, num_after: 0 }) {
    const { ids, result } = await selectMessageIds({ directory: this.directory, model: this.model }, actor(who), { narrow, ...params });
    return { ids, ...result };
  }

  async refused(who: Person, params: Partial<GetMessagesParams>): Promise<string> {
    try {
      await this.get(who, params);
    } catch (err) {
      expect(err).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      return (err as { msg: string }).msg;
    }
    throw new Error(`accepted ${JSON.stringify(params)}`);
  }
}

describe('GET /messages over the read models', () => {
  const world = new World();
  const m: Record<string, number> = {};
  const channel = (name: string, topic?: string): NarrowTerm[] => [['channel', name], ...(topic === undefined ? [] : [['topic', topic] as NarrowTerm])];

  beforeAll(async () => {
    await world.setUp();
    m.general1 = await world.send('mark', { channel: 'general', topic: 'lunch' }, 'Pizza today?');
    m.generalMention = await world.send('owner', { channel: 'general', topic: 'lunch' }, 'ask mark', { mentioned: [4] });
    m.secretBefore = await world.send('owner', { channel: 'secret', topic: 'plans' }, 'classified alpha');
    m.vault = await world.send('owner', { channel: 'vault', topic: 'keys' }, 'classified vault');
    m.web = await world.send('owner', { channel: 'web', topic: 'open' }, 'hello world wide');
    m.dm = await world.send('mark', { dm: ['owner'] }, 'private words between us');
    m.group = await world.send('owner', { dm: ['mark', 'mary'] }, 'group words');
    m.engNeedleA = await world.send('mark', { channel: 'eng', topic: 'build' }, 'needle in the first');
    m.engNeedleB = await world.send('mark', { channel: 'eng', topic: 'build' }, 'second needle');
    m.engNeedleC = await world.send('owner', { channel: 'eng', topic: 'build' }, 'third NEEDLE');
    for (let i = 0; i < 1300; i++) {
      const id = await world.send('owner', { channel: 'eng', topic: `hay-${i % 3}` }, `hay ${i}`);
      if (i === 650) m.hayMiddle = id;
    }
    m.engNeedleD = await world.send('mark', { channel: 'eng', topic: 'build' }, 'needle again');
    m.engNeedleE = await world.send('owner', { channel: 'eng', topic: 'build' }, 'last needle');
    // mary joins the channel whose history is not shared: she sees only what follows.
    await world.subscribe('secret', [5]);
    m.secretAfter = await world.send('owner', { channel: 'secret', topic: 'plans' }, 'classified beta');
  }, 60_000);

  afterAll(async () => {
    await world.store.close();
  });

  const needles = () => [m.engNeedleA, m.engNeedleB, m.engNeedleC, m.engNeedleD, m.engNeedleE];

  describe('paging through candidates', () => {
    it('finds search matches across many batches of non-matching messages, both ways', async () => {
      // mary is not subscribed to eng: its public history is read in full.
      const newest = await world.ids('mary', [...channel('eng'), ['search', 'needle']]);
      expect(newest).toMatchObject({ ids: needles(), found_oldest: true, found_newest: true, found_anchor: false });
      const oldest = await world.ids('mary', [...channel('eng'), ['search', 'needle']], { anchor: 'oldest', num_before: 0, num_after: 3 });
      expect(oldest).toMatchObject({ ids: needles().slice(0, 3), found_oldest: true, found_newest: false });
      const around = await world.ids('mary', [...channel('eng'), ['search', 'needle']], { anchor: m.hayMiddle, num_before: 1, num_after: 1 });
      expect(around).toMatchObject({ ids: [m.engNeedleC, m.engNeedleD], found_anchor: false, found_oldest: false, found_newest: false });
      const last = await world.ids('mary', [...channel('eng'), ['search', 'needle']], { anchor: m.engNeedleE, num_before: 0, num_after: 5 });
      expect(last).toMatchObject({ ids: [m.engNeedleE], found_anchor: true, found_newest: true });
    });

    it('negates search and sender, and pages a topic narrow by its index', async () => {
      const build = await world.ids('mary', [...channel('eng', 'build'), { operator: 'search', operand: 'needle', negated: true }]);
      expect(build.ids).toEqual([]);
      const notOwner = await world.ids('mary', [...channel('eng'), { operator: 'sender', operand: 1, negated: true }]);
      expect(notOwner.ids).toEqual([m.engNeedleA, m.engNeedleB, m.engNeedleD]);
      const page = await world.ids('mary', channel('eng', 'hay-0'), { anchor: 'newest', num_before: 3, num_after: 0 });
      expect(page.ids).toHaveLength(3);
      expect(page).toMatchObject({ found_oldest: false, found_newest: true });
    });

    it('marks channel history the requester never received as read and historical', async () => {
      const { messages } = await world.get('mary', { anchor: m.engNeedleA, num_before: 0, num_after: 0, narrow: channel('eng') });
      expect(messages.map((x) => [x.id, x.flags])).toEqual([[m.engNeedleA, ['read', 'historical']]]);
      expect((await world.ids('mary', [...channel('eng'), ['is', 'unread']])).ids).toEqual([]);
      const unreadForMark = await world.ids('mark', [...channel('eng'), ['search', 'needle'], ['is', 'unread']]);
      // mark sent A, B and D (read by sender); C and E came from the owner.
      expect(unreadForMark.ids).toEqual([m.engNeedleC, m.engNeedleE]);
    });
  });

  describe('privacy', () => {
    it('never shows a private channel to a non-subscriber, whatever the route', async () => {
      expect(await world.refused('mary', { anchor: 'newest', num_before: 5, num_after: 0, narrow: channel('vault') })).toContain('unknown channel');
      expect((await world.ids('mary', [['search', 'classified']])).ids).toEqual([m.secretAfter]);
      expect((await world.ids('mary', [['channels', 'public'], ['search', 'classified']])).ids).toEqual([]);
      expect((await world.ids('mary', [], { message_ids: [m.vault, m.secretBefore] })).ids).toEqual([]);
      expect((await world.ids('mary', [['id', m.vault]])).ids).toEqual([]);
      // near only anchors: the anchor message itself is not shown.
      const near = await world.ids('mary', [['near', m.vault]], { num_before: 1, num_after: 1 });
      expect(near).toMatchObject({ anchor: m.vault, found_anchor: false });
      expect(near.ids).not.toContain(m.vault);
      // with: on an invisible message is dropped, leaving the rest of the narrow.
      expect((await world.ids('mary', [['with', m.vault], ['search', 'classified']])).ids).toEqual([m.secretAfter]);
    });

    it('shows a late subscriber only what was sent after they joined a channel whose history is not shared', async () => {
      expect((await world.ids('mary', channel('secret'))).ids).toEqual([m.secretAfter]);
      expect((await world.ids('mary', [], { message_ids: [m.secretBefore, m.secretAfter] })).ids).toEqual([m.secretAfter]);
      expect((await world.ids('mark', channel('secret'))).ids).toEqual([m.secretBefore, m.secretAfter]);
      expect((await world.ids('mary', [['id', m.secretBefore]])).ids).toEqual([]);
    });

    it('keeps direct messages to their participants', async () => {
      expect((await world.ids('mary', [['search', 'words']])).ids).toEqual([m.group]);
      expect((await world.ids('mary', [['dm-including', 4]])).ids).toEqual([m.group]);
      expect((await world.ids('mary', [], { message_ids: [m.dm, m.group] })).ids).toEqual([m.group]);
      expect((await world.ids('mark', [['dm-including', 1]])).ids).toEqual([m.dm, m.group]);
      expect((await world.ids('mark', [['dm', [1]]])).ids).toEqual([m.dm]);
      expect((await world.ids('mark', [['dm', [1, 5]]])).ids).toEqual([m.group]);
      expect((await world.ids('mark', [['is', 'dm']])).ids).toEqual([m.dm, m.group]);
      expect((await world.ids('mark', [{ operator: 'dm-including', operand: 5, negated: true }, ['is', 'dm']])).ids).toEqual([m.dm]);
    });

    it('covers every public channel with shared history for channels:public, and only subscribed ones for guests', async () => {
      const words = (who: Person, operand = 'public') => world.ids(who, [['channels', operand], { operator: 'topic', operand: 'build', negated: true }, { operator: 'search', operand: 'hay', negated: true }]);
      expect((await words('mary')).ids).toEqual([m.general1, m.generalMention, m.web]);
      expect((await words('gus')).ids).toEqual([m.general1, m.generalMention]);
      expect((await words('mark', 'web-public')).ids).toEqual([m.web]);
      expect((await world.ids('gus', [...channel('eng'), ['search', 'needle']])).ids).toEqual([]);
    });
  });

  describe('anchors', () => {
    let dated: number[];
    beforeAll(async () => {
      const day = Date.UTC(2030, 0, 2) / 1000;
      dated = [
        await world.send('owner', { channel: 'general', topic: 'dated' }, 'before', { timestamp: day - 60 }),
        await world.send('owner', { channel: 'general', topic: 'dated' }, 'midnight', { timestamp: day }),
        await world.send('owner', { channel: 'general', topic: 'other' }, 'elsewhere', { timestamp: day + 3600 }),
        await world.send('owner', { channel: 'general', topic: 'dated' }, 'later', { timestamp: day + 7200 }),
      ];
    });

    it('anchors a date at the narrow\'s first message on or after it, else at the newest', async () => {
      const narrow = channel('general', 'dated');
      const onDay = await world.ids('mark', narrow, { anchor: 'date', anchor_date: '2030-01-02', num_before: 1, num_after: 1 });
      expect(onDay).toMatchObject({ anchor: dated[1], found_anchor: true, ids: [dated[0], dated[1], dated[3]] });
      const inHour = await world.ids('mark', narrow, { anchor: 'date', anchor_date: '2030-01-02T00:30:00Z', num_before: 0, num_after: 0 });
      expect(inHour).toMatchObject({ anchor: dated[3], ids: [dated[3]] });
      const zoned = await world.ids('mark', narrow, { anchor: 'date', anchor_date: '2030-01-02T01:00:00+01:00', num_before: 0, num_after: 0 });
      expect(zoned).toMatchObject({ anchor: dated[1] });
      const future = await world.ids('mark', narrow, { anchor: 'date', anchor_date: '2099-01-01', num_before: 1, num_after: 0 });
      expect(future).toMatchObject({ found_anchor: false, found_newest: true, ids: [dated[3]] });
    });

    it('refuses a date anchor without a valid anchor_date, naming it', async () => {
      expect(await world.refused('mark', { anchor: 'date', num_before: 1, num_after: 0 })).toContain('anchor_date');
      expect(await world.refused('mark', { anchor: 'date', anchor_date: 'tomorrow', num_before: 1, num_after: 0 })).toContain('anchor_date');
    });

    it('anchors first_unread at the oldest unread message in the narrow, even one tested here', async () => {
      const first = await world.ids('mark', [['search', 'needle']], { anchor: 'first_unread', num_before: 0, num_after: 0 });
      expect(first).toMatchObject({ anchor: m.engNeedleC, ids: [m.engNeedleC] });
      const none = await world.ids('mary', [['search', 'needle']], { anchor: 'first_unread', num_before: 1, num_after: 0 });
      expect(none).toMatchObject({ found_newest: true, ids: [] });
      const legacy = await world.ids('mark', [['search', 'needle']], { use_first_unread_anchor: true, num_before: 0, num_after: 0 });
      expect(legacy.ids).toEqual([m.engNeedleC]);
    });

    it('anchors at near when no anchor is given', async () => {
      const near = await world.ids('mark', [...channel('eng', 'build'), ['near', m.engNeedleB]], { num_before: 1, num_after: 1 });
      expect(near).toMatchObject({ anchor: m.engNeedleB, found_anchor: true, ids: [m.engNeedleA, m.engNeedleB, m.engNeedleC] });
    });
  });

  describe('personal flags and topic states', () => {
    let resolvedId: number;
    let followedId: number;
    let mutedId: number;
    beforeAll(async () => {
      resolvedId = await world.send('owner', { channel: 'general', topic: '✔ shipped' }, 'done');
      followedId = await world.send('owner', { channel: 'general', topic: 'Watching' }, 'keep an eye', { html: '<p><a href="/user_uploads/1/a/cat.png">cat</a></p>' });
      mutedId = await world.send('owner', { channel: 'general', topic: 'noise' }, 'blah');
      await world.apply({ type: 'UserTopicUpdated', user_id: 4, channel_id: 10, topic: 'watching', visibility_policy: 3, last_updated: T0 });
      await world.apply({ type: 'UserTopicUpdated', user_id: 4, channel_id: 10, topic: 'Noise', visibility_policy: 1, last_updated: T0 });
      await world.apply({ type: 'MessageFlagsUpdated', user_id: 4, op: 'add', flag: 'starred', message_ids: [m.general1, followedId] });
      await world.apply({ type: 'ReactionAdded', message_id: mutedId, user_id: 1, emoji_name: 'ok', emoji_code: '1f44c', reaction_type: 'unicode_emoji', audience_user_ids: [] });
    });

    it('narrows by personal flags, topic states and contents', async () => {
      const general = channel('general');
      expect((await world.ids('mark', [...general, ['is', 'starred']])).ids).toEqual([m.general1, followedId]);
      expect((await world.ids('mark', [['is', 'mentioned']])).ids).toEqual([m.generalMention]);
      expect((await world.ids('mark', [['is', 'resolved']])).ids).toEqual([resolvedId]);
      expect((await world.ids('mark', [['is', 'followed']])).ids).toEqual([followedId]);
      expect((await world.ids('mark', [['is', 'muted']])).ids).toEqual([mutedId]);
      expect((await world.ids('mark', [...general, ['in', 'home']])).ids).not.toContain(mutedId);
      expect((await world.ids('mark', [...general, ['has', 'reaction']])).ids).toEqual([mutedId]);
      expect((await world.ids('mark', [['has', 'image']])).ids).toEqual([followedId]);
      expect((await world.ids('mark', [['has', 'attachment']])).ids).toEqual([followedId]);
      expect((await world.ids('mark', [...general, ['has', 'link']])).ids).toEqual([followedId]);
      const notStarred = await world.ids('mark', [...general, { operator: 'is', operand: 'starred', negated: true }, { operator: 'has', operand: 'link', negated: true }]);
      expect(notStarred.ids).not.toContain(m.general1);
      expect(notStarred.ids).toContain(m.generalMention);
      expect(notStarred.ids).not.toContain(followedId);
      // mary never received eng, so nothing there is starred for her, everything "not starred".
      const maryNotStarred = await world.ids('mary', [...channel('eng', 'build'), { operator: 'is', operand: 'starred', negated: true }]);
      expect(maryNotStarred.ids).toEqual(needles());
    });
  });

  describe('derived fields', () => {
    it('follow edits and moves', async () => {
      const id = await world.send('mark', { channel: 'general', topic: 'drafts' }, 'original wording');
      const edited: FactOf<'MessageEdited'> = {
        type: 'MessageEdited',
        message_id: id,
        editor_id: 4,
        timestamp: T0 + 10,
        content: {
          prev_content: 'original wording',
          prev_rendered_content: '<p>original wording</p>',
          content: 'revised text with https://example.com',
          rendered_content: '<p>revised text with <a href="https://example.com">https://example.com</a></p>',
          is_me_message: false,
          mentioned_user_ids: [],
          wildcard_mentioned_user_ids: [],
        },
        move: null,
        audience_user_ids: [],
      };
      await world.apply(edited);
      expect((await world.ids('mark', [['search', 'original']])).ids).not.toContain(id);
      expect((await world.ids('mark', [['search', 'revised']])).ids).toEqual([id]);
      expect((await world.ids('mark', [['has', 'link'], ['search', 'revised']])).ids).toEqual([id]);
      await world.apply({
        ...edited,
        content: null,
        move: {
          prev_channel_id: 10,
          channel_id: 10,
          channel_name: 'general',
          prev_topic: 'drafts',
          topic: 'Final Copy',
          propagate_mode: 'change_one',
          message_ids: [id],
          recipient_id: 110,
          revoked_user_ids: [],
        },
      } as FactOf<'MessageEdited'>);
      expect((await world.ids('mark', [['search', 'final copy']])).ids).toEqual([id]);
      expect((await world.ids('mark', [['search', 'drafts']])).ids).toEqual([]);
      expect((await world.ids('mark', channel('general', 'final copy'))).ids).toEqual([id]);
      // with: follows the message to where it is now.
      expect((await world.ids('mark', [...channel('general', 'drafts'), ['with', id]])).ids).toEqual([id]);
    });
  });

  describe('topics holding messages', () => {
    it('knows a topic has messages until they are moved away or deleted', async () => {
      expect(await world.model.topicHasMessages(10, 'fresh')).toBe(false);
      const id = await world.send('mark', { channel: 'general', topic: 'Fresh' }, 'first');
      expect(await world.model.topicHasMessages(10, 'fresh')).toBe(true);
      await world.apply({
        type: 'MessageEdited',
        message_id: id,
        editor_id: 4,
        timestamp: T0 + 30,
        content: null,
        move: { prev_channel_id: 10, channel_id: 10, channel_name: 'general', prev_topic: 'Fresh', topic: 'moved', propagate_mode: 'change_all', message_ids: [id], recipient_id: 110, revoked_user_ids: [] },
        audience_user_ids: [],
      });
      expect(await world.model.topicHasMessages(10, 'fresh')).toBe(false);
      expect(await world.model.topicHasMessages(10, 'moved')).toBe(true);
      await world.apply({ type: 'MessageDeleted', message_id: id, deleted_by: 4, channel_id: 10, topic: 'moved', audience_user_ids: [] });
      expect(await world.model.topicHasMessages(10, 'moved')).toBe(false);
    });
  });

  describe("conversations' recent ids kept in memory", () => {
    it('answer exactly as the index does, whatever the range, direction and limit, across sends, moves and deletions', async () => {
      const filters: Filter[] = [{ channel_id: 11 }, { channel_id: 11, topic_lc: 'hay-1' }, { channel_id: 11, topic_lc: 'build' }, { dm_key: '1,4' }];
      const check = async () => {
        const ranges: { $gt?: number; $gte?: number; $lt?: number; $lte?: number }[] = [{ $lt: 1e15 }, { $lt: m.hayMiddle! }, { $gt: m.hayMiddle! }, { $gte: m.engNeedleD! - 50, $lte: m.engNeedleE! }, { $gte: 0 }];
        for (const filter of filters) {
          for (const range of ranges) {
            for (const direction of [1, -1] as const) {
              for (const limit of [1, 50, 300]) {
                const fromIndex = await world.model.messages.findIds({ ...filter, _id: range }, { sort: ['_id', direction], limit });
                const answer = (await world.model.conversationIds(filter, range, direction, limit)) ?? fromIndex;
                expect({ filter, range, direction, limit, ids: answer }).toEqual({ filter, range, direction, limit, ids: fromIndex });
              }
            }
          }
        }
      };
      await check();
      // New messages extend what is kept, past its size.
      for (let i = 0; i < 250; i++) await world.send('owner', { channel: 'eng', topic: 'hay-1' }, `more hay ${i}`);
      await world.send('owner', { dm: ['mark'] }, 'another word');
      await check();
      const moved = await world.send('owner', { channel: 'eng', topic: 'build' }, 'to be moved');
      await check();
      await world.apply({
        type: 'MessageEdited',
        message_id: moved,
        editor_id: 1,
        timestamp: T0 + 40,
        content: null,
        move: { prev_channel_id: 11, channel_id: 11, channel_name: 'eng', prev_topic: 'build', topic: 'hay-1', propagate_mode: 'change_one', message_ids: [moved], recipient_id: 111, revoked_user_ids: [] },
        audience_user_ids: [],
      });
      await check();
      await world.apply({ type: 'MessageDeleted', message_id: moved, deleted_by: 1, channel_id: 11, topic: 'hay-1', audience_user_ids: [] });
      await check();
    });
  });

  describe('rendering', () => {
    it('renders as JSON text exactly what it renders as objects, and a new version after an edit', async () => {
      const id = await world.send('mark', { channel: 'general', topic: 'render' }, 'first words');
      const deps = { directory: world.directory, model: world.model };
      const ids = [m.general1, m.dm, id];
      const formats = [
        { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false },
        { apply_markdown: false, client_gravatar: true, allow_empty_topic_name: true },
      ];
      const agree = async () => {
        for (const format of formats) {
          const objects = await renderMessages(deps, actor('mark'), ids, format);
          // Twice: the second time the per-version JSON is reused.
          for (let i = 0; i < 2; i++) expect(JSON.parse((await renderMessagesJson(deps, actor('mark'), ids, format)).toString())).toEqual(objects);
        }
      };
      await agree();
      await world.apply({
        type: 'MessageEdited',
        message_id: id,
        editor_id: 4,
        timestamp: T0 + 20,
        content: {
          prev_content: 'first words',
          prev_rendered_content: '<p>first words</p>',
          content: 'second words',
          rendered_content: '<p>second words</p>',
          is_me_message: false,
          mentioned_user_ids: [],
          wildcard_mentioned_user_ids: [],
        },
        move: null,
        audience_user_ids: [],
      });
      await agree();
      const [, , edited] = JSON.parse((await renderMessagesJson(deps, actor('mark'), ids, formats[1]!)).toString()) as { content: string }[];
      expect(edited!.content).toBe('second words');
    });

    it('wraps the array as asked, in a buffer of its own (movable to another thread), empty or not', async () => {
      const deps = { directory: world.directory, model: world.model };
      const format = { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false };
      const wrap = { before: '{"messages":', after: '}' };
      for (const ids of [[], [m.general1], [m.general1, m.dm]]) {
        const bytes = await renderMessagesJson(deps, actor('mark'), ids, format, [], wrap);
        expect([bytes.byteOffset, bytes.byteLength]).toEqual([0, bytes.buffer.byteLength]);
        const { messages } = JSON.parse(bytes.toString()) as { messages: { id: number }[] };
        expect(messages.map((message) => message.id)).toEqual(ids);
      }
    });
  });

  describe('after leaving a private channel', () => {
    it('keeps the messages received there, reachable by id and with:, but not the channel', async () => {
      await world.apply({ type: 'SubscriptionsRemoved', channel_id: CHANNELS.secret.id, user_ids: [4] });
      expect(await world.refused('mark', { anchor: 'newest', num_before: 1, num_after: 0, narrow: channel('secret') })).toContain('unknown channel');
      expect((await world.ids('mark', [['with', m.secretBefore]])).ids).toEqual([m.secretBefore]);
      expect((await world.ids('mark', [['search', 'classified']])).ids).toEqual([m.secretBefore, m.secretAfter]);
      expect((await world.ids('mark', [], { message_ids: [m.secretAfter] })).ids).toEqual([m.secretAfter]);
    });
  });
});
