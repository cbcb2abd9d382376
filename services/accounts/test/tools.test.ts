/** Given facts / when command / then facts for the personal and organization tools' deciders. */
import { describe, expect, it } from '@jest/globals';
import { ROLE, type Actor, type DraftInput, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideAddAlertWords, decideRemoveAlertWords } from '../src/domain/alert-words';
import {
  decideRemoveBotStorage,
  decideUpdateBotStorage,
  evolveBotStorage,
  initialBotStorage,
  readBotStorage,
  type BotStorageState,
} from '../src/domain/bot-storage';
import { decideCreateDrafts, decideDeleteDraft, decideEditDraft, type Addressees } from '../src/domain/drafts';
import { decideAddPlayground, decideRemovePlayground, evolvePlaygrounds, initialPlaygrounds, type PlaygroundsState } from '../src/domain/playgrounds';
import { decideCreateSavedSnippet, decideDeleteSavedSnippet, decideEditSavedSnippet } from '../src/domain/saved-snippets';
import { evolveUserData, initialUserData, type UserDataState } from '../src/domain/user-data';
import { decideUpdateSettings } from '../src/domain/user-settings';
import { parseUrlTemplate } from '../src/handlers/url-template';
import { createVideoCall, JitsiProvider, videoCallProviderOf } from '../src/handlers/video-calls';

const NOW = 1_700_000_000_500;
const userData = <C>(decide: (state: UserDataState, cmd: C) => Fact[]) =>
  deciderSpec<UserDataState, C>({ initial: initialUserData, evolve: evolveUserData, decide: (cmd, state) => decide(state, cmd) });
const addressees: Addressees = { postableChannelIds: new Set([10]), userIds: new Set([2, 3]) };
const draft = (over: Partial<DraftInput> = {}): DraftInput => ({ type: 'stream', to: [10], topic: 'plans', content: 'text', ...over });
const stored = (id: number, over: Partial<FactOf<'DraftsAdded'>['drafts'][number]> = {}) => ({
  id,
  type: 'stream' as const,
  to: [10],
  topic: 'plans',
  content: 'text',
  timestamp: 1_700_000_000,
  ...over,
});
const added = (...ids: number[]): FactOf<'DraftsAdded'> => ({ type: 'DraftsAdded', user_id: 1, drafts: ids.map((id) => stored(id)) });

describe('drafts', () => {
  const create = userData((state, cmd: DraftInput[]) => decideCreateDrafts(state, { user_id: 1, drafts: cmd, addressees, now: NOW }).facts);
  const edit = userData((state, cmd: { id: number; draft: DraftInput }) =>
    decideEditDraft(state, { user_id: 1, draft_id: cmd.id, draft: cmd.draft, addressees, now: NOW }),
  );
  const remove = userData((state, id: number) => decideDeleteDraft(state, { user_id: 1, draft_id: id }));

  it('numbers new drafts after the last one and fills in the timestamp', () => {
    create.given([added(1, 2)]).when([draft(), draft({ timestamp: 5.7 })]).then([
      { type: 'DraftsAdded', user_id: 1, drafts: [stored(3), stored(4, { timestamp: 5 })] },
    ]);
  });
  it('addresses direct drafts to sorted, distinct existing users and unaddressed ones to nobody, dropping their topic', () => {
    create.given([]).when([draft({ type: 'private', to: [3, 2, 3], topic: 'x' }), draft({ type: '', to: [99], topic: 'y' })]).then([
      { type: 'DraftsAdded', user_id: 1, drafts: [stored(1, { type: 'private', to: [2, 3], topic: '' }), stored(2, { type: '', to: [], topic: '' })] },
    ]);
  });
  it.each([
    ['two channels', draft({ to: [10, 10] })],
    ['a channel the user may not post to', draft({ to: [11] })],
    ['an unknown user', draft({ type: 'private', to: [2, 99] })],
    ['a null byte in the content', draft({ content: 'a\u0000' })],
    ['a null byte in the topic', draft({ topic: '\u0000' })],
    ['an overlong content', draft({ content: '😀'.repeat(10_001) })],
    ['an overlong topic', draft({ topic: 't'.repeat(61) })],
  ])('refuses %s', (_why, bad) => {
    create.given([]).when([bad]).thenThrows({ code: 'BAD_REQUEST' });
  });
  it('edits only an existing draft of the user, keeping its id', () => {
    edit.given([added(1)]).when({ id: 1, draft: draft({ content: 'new' }) }).then([
      { type: 'DraftUpdated', user_id: 1, draft: stored(1, { content: 'new', timestamp: 1_700_000_000 }) },
    ]);
    edit.given([added(1)]).when({ id: 2, draft: draft() }).thenThrows({ code: 'BAD_REQUEST', msg: 'Draft does not exist' });
    remove.given([added(1), { type: 'DraftRemoved', user_id: 1, draft_id: 1 }]).when(1).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([added(1)]).when(1).then([{ type: 'DraftRemoved', user_id: 1, draft_id: 1 }]);
  });
  it('refuses to store or edit drafts while synchronization is off', () => {
    const off: Fact = { type: 'UserSettingChanged', user_id: 1, property: 'enable_drafts_synchronization', value: false };
    create.given([off]).when([draft()]).thenThrows({ code: 'BAD_REQUEST', msg: 'User has disabled synchronizing drafts.' });
    edit.given([added(1), off]).when({ id: 1, draft: draft() }).thenThrows({ code: 'BAD_REQUEST' });
  });
});

