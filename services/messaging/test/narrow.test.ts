/**
 * The narrow, piece by piece: parsing and resolving operators, testing a message against
 * each condition (and its negation), planning which index serves a narrow, the
 * anchor_date format, and the fields the projection derives for search and has:.
 */
import { describe, expect, it } from '@jest/globals';
import { isApiError, ROLE, type Actor, type NarrowTerm } from '@teamchat/contracts';
import type { ChannelDoc, UserDoc } from '@teamchat/directory';
import type { MessageDoc, UserMessageDoc } from '../src/projections/message-docs';
import { messageTextFeatures, searchableText } from '../src/projections/text-features';
import { parseAnchorDate } from '../src/queries/anchors';
import type { Condition, Narrow, Term } from '../src/queries/narrow';
import { matches, matchesSearch, type Candidate, type MatchContext } from '../src/queries/narrow-match';
import { expandWith, normalizeTerm, parseSearch, resolveNarrow, type NarrowDirectory } from '../src/queries/narrow-parse';
import { planNarrow } from '../src/queries/narrow-plan';

const channel = (id: number, name: string, extra: Partial<ChannelDoc> = {}): ChannelDoc => ({
  _id: id,
  name,
  name_lc: name.toLowerCase(),
  description: '',
  rendered_description: '',
  invite_only: false,
  is_web_public: false,
  history_public_to_subscribers: true,
  is_default: false,
  topics_policy: 'inherit',
  message_retention_days: null,
  creator_id: null,
  date_created: 0,
  is_archived: false,
  ...extra,
});

const user = (id: number, email: string, role: number = ROLE.member): UserDoc => ({
  _id: id,
  email,
  email_lc: email.toLowerCase(),
  full_name: email,
  full_name_lc: email.toLowerCase(),
  role,
  is_active: true,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  timezone: '',
  date_joined: 0,
});

const channels = [channel(10, 'general'), channel(11, 'Engineering'), channel(12, 'leadership', { invite_only: true }), channel(13, '2024')];
const users = [user(1, 'owner@example.com', ROLE.owner), user(4, 'member@example.com'), user(5, 'member2@example.com'), user(6, 'guest@example.com', ROLE.guest)];
const subscriptions = new Set(['10:4', '11:4', '12:1']);

const directory: NarrowDirectory = {
  channelById: async (id) => channels.find((c) => c._id === id),
  channelByName: async (name) => channels.find((c) => c.name_lc === name.toLowerCase()),
  userById: async (id) => users.find((u) => u._id === id),
  userByEmail: async (email) => users.find((u) => u.email_lc === email.toLowerCase()),
  isSubscribed: async (channelId, userId) => subscriptions.has(`${channelId}:${userId}`),
};

const mark: Actor = { user_id: 4, email: 'member@example.com', full_name: 'Mark', role: ROLE.member, is_bot: false, client: 'test' };

const resolve = (narrow: NarrowTerm[], actor = mark) => resolveNarrow(directory, actor, narrow.map(normalizeTerm));

