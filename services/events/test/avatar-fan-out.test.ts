/**
 * Avatars in the fan-out: an avatar change is a `realm_user` update to the fact's audience
 * (the same URLs whatever the queue's client_gravatar), and the senders' avatars the
 * fan-out learned (AvatarBook) go into their message events; the book keeps the newer of
 * two versions, as a replay may bring an older fact after the startup seed.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, gravatarUrl, type Fact, type FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { EventQueue } from '../src/domain/event-queue';
import { AvatarBook } from '../src/projections/avatar-book';
import { deliveriesFor } from '../src/projections/fan-out';

const KEY = 'abcdefghijklmnopqrstuvwx';
const stored = (data: Fact, position = 9): StoredFact => ({ id: `f-${position}`, stream: 's', revision: 0, position, type: data.type, data, metadata: {}, created: 0 });
const changed = (version: number, source: 'G' | 'U' = 'U'): FactOf<'UserAvatarChanged'> => ({
  type: 'UserAvatarChanged',
  user_id: 4,
  email: 'mark@acme.example',
  avatar_source: source,
  avatar_version: version,
  avatar_file: source === 'U' ? { blob_key: `avatars/${KEY}`, file_name: `${KEY}.png`, content_type: 'image/png' } : null,
  audience_user_ids: [1, 4, 6],
});
const sent: FactOf<'MessageSent'> = {
  type: 'MessageSent',
  sender_id: 4,
  sender_email: 'mark@acme.example',
  sender_full_name: 'Mark',
  recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'hi' },
  content: 'hi',
  rendered_content: '<p>hi</p>',
  is_me_message: false,
  client: 'website',
  recipient_id: 7,
  timestamp: 1_700_000_000,
  recipient_user_ids: [1, 4],
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: null,
};
const queue = (clientGravatar: boolean) =>
  new EventQueue('q', { user_id: 1, event_types: null, apply_markdown: true, client_gravatar: clientGravatar, empty_topic_name: false, narrow: [] });

function eventsOf(fact: Fact, ctx: Parameters<typeof deliveriesFor>[1], clientGravatar: boolean) {
  return deliveriesFor(stored(fact), ctx).map((d) => {
    const event = d.eventFor(queue(clientGravatar));
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

describe('an avatar change', () => {
  it('is a realm_user update with the URLs, to the audience, for every form of queue', () => {
    for (const clientGravatar of [false, true]) {
      expect(eventsOf(changed(2), { apiKeyOf: String }, clientGravatar)).toEqual([
        {
          user_ids: [1, 4, 6],
          event: {
            type: 'realm_user',
            op: 'update',
            person: { user_id: 4, avatar_url: `/user_avatars/2/${KEY}.png?version=2`, avatar_source: 'U', avatar_url_medium: `/user_avatars/2/${KEY}-medium.png?version=2`, avatar_version: 2 },
          },
        },
      ]);
    }
    const removed = eventsOf(changed(3, 'G'), { apiKeyOf: String }, true)[0]!.event as unknown as { person: Record<string, unknown> };
    expect(removed.person).toEqual({ user_id: 4, avatar_url: gravatarUrl('mark@acme.example', 3), avatar_source: 'G', avatar_url_medium: gravatarUrl('mark@acme.example', 3), avatar_version: 3 });
  });

  it("of a bot is also a realm_bot update to the bot's administrators", () => {
    const events = eventsOf({ ...changed(2), bot_audience_user_ids: [1] }, { apiKeyOf: String }, false);
    expect(events[1]).toEqual({ user_ids: [1], event: { type: 'realm_bot', op: 'update', bot: { user_id: 4, avatar_url: `/user_avatars/2/${KEY}.png?version=2` } } });
    expect(events).toHaveLength(2);
  });

  it('a bot shown to a new administrator comes with the avatar it changed to', () => {
    const ctx = { apiKeyOf: String, avatars: new AvatarBook() };
    eventsOf(changed(2), ctx, false);
    const settings = { default_sending_stream_id: null, default_sending_stream: null, default_events_register_stream_id: null, default_events_register_stream: null, default_all_public_streams: false, services: [] };
    const promoted: FactOf<'UserRoleChanged'> = {
      type: 'UserRoleChanged',
      user_id: 1,
      role: 200,
      old_role: 400,
      audience_user_ids: [1],
      bots_shown: [{ user_id: 4, email: 'mark@acme.example', full_name: 'Bot', bot_type: 1, is_active: true, owner_id: 6, api_key_salt: 'salt', bot_settings: settings }],
    };
    const added = eventsOf(promoted, ctx, false).find((d) => d.event?.type === 'realm_bot')!.event as unknown as { bot: { avatar_url: string } };
    expect(added.bot.avatar_url).toBe(`/user_avatars/2/${KEY}.png?version=2`);
  });

  it("teaches the book, so that the sender's next message carries the upload, even with client_gravatar", () => {
    const ctx = { apiKeyOf: String, avatars: new AvatarBook() };
    const avatarOf = (clientGravatar: boolean) => (eventsOf(sent, ctx, clientGravatar)[0]!.event as unknown as { message: { avatar_url: string | null } }).message.avatar_url;
    expect([avatarOf(false), avatarOf(true)]).toEqual([gravatarUrl('mark@acme.example'), null]);
    eventsOf(changed(2), ctx, false);
    expect([avatarOf(false), avatarOf(true)]).toEqual([`/user_avatars/2/${KEY}.png?version=2`, `/user_avatars/2/${KEY}.png?version=2`]);
    eventsOf(changed(3, 'G'), ctx, false);
    expect([avatarOf(false), avatarOf(true)]).toEqual([gravatarUrl('mark@acme.example', 3), null]);
  });
});

describe('the avatar book', () => {
  it('keeps the newer version when an older one comes after it', () => {
    const book = new AvatarBook();
    book.record(4, { avatar_source: 'G', avatar_version: 3 });
    book.record(4, { avatar_source: 'U', avatar_version: 2, avatar_file_name: `${KEY}.png` });
    expect(book.of(4)).toEqual({ avatar_source: 'G', avatar_version: 3 });
    book.record(4, { avatar_source: 'U', avatar_version: 4, avatar_file_name: `${KEY}.png` });
    expect(book.of(4)?.avatar_version).toBe(4);
    expect(book.of(5)).toBeUndefined();
  });
});
