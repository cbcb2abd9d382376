/** Given facts / when command / then facts for custom emoji (domain/realm-emoji.ts). */
import { describe, it } from '@jest/globals';
import { ROLE, type Actor, type Fact, type StoredRealmEmoji } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideAddRealmEmoji, decideDeactivateRealmEmoji, evolveRealmEmoji, initialRealmEmoji, type RealmEmojiState } from '../src/domain/realm-emoji';

const KEY = 'abcdefghijklmnopqrstuvwx';
const member: Actor = { user_id: 7, role: ROLE.member, client: 'test', email: 'u7@example.com', full_name: 'U', is_bot: false };
const member2: Actor = { user_id: 8, role: ROLE.member, client: 'test', email: 'u8@example.com', full_name: 'U', is_bot: false };
const admin: Actor = { user_id: 2, role: ROLE.administrator, client: 'test', email: 'u2@example.com', full_name: 'U', is_bot: false };
const png = { blob_key: `emoji/${KEY}`, name: 'p.png', size: 10, content_type: 'image/png' };
const emoji = (id: number, name: string, over: Partial<StoredRealmEmoji> = {}): StoredRealmEmoji => ({
  id: String(id),
  name,
  source_url: `/user_avatars/2/emoji/images/${KEY}.png`,
  deactivated: false,
  author_id: 7,
  blob_key: `emoji/${KEY}`,
  content_type: 'image/png',
  ...over,
});
const added = (e: StoredRealmEmoji, all: StoredRealmEmoji[]): Fact => ({ type: 'RealmEmojiAdded', emoji: e, realm_emoji: all, audience: 'active_users' });
const spec = <C>(decide: (state: RealmEmojiState, cmd: C) => Fact[]) =>
  deciderSpec<RealmEmojiState, C>({ initial: initialRealmEmoji, evolve: evolveRealmEmoji, decide: (cmd, state) => decide(state, cmd) });

describe('adding', () => {
  type Cmd = { actor?: Actor; name: string; file?: typeof png; may_add?: boolean };
  const add = spec((state, cmd: Cmd) =>
    decideAddRealmEmoji(state, {
      actor: cmd.actor ?? member,
      emoji_name: cmd.name,
      file: cmd.file ?? png,
      may_add: cmd.may_add ?? true,
      maxBytes: 100,
      maxMib: 1,
    }),
  );
  it('adds it with the next id, its URL from the stored key, told to the active users', () =>
    add.given([added(emoji(1, 'a'), [emoji(1, 'a')])]).when({ name: 'party_parrot' }).then([added(emoji(2, 'party_parrot'), [emoji(1, 'a'), emoji(2, 'party_parrot')])]));
  it('refuses who the setting leaves out', () => add.given([]).when({ name: 'x', may_add: false }).thenThrows({ msg: 'Insufficient permission' }));
  it('refuses bad names', () => {
    add.given([]).when({ name: '' }).thenThrows({ msg: 'Emoji name is missing' });
    for (const name of ['Upper', 'sp ace', 'dot.x', 'ümlaut']) add.given([]).when({ name }).thenThrows({ msg: 'Invalid characters in emoji name' });
    for (const name of ['end_', 'end-']) add.given([]).when({ name }).thenThrows({ msg: 'Emoji names must end with either a letter or digit.' });
    add.given([]).when({ name: 'x'.repeat(61) }).thenThrows({ msg: /too long/ });
  });
  it('refuses an active name, but not a deactivated one', () => {
    add.given([added(emoji(1, 'a'), [emoji(1, 'a')])]).when({ name: 'a' }).thenThrows({ msg: 'A custom emoji with this name already exists.' });
    add
      .given([added(emoji(1, 'a'), [emoji(1, 'a')]), { type: 'RealmEmojiDeactivated', emoji_id: '1', realm_emoji: [emoji(1, 'a', { deactivated: true })], audience: 'active_users' }])
      .when({ name: 'a' })
      .then([added(emoji(2, 'a'), [emoji(1, 'a', { deactivated: true }), emoji(2, 'a')])]);
  });
  it('refuses what is not a raster image, and an oversized one', () => {
    add.given([]).when({ name: 'x', file: { ...png, content_type: 'text/plain; charset=utf-8' } }).thenThrows({ msg: 'Invalid image format' });
    add.given([]).when({ name: 'x', file: { ...png, size: 101 } }).thenThrows({ msg: /1 MiB/ });
    add.given([]).when({ name: 'x', file: { ...png, blob_key: `uploads/0a/${KEY}` } }).thenThrows({ msg: 'Invalid upload' });
  });
});

describe('deactivating', () => {
  const remove = spec((state, cmd: { actor: Actor; name: string; may_add?: boolean }) =>
    decideDeactivateRealmEmoji(state, { actor: cmd.actor, emoji_name: cmd.name, may_add: cmd.may_add ?? true }),
  );
  const given = [added(emoji(1, 'a'), [emoji(1, 'a')])];
  const deactivated: Fact = { type: 'RealmEmojiDeactivated', emoji_id: '1', realm_emoji: [emoji(1, 'a', { deactivated: true })], audience: 'active_users' };
  it('its author deactivates it', () => remove.given(given).when({ actor: member, name: 'a' }).then([deactivated]));
  it('an administrator deactivates anyone’s', () => remove.given(given).when({ actor: admin, name: 'a', may_add: false }).then([deactivated]));
  it('nobody else, nor an author no longer allowed to add emoji', () => {
    remove.given(given).when({ actor: member2, name: 'a' }).thenThrows({ msg: 'Must be an organization administrator or emoji author' });
    remove.given(given).when({ actor: member, name: 'a', may_add: false }).thenThrows({ msg: 'Must be an organization administrator or emoji author' });
  });
  it('refuses an unknown or already deactivated emoji', () => {
    remove.given(given).when({ actor: admin, name: 'b' }).thenThrows({ msg: "Emoji 'b' does not exist" });
    remove.given([...given, deactivated]).when({ actor: admin, name: 'a' }).thenThrows({ msg: "Emoji 'a' does not exist" });
  });
});