async function refusal(narrow: NarrowTerm[]): Promise<string> {
  try {
    await resolve(narrow);
  } catch (err) {
    if (isApiError(err)) {
      expect(err).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      return err.msg;
    }
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(narrow)}`);
}

describe('parsing and resolving operators', () => {
  it('reads the object and legacy forms, translating legacy names', async () => {
    const narrow = await resolve([
      ['stream', 'general'],
      ['subject', 'Greetings'],
      { operator: 'sender', operand: 'me', negated: true },
    ]);
    expect(narrow.conditions).toEqual([
      { kind: 'channel', channel_id: 10, negated: false },
      { kind: 'topic', topic_lc: 'greetings', negated: false },
      { kind: 'sender', user_id: 4, negated: true },
    ]);
    expect(narrow.channel?._id).toBe(10);
    const legacy = await resolve([['pm-with', 'member2@example.com'], ['group-pm-with', 1], ['streams', 'public']]);
    expect(legacy.conditions).toEqual([
      { kind: 'dm', dm_key: '4,5' },
      { kind: 'dm-including', user_id: 1, negated: false },
      { kind: 'channels', web_public: false },
    ]);
  });

  it('finds channels by name (case-insensitive) or id, a numeric name before an id', async () => {
    expect((await resolve([{ operator: 'channel', operand: 'ENGINEERING' }])).channel?._id).toBe(11);
    expect((await resolve([{ operator: 'channel', operand: 11 }])).channel?._id).toBe(11);
    expect((await resolve([{ operator: 'channel', operand: '11' }])).channel?._id).toBe(11);
    expect((await resolve([{ operator: 'channel', operand: '2024' }])).channel?._id).toBe(13);
  });

  it('reads the empty topic display name as the empty topic', async () => {
    expect((await resolve([['topic', 'general chat']])).conditions).toEqual([{ kind: 'topic', topic_lc: '', negated: false }]);
    expect((await resolve([['topic', '']])).conditions).toEqual([{ kind: 'topic', topic_lc: '', negated: false }]);
  });

  it('takes dm operands as ids, emails or comma-separated emails, always with the requester', async () => {
    const key = async (operand: string | number | (string | number)[]) => ((await resolve([['dm', operand]])).conditions[0] as { dm_key: string }).dm_key;
    expect(await key([5])).toBe('4,5');
    expect(await key(['member2@example.com', 'OWNER@example.com'])).toBe('1,4,5');
    expect(await key('member2@example.com, owner@example.com')).toBe('1,4,5');
    expect(await key(5)).toBe('4,5');
    expect(await key([4])).toBe('4');
  });

  it('resolves senders by id, email or "me", and is/has operands with aliases', async () => {
    const narrow = await resolve([
      ['sender', 'member2@example.com'],
      ['sender', 1],
      ['is', 'private'],
      ['is', 'Starred'],
      ['has', 'image'],
      ['in', 'home'],
      ['in', 'all'],
      ['id', '42'],
      ['near', 7],
    ]);
    expect(narrow.conditions).toEqual([
      { kind: 'sender', user_id: 5, negated: false },
      { kind: 'sender', user_id: 1, negated: false },
      { kind: 'is', operand: 'dm', negated: false },
      { kind: 'is', operand: 'starred', negated: false },
      { kind: 'has', operand: 'image', negated: false },
      { kind: 'in-home' },
      { kind: 'id', message_id: 42 },
    ]);
    expect(narrow.near).toBe(7);
  });

  it('refuses unknown operators, malformed operands, unknown users and invisible channels, naming them', async () => {
    const cases: [NarrowTerm[], string][] = [
      [[['frobnicate', 'x']], "unknown operator 'frobnicate'"],
      [[['channel', 'no-such-channel']], "unknown channel 'no-such-channel'"],
      [[['channel', 99]], "unknown channel '99'"],
      // Private and not subscribed: exactly as if it did not exist.
      [[['channel', 'leadership']], "unknown channel 'leadership'"],
      [[{ operator: 'channel', operand: 'leadership', negated: true }], "unknown channel 'leadership'"],
      [[['channel', ['general']]], "'channel' needs a channel name or id"],
      [[['channel', 'general'], ['channel', 'engineering']], 'only one channel operator'],
      [[['topic', ['a']]], "'topic' needs a string operand"],
      [[['dm', 'ghost@example.com']], "unknown user 'ghost@example.com'"],
      [[['dm', [99]]], "unknown user '99'"],
      [[['dm', []]], 'at least one user'],
      [[['dm', ' , ']], 'at least one user'],
      [[['sender', 'nobody@example.com']], "unknown user 'nobody@example.com'"],
      [[['sender', [1, 2]]], "'sender' needs one user id or email"],
      [[['dm-including', 99]], "unknown user '99'"],
      [[['is', 'shiny']], "unknown 'is' operand 'shiny'"],
      [[['has', 'video']], "unknown 'has' operand 'video'"],
      [[['in', 'space']], "unknown 'in' operand 'space'"],
      [[['channels', 'private']], "unknown 'channels' operand 'private'"],
      [[['id', 'abc']], "'id' needs a message id"],
      [[['id', -1]], "'id' needs a message id"],
      [[['near', 'newest']], "'near' needs a message id"],
      [[{ operator: 'dm', operand: [5], negated: true }], "'dm' cannot be negated"],
      [[{ operator: 'id', operand: 1, negated: true }], "'id' cannot be negated"],
      [[{ operator: 'channels', operand: 'public', negated: true }], "'channels' cannot be negated"],
    ];
    for (const [narrow, text] of cases) {
      const msg = await refusal(narrow);
      expect({ narrow, msg }).toEqual({ narrow, msg: expect.stringContaining('Invalid narrow operator') });
      expect({ narrow, msg }).toEqual({ narrow, msg: expect.stringContaining(text) });
    }
  });

  it('expands with:<id> into the conversation of a visible message, and drops it otherwise', async () => {
    const terms = [normalizeTerm(['channel', 'general']), normalizeTerm(['with', 9]), normalizeTerm(['search', 'x'])];
    const conversation: Term[] = [normalizeTerm(['channel', 11]), normalizeTerm(['topic', 'moved'])];
    const expanded = await expandWith(terms, async (id) => (id === 9 ? conversation : undefined));
    expect(expanded.map((t) => [t.operator, t.operand])).toEqual([
      ['search', 'x'],
      ['channel', 11],
      ['topic', 'moved'],
    ]);
    const hidden = await expandWith([normalizeTerm(['with', 8]), normalizeTerm(['search', 'x'])], async () => undefined);
    expect(hidden.map((t) => t.operator)).toEqual(['search']);
    await expect(expandWith([normalizeTerm(['with', 1]), normalizeTerm(['with', 2])], async () => undefined)).rejects.toMatchObject({
      msg: expect.stringContaining("only one 'with'"),
    });
    await expect(expandWith([normalizeTerm(['with', 'x'])], async () => undefined)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('search', () => {
  it('splits words and quoted phrases, normalizing case and punctuation', () => {
    expect(parseSearch('Deploy "Release Notes" e-mail "unterminated phrase')).toEqual({
      words: ['deploy'],
      phrases: ['release notes', 'e mail', 'unterminated phrase'],
    });
    expect(parseSearch('  "" !!! ')).toEqual({ words: [], phrases: [] });
  });

  it('needs every word and phrase, at word starts, case-insensitively', () => {
    const text = searchableText('Deployment of the NEW release-notes, finally');
    expect(matchesSearch(text, parseSearch('deploy'))).toBe(true);
    expect(matchesSearch(text, parseSearch('ploy'))).toBe(false);
    expect(matchesSearch(text, parseSearch('new finally'))).toBe(true);
    expect(matchesSearch(text, parseSearch('new missing'))).toBe(false);
    expect(matchesSearch(text, parseSearch('"release notes"'))).toBe(true);
    expect(matchesSearch(text, parseSearch('"notes release"'))).toBe(false);
  });

  it('finds words anywhere in scripts written without spaces', () => {
    const text = searchableText('今日は会議があります');
    expect(matchesSearch(text, parseSearch('会議'))).toBe(true);
    expect(matchesSearch(text, parseSearch('食事'))).toBe(false);
  });
});

describe('derived message fields', () => {
  it('reads links, images and attachments from rendered content, not channel links', () => {
    const features = (html: string) => {
      const { has_link, has_image, has_attachment } = messageTextFeatures(html, null);
      return { has_link, has_image, has_attachment };
    };
    expect(features('<p>plain</p>')).toEqual({ has_link: false, has_image: false, has_attachment: false });
    expect(features('<p><a href="https://example.com" target="_blank">x</a></p>')).toEqual({ has_link: true, has_image: false, has_attachment: false });
    expect(features('<p><a href="https://example.com/cat.PNG?size=2">cat</a></p>')).toMatchObject({ has_link: true, has_image: true });
    expect(features('<p><a href="/user_uploads/2/ab/report.pdf">report</a></p>')).toEqual({ has_link: true, has_image: false, has_attachment: true });
    expect(features('<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-general">#general</a></p>')).toMatchObject({ has_link: false });
    expect(features('<p><img alt=":smile:" class="emoji" src="/static/x.png"></p>')).toMatchObject({ has_link: false, has_image: false });
  });

  it('searches the topic and the text a reader sees, entities decoded', () => {
    const { search_text } = messageTextFeatures('<p>Fish &amp; chips &#x27;today&#39; <code>x&lt;y</code></p>', 'Lunch Plans');
    expect(search_text).toBe(' lunch plans fish chips today x y ');
  });
});

describe('anchor_date', () => {
  it('reads dates as midnight UTC and times as UTC unless a zone is given', () => {
    expect(parseAnchorDate('2024-01-02')).toBe(Date.UTC(2024, 0, 2) / 1000);
    expect(parseAnchorDate('2024-01-02T03:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    expect(parseAnchorDate('2024-01-02 03:04')).toBe(Date.UTC(2024, 0, 2, 3, 4) / 1000);
    expect(parseAnchorDate('2024-01-02T03:04:05Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    expect(parseAnchorDate('2024-01-02T03:04:05+02:00')).toBe(Date.UTC(2024, 0, 2, 1, 4, 5) / 1000);
    expect(parseAnchorDate('2024-01-02T03:04:05-0130')).toBe(Date.UTC(2024, 0, 2, 4, 34, 5) / 1000);
    // A fraction rounds up: the first whole second on or after the time.
    expect(parseAnchorDate('2024-01-02T03:04:05.250Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 6) / 1000);
  });

  it('refuses what is not a valid date', () => {
    for (const bad of ['', 'yesterday', '2024-13-01', '2024-02-30', '2024-01-02T24:00', '2024-01-02T10:60', '2024-1-2', '1704153600', '2024-01-02T03:04+25:00']) {
      expect({ bad, parsed: parseAnchorDate(bad) }).toEqual({ bad, parsed: undefined });
    }
  });
});

describe('conditions', () => {
  const message = (overrides: Partial<MessageDoc> = {}): MessageDoc =>
    ({
      _id: 100,
      sender_id: 5,
      channel_id: 10,
      topic_lc: '✔ shipped',
      dm_key: null,
      reactions: [],
      ...messageTextFeatures('<p>Release <a href="https://x.test/a.png">notes</a></p>', '✔ Shipped'),
      ...overrides,
    }) as MessageDoc;
  const candidate = (m: MessageDoc, flags?: string[]): Candidate => ({
    id: m._id,
    channel_id: m.channel_id,
    topic_lc: m.topic_lc,
    dm_key: m.dm_key,
    sender_id: m.sender_id,
    message: m,
    row: flags ? ({ flags } as UserMessageDoc) : undefined,
  });
  const ctx: MatchContext = {
    topicPolicy: (channelId, topic) => (channelId === 10 && topic === '✔ shipped' ? 3 : channelId === 10 && topic === 'noise' ? 1 : 0),
    coveredByChannels: (channelId, webPublic) => channelId === 10 && !webPublic,
  };
  const inChannel = candidate(message(), ['mentioned']);
  const direct = candidate(message({ channel_id: null, topic_lc: null, dm_key: '4,5', has_link: false, has_image: false }), ['read', 'starred']);
  const muted = candidate(message({ topic_lc: 'noise', reactions: [{ emoji_name: 'a', emoji_code: '1', reaction_type: 'unicode_emoji', user_id: 1 }] }));

  const table: [Condition, Candidate[]][] = [
    [{ kind: 'channel', channel_id: 10, negated: false }, [inChannel, muted]],
    [{ kind: 'channels', web_public: false }, [inChannel, muted]],
    [{ kind: 'channels', web_public: true }, []],
    [{ kind: 'topic', topic_lc: 'noise', negated: false }, [muted]],
    [{ kind: 'dm', dm_key: '4,5' }, [direct]],
    [{ kind: 'dm-including', user_id: 5, negated: false }, [direct]],
    [{ kind: 'dm-including', user_id: 1, negated: false }, []],
    [{ kind: 'sender', user_id: 5, negated: false }, [inChannel, direct, muted]],
    [{ kind: 'search', query: parseSearch('release'), negated: false }, [inChannel, direct, muted]],
    [{ kind: 'search', query: parseSearch('shipped'), negated: false }, [inChannel, direct, muted]],
    [{ kind: 'is', operand: 'dm', negated: false }, [direct]],
    // Without a personal-history row a message reads as read and historical.
    [{ kind: 'is', operand: 'unread', negated: false }, [inChannel]],
    [{ kind: 'is', operand: 'starred', negated: false }, [direct]],
    [{ kind: 'is', operand: 'mentioned', negated: false }, [inChannel]],
    [{ kind: 'is', operand: 'alerted', negated: false }, []],
    [{ kind: 'is', operand: 'resolved', negated: false }, [inChannel]],
    [{ kind: 'is', operand: 'followed', negated: false }, [inChannel]],
    [{ kind: 'is', operand: 'muted', negated: false }, [muted]],
    [{ kind: 'has', operand: 'link', negated: false }, [inChannel, muted]],
    [{ kind: 'has', operand: 'image', negated: false }, [inChannel, muted]],
    [{ kind: 'has', operand: 'attachment', negated: false }, []],
    [{ kind: 'has', operand: 'reaction', negated: false }, [muted]],
    [{ kind: 'in-home' }, [inChannel, direct]],
  ];
  const all = [inChannel, direct, muted];

  it('matches each condition, and its negation the complement', () => {
    for (const [condition, expected] of table) {
      const hits = all.filter((c) => matches(condition, c, ctx));
      expect({ condition, hits }).toEqual({ condition, hits: expected });
      if ('negated' in condition) {
        const misses = all.filter((c) => matches({ ...condition, negated: true } as Condition, c, ctx));
        expect({ condition, misses }).toEqual({ condition, misses: all.filter((c) => !expected.includes(c)) });
      }
    }
  });

  it('matches the id condition by id only', () => {
    expect(matches({ kind: 'id', message_id: 100 }, inChannel, ctx)).toBe(true);
    expect(matches({ kind: 'id', message_id: 101 }, inChannel, ctx)).toBe(false);
  });
});

describe('planning', () => {
  const plan = async (narrow: NarrowTerm[], readable = true) => planNarrow(await resolve(narrow), readable);

  it('serves channel, topic, conversation and personal narrows from an index alone', async () => {
    expect(await plan([['channel', 'general'], ['topic', 'Hello']])).toEqual({
      source: 'messages',
      filter: { channel_id: 10, topic_lc: 'hello' },
      residual: [],
    });
    expect(await plan([])).toEqual({ source: 'personal', filter: {}, residual: [] });
    // A conversation's participants received every message in it.
    expect(await plan([['dm', [5]]])).toEqual({ source: 'messages', filter: { dm_key: '4,5' }, residual: [] });
    expect(await plan([['is', 'dm']])).toEqual({ source: 'personal', filter: { direct: true }, residual: [] });
    expect(await plan([['sender', 5], { operator: 'topic', operand: 'x', negated: true }, { operator: 'topic', operand: 'y', negated: true }])).toEqual({
      source: 'personal',
      filter: { sender_id: 5, topic_lc: { $nin: ['x', 'y'] } },
      residual: [],
    });
    expect(await plan([['is', 'starred'], { operator: 'is', operand: 'unread', negated: true }])).toEqual({
      source: 'personal',
      filter: { starred: true, unread: false },
      residual: [],
    });
  });

  it('reads only what was received in a channel whose history the requester may not read, and personal history for personal flags', async () => {
    expect(await plan([['channel', 'general']], false)).toEqual({ source: 'messages', filter: { channel_id: 10 }, residual: [{ kind: 'received' }] });
    expect(await plan([['channel', 'general'], ['topic', 'x']], false)).toEqual({
      source: 'messages',
      filter: { channel_id: 10, topic_lc: 'x' },
      residual: [{ kind: 'received' }],
    });
    expect(await plan([['channel', 'general'], ['is', 'mentioned']])).toEqual({
      source: 'personal',
      filter: { channel_id: 10, mentioned: true },
      residual: [],
    });
  });

  it('leaves search, has:reaction, topic states and channels:public to be tested on candidates', async () => {
    const p = await plan([['channel', 'general'], ['search', 'x'], ['has', 'link'], ['has', 'reaction'], ['is', 'resolved']]);
    expect(p).toMatchObject({ source: 'messages', filter: { channel_id: 10, has_link: true } });
    expect(p.source !== 'none' && p.source !== 'ids' && p.residual.map((c) => c.kind)).toEqual(['search', 'has', 'is']);
    expect(await plan([['has', 'image'], { operator: 'has', operand: 'attachment', negated: true }])).toEqual({
      source: 'personal',
      filter: { has_image: true, has_attachment: false },
      residual: [],
    });
    expect(await plan([['channels', 'public'], ['sender', 5]])).toEqual({
      source: 'messages',
      filter: { sender_id: 5 },
      residual: [{ kind: 'channels', web_public: false }],
    });
    expect(await plan([['dm-including', 5]])).toEqual({
      source: 'personal',
      filter: { direct: true },
      residual: [{ kind: 'dm-including', user_id: 5, negated: false }],
    });
  });

  it('reads exact ids for the id operator, and nothing for a narrow that contradicts itself', async () => {
    expect(await plan([['id', 7], ['channel', 'general']])).toMatchObject({ source: 'ids', ids: [7] });
    const none = { source: 'none' };
    expect(await plan([['id', 7], ['id', 8]])).toEqual(none);
    expect(await plan([['channel', 'general'], ['dm', [5]]])).toEqual(none);
    expect(await plan([['channels', 'public'], ['is', 'dm']])).toEqual(none);
    expect(await plan([['topic', 'a'], ['topic', 'b']])).toEqual(none);
    expect(await plan([['topic', 'a'], { operator: 'topic', operand: 'A', negated: true }])).toEqual(none);
    expect(await plan([['is', 'unread'], { operator: 'is', operand: 'unread', negated: true }])).toEqual(none);
    expect(await plan([['sender', 5], ['sender', 1]])).toEqual(none);
  });

  it('keeps a negation that the equality already satisfies out of the filter', async () => {
    const narrow: Narrow = await resolve([['topic', 'a'], { operator: 'topic', operand: 'b', negated: true }]);
    expect(planNarrow(narrow, true)).toEqual({ source: 'personal', filter: { topic_lc: 'a' }, residual: [] });
  });
});