describe('user settings', () => {
  const update = userData((state, value: boolean) => decideUpdateSettings(state, { user_id: 1, changes: { enable_drafts_synchronization: value } }));
  it('turning draft synchronization off records the setting and clears every draft (no draft removal facts)', () => {
    update.given([added(1, 2)]).when(false).then([
      { type: 'UserSettingChanged', user_id: 1, property: 'enable_drafts_synchronization', value: false },
      { type: 'DraftsCleared', user_id: 1, draft_ids: [1, 2] },
    ]);
  });
  it('records nothing for an unchanged value, and only the setting without drafts', () => {
    update.given([]).when(true).then([]);
    update.given([]).when(false).then([{ type: 'UserSettingChanged', user_id: 1, property: 'enable_drafts_synchronization', value: false }]);
  });
});

describe('saved snippets', () => {
  const create = userData((state, cmd: { title: string; content: string }) => decideCreateSavedSnippet(state, { user_id: 1, ...cmd, now: NOW }).facts);
  const edit = userData((state, cmd: { id: number; title?: string; content?: string }) =>
    decideEditSavedSnippet(state, { user_id: 1, saved_snippet_id: cmd.id, title: cmd.title, content: cmd.content }),
  );
  const remove = userData((state, id: number) => decideDeleteSavedSnippet(state, { user_id: 1, saved_snippet_id: id }));
  const snippet = { id: 1, title: 'Hi', content: 'hello', date_created: 1_700_000_000 };
  const made: Fact = { type: 'SavedSnippetAdded', user_id: 1, saved_snippet: snippet };

  it('creates a snippet with a trimmed title', () => {
    create.given([]).when({ title: ' Hi ', content: 'hello' }).then([made]);
  });
  it.each([
    ['an empty title', { title: ' ', content: 'x' }],
    ['an empty content', { title: 'x', content: '' }],
    ['an overlong title', { title: 't'.repeat(61), content: 'x' }],
    ['a null byte', { title: 'x', content: '\u0000' }],
  ])('refuses %s', (_why, cmd) => create.given([]).when(cmd).thenThrows({ code: 'BAD_REQUEST' }));
  it('edits the title or the content of an existing snippet, and needs one of them', () => {
    edit.given([made]).when({ id: 1, content: 'bye' }).then([{ type: 'SavedSnippetUpdated', user_id: 1, saved_snippet: { ...snippet, content: 'bye' } }]);
    edit.given([made]).when({ id: 1 }).thenThrows({ code: 'BAD_REQUEST' });
    edit.given([made]).when({ id: 2, title: 'x' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Saved snippet does not exist.' });
    edit.given([made]).when({ id: 1, title: '' }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([made]).when(1).then([{ type: 'SavedSnippetRemoved', user_id: 1, saved_snippet_id: 1 }]);
    remove.given([]).when(1).thenThrows({ code: 'BAD_REQUEST' });
  });
});

describe('alert words', () => {
  const add = userData((state, words: string[]) => decideAddAlertWords(state, { user_id: 1, alert_words: words }).facts);
  const remove = userData((state, words: string[]) => decideRemoveAlertWords(state, { user_id: 1, alert_words: words }).facts);
  const had: Fact = { type: 'AlertWordsChanged', user_id: 1, alert_words: ['kraken'] };
  it('adds trimmed, lower-cased words once, keeping the list sorted', () => {
    add.given([had]).when([' Zebra', 'KRAKEN', 'zebra']).then([{ type: 'AlertWordsChanged', user_id: 1, alert_words: ['kraken', 'zebra'] }]);
    add.given([had]).when(['Kraken']).then([]);
  });
  it('removes words in any case; an unknown word is no error', () => {
    remove.given([had]).when(['KRAKEN', 'never']).then([{ type: 'AlertWordsChanged', user_id: 1, alert_words: [] }]);
    remove.given([had]).when(['never']).then([]);
  });
  it.each([[''], ['  '], ['w'.repeat(101)], ['a\u0000']])('refuses %j', (word) => add.given([]).when([word]).thenThrows({ code: 'BAD_REQUEST' }));
  it('refuses more than 1000 words', () => {
    add.given([]).when(Array.from({ length: 1001 }, (_, i) => `w${i}`)).thenThrows({ code: 'BAD_REQUEST' });
  });
});

describe('bot storage', () => {
  const bot: Actor = { user_id: 9, email: 'bot@x', full_name: 'Bot', role: ROLE.member, is_bot: true, client: 'test' };
  const human: Actor = { ...bot, user_id: 4, is_bot: false };
  const storage = <C>(decide: (state: BotStorageState, cmd: C) => Fact[]) =>
    deciderSpec<BotStorageState, C>({ initial: initialBotStorage, evolve: evolveBotStorage, decide: (cmd, state) => decide(state, cmd) });
  const update = storage((state, cmd: { actor: Actor; storage: Record<string, string> }) => decideUpdateBotStorage(state, { ...cmd, limit: 10 }));
  const remove = storage((state, cmd: { actor: Actor; keys?: string[] }) => decideRemoveBotStorage(state, cmd));
  const stored: Fact = { type: 'BotStorageUpdated', user_id: 9, storage: { ab: 'cd' } };

  it('stores within the limit, counting keys and values in characters and an overwritten value once', () => {
    update.given([stored]).when({ actor: bot, storage: { ab: '😀😀😀😀😀😀😀😀' } }).then([{ type: 'BotStorageUpdated', user_id: 9, storage: { ab: '😀😀😀😀😀😀😀😀' } }]);
    update.given([stored]).when({ actor: bot, storage: { ab: '123456789' } }).thenThrows({ code: 'BAD_REQUEST' });
    update.given([stored]).when({ actor: bot, storage: { efg: 'hijk' } }).thenThrows({ code: 'BAD_REQUEST' });
    update.given([stored]).when({ actor: bot, storage: { efg: 'hij' } }).then([{ type: 'BotStorageUpdated', user_id: 9, storage: { efg: 'hij' } }]);
  });
  it('removes named keys (each must exist) or everything', () => {
    remove.given([stored]).when({ actor: bot, keys: ['ab'] }).then([{ type: 'BotStorageRemoved', user_id: 9, keys: ['ab'] }]);
    remove.given([stored]).when({ actor: bot, keys: ['ab', 'zz'] }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([stored]).when({ actor: bot }).then([{ type: 'BotStorageRemoved', user_id: 9, keys: null }]);
    remove.given([]).when({ actor: bot }).then([]);
  });
  it('refuses every user who is not a bot with PERMISSION_DENIED', () => {
    update.given([]).when({ actor: human, storage: { a: 'b' } }).thenThrows({ code: 'PERMISSION_DENIED' });
    remove.given([]).when({ actor: human }).thenThrows({ code: 'PERMISSION_DENIED' });
  });
  it('reads everything or the named keys, refusing an unknown one', () => {
    const entries = new Map([['a', '1'], ['__proto__', '2']]);
    expect(readBotStorage(entries, undefined)).toEqual({ a: '1', ['__proto__']: '2' });
    expect(readBotStorage(entries, ['a'])).toEqual({ a: '1' });
    expect(() => readBotStorage(entries, ['b'])).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }) as unknown as Error);
  });
});

describe('code playgrounds', () => {
  const admin: Actor = { user_id: 2, email: 'a@x', full_name: 'A', role: ROLE.administrator, is_bot: false, client: 'test' };
  const member: Actor = { ...admin, user_id: 4, role: ROLE.member };
  const add = deciderSpec<PlaygroundsState, { actor: Actor; url_template: string; name?: string }>({
    initial: initialPlaygrounds,
    evolve: evolvePlaygrounds,
    decide: (cmd, state) =>
      decideAddPlayground(state, {
        actor: cmd.actor,
        name: cmd.name ?? 'Godbolt',
        lexer_language: 'c',
        url_template: cmd.url_template,
        parsed_template: parseUrlTemplate(cmd.url_template),
      }).facts,
  });
  const remove = deciderSpec<PlaygroundsState, { actor: Actor; id: number }>({
    initial: initialPlaygrounds,
    evolve: evolvePlaygrounds,
    decide: (cmd, state) => decideRemovePlayground(state, { actor: cmd.actor, playground_id: cmd.id }),
  });
  const godbolt = { id: 1, name: 'Godbolt', lexer_language: 'c', url_template: 'https://godbolt.org/z?code={code}' };
  const first: Fact = { type: 'PlaygroundAdded', playground: godbolt, playgrounds: [godbolt], audience: 'active_users' };

  it('adds a playground with the next id and the whole list after it', () => {
    const rust = { id: 2, name: 'Rust', lexer_language: 'c', url_template: 'https://play.rust-lang.org/{?code}' };
    add.given([first]).when({ actor: admin, name: 'Rust', url_template: rust.url_template }).then([
      { type: 'PlaygroundAdded', playground: rust, playgrounds: [godbolt, rust], audience: 'active_users' },
    ]);
  });
  it.each(['https://x/{code', 'https://x/{other}', 'https://x/{code}{x}', 'https://x/', 'https://x/}{code}', 'ftp://x/{code}', '{code}'])(
    'refuses the template %s',
    (url_template) => add.given([]).when({ actor: admin, url_template }).thenThrows({ code: 'BAD_REQUEST' }),
  );
  it('refuses non-administrators, a duplicate name for a language, and unknown playgrounds', () => {
    add.given([]).when({ actor: member, url_template: godbolt.url_template }).thenThrows({ code: 'BAD_REQUEST' });
    add.given([first]).when({ actor: admin, url_template: godbolt.url_template }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([first]).when({ actor: member, id: 1 }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([first]).when({ actor: admin, id: 2 }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([first]).when({ actor: admin, id: 1 }).then([{ type: 'PlaygroundRemoved', playground_id: 1, playgrounds: [], audience: 'active_users' }]);
  });
});

describe('video calls', () => {
  it('a Jitsi server gives a fresh 128-bit room each time; none configured is a clear BAD_REQUEST', async () => {
    const provider = videoCallProviderOf({ jitsiServerUrl: 'https://meet.example.org/' })!;
    expect(provider).toBeInstanceOf(JitsiProvider);
    const [a, b] = [await createVideoCall(provider), await createVideoCall(provider)];
    expect(a.url).toMatch(/^https:\/\/meet\.example\.org\/[0-9a-f]{32}$/);
    expect(a.url).not.toBe(b.url);
    expect(videoCallProviderOf({ jitsiServerUrl: undefined })).toBeUndefined();
    await expect(createVideoCall(undefined)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
