/** Given facts / when command / then facts for a person's own avatar (domain/avatar.ts). */
import { describe, expect, it } from '@jest/globals';
import { avatarUrlOf, gravatarUrl, shownAvatarUrl, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { AVATAR_CHANGES_DISABLED, decideDeleteAvatar, decideSetAvatar, evolveAvatar, initialAvatar, type AvatarAggregate, type SetAvatar } from '../src/domain/avatar';

const KEY = 'abcdefghijklmnopqrstuvwx';
const KEY2 = 'ABCDEFGHIJKLMNOPQRSTUVWX';
const png = { blob_key: `avatars/${KEY}`, name: 'me.png', size: 10, content_type: 'image/png', image: { width: 64, height: 64 } };
const base = { user_id: 7, email: 'u7@example.com', may_change: true };
const uploaded = (version: number, key = KEY, ext = 'png', type = 'image/png'): Fact => ({
  type: 'UserAvatarChanged',
  user_id: 7,
  email: 'u7@example.com',
  avatar_source: 'U',
  avatar_version: version,
  avatar_file: { blob_key: `avatars/${key}`, file_name: `${key}.${ext}`, content_type: type },
  audience: 'active_users',
});
const removed = (version: number): Fact => ({ type: 'UserAvatarChanged', user_id: 7, email: 'u7@example.com', avatar_source: 'G', avatar_version: version, avatar_file: null, audience: 'active_users' });

const spec = <C>(decide: (state: AvatarAggregate, cmd: C) => Fact[]) =>
  deciderSpec<AvatarAggregate, C>({ initial: initialAvatar, evolve: evolveAvatar, decide: (cmd, state) => decide(state, cmd) });

describe('uploading', () => {
  const set = spec((state, cmd: Partial<SetAvatar>) => decideSetAvatar(state, { ...base, file: png, maxBytes: 100, maxMib: 1, ...cmd }));
  it('records the file by its key (never its bytes), as version 2, told to everyone who sees the person', () => set.given([]).when({}).then([uploaded(2)]));
  it('counts every change: a new upload after a removal is the next version', () =>
    set.given([uploaded(2), removed(3)]).when({ file: { ...png, blob_key: `avatars/${KEY2}`, content_type: 'image/jpeg' } }).then([uploaded(4, KEY2, 'jpg', 'image/jpeg')]));
  it('takes the four raster types the gateway sniffs, with their extensions', () => {
    for (const [type, ext] of [['image/png', 'png'], ['image/jpeg', 'jpg'], ['image/gif', 'gif'], ['image/webp', 'webp']] as const) {
      set.given([]).when({ file: { ...png, content_type: type } }).then([uploaded(2, KEY, ext, type)]);
    }
  });
  it('refuses what the bytes say is not an image (SVG and HTML sniff as text), whatever the name', () => {
    for (const content_type of ['text/plain; charset=utf-8', 'application/octet-stream', 'application/pdf', 'image/svg+xml']) {
      set.given([]).when({ file: { ...png, content_type } }).thenThrows({ msg: 'Could not decode image; did you upload an image file?' });
    }
  });
  it('refuses a picture whose header the gateway could not read, and one of more pixels than Zulip takes', () => {
    const { image: _none, ...broken } = png;
    set.given([]).when({ file: broken }).thenThrows({ msg: 'Could not decode image; did you upload an image file?' });
    set.given([]).when({ file: { ...png, image: { width: 10_000, height: 9_001 } } }).thenThrows({ msg: 'Image size exceeds limit.' });
    set.given([]).when({ file: { ...png, image: { width: 10_000, height: 9_000 } } }).then([uploaded(2)]);
    // A JPEG whose frame header is past what the gateway read: well formed, size unknown.
    set.given([]).when({ file: { ...png, content_type: 'image/jpeg', image: {} } }).then([uploaded(2, KEY, 'jpg', 'image/jpeg')]);
  });
  it('refuses a file over the limit, and one the gateway did not store as an avatar', () => {
    set.given([]).when({ file: { ...png, size: 101 } }).thenThrows({ msg: 'Uploaded file is larger than the allowed limit of 1 MiB' });
    for (const blob_key of [`emoji/${KEY}`, `uploads/0a/${KEY}`, 'avatars/short', `avatars/${KEY}/x`]) set.given([]).when({ file: { ...png, blob_key } }).thenThrows({ msg: 'Invalid upload' });
  });
  it("a bot's change names its administrators too, for the realm_bot update", () =>
    set.given([]).when({ bot_audience_user_ids: [2] }).then([{ ...uploaded(2), bot_audience_user_ids: [2] } as Fact]));
  it('refuses a person the organization does not let change it', () =>
    set.given([uploaded(2)]).when({ may_change: false }).thenThrows({ msg: AVATAR_CHANGES_DISABLED }));
});

describe('removing', () => {
  const remove = spec((state, cmd: { may_change?: boolean }) => decideDeleteAvatar(state, { ...base, ...cmd }));
  it('goes back to the provider with the next version, the file no longer named', () => remove.given([uploaded(2)]).when({}).then([removed(3)]));
  it('a person who never uploaded one gets a new version all the same (as Zulip)', () => remove.given([]).when({}).then([removed(2)]));
  it('refuses a person the organization does not let change it', () => remove.given([uploaded(2)]).when({ may_change: false }).thenThrows({ msg: AVATAR_CHANGES_DISABLED }));
});

describe('avatar URLs', () => {
  const avatar = { avatar_source: 'U' as const, avatar_version: 3, avatar_file_name: `${KEY}.png` };
  it('an upload is served under the organization, its version busting caches; medium names the same picture', () => {
    expect(avatarUrlOf('u7@example.com', avatar)).toBe(`/user_avatars/2/${KEY}.png?version=3`);
    expect(avatarUrlOf('u7@example.com', avatar, true)).toBe(`/user_avatars/2/${KEY}-medium.png?version=3`);
  });
  it('otherwise the provider, with the version of the last change', () => {
    expect(avatarUrlOf('u7@example.com', undefined)).toBe(gravatarUrl('u7@example.com'));
    expect(avatarUrlOf('u7@example.com', { avatar_source: 'G', avatar_version: 4 })).toBe(gravatarUrl('u7@example.com', 4));
    expect(gravatarUrl('u7@example.com', 4)).toMatch(/version=4$/);
  });
  it('client_gravatar leaves out only the URLs a client can compute', () => {
    expect(shownAvatarUrl('u7@example.com', avatar, true)).toBe(`/user_avatars/2/${KEY}.png?version=3`);
    expect(shownAvatarUrl('u7@example.com', { avatar_source: 'G', avatar_version: 4 }, true)).toBeNull();
    expect(shownAvatarUrl('u7@example.com', undefined, true)).toBeNull();
    expect(shownAvatarUrl('u7@example.com', undefined, false)).toBe(gravatarUrl('u7@example.com'));
  });
});
