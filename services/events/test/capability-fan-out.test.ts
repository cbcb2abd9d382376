/**
 * Event forms chosen by a queue's client capabilities, for the facts of muted users and
 * custom emoji: each form checked against its client-event schema, with and without the
 * capability.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, type Fact, type StoredRealmEmoji } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import type { QueueOptions } from '../src/domain/event-queue';
import { deliveriesFor } from '../src/projections/fan-out';

const stored = (data: Fact): StoredFact => ({ id: 'fact-1', stream: 's', revision: 0, position: 42, type: data.type, data, metadata: {}, created: 1_700_000_000_000 });

const options = (extra: Partial<QueueOptions> = {}): QueueOptions => ({
  user_id: 4,
  event_types: null,
  apply_markdown: true,
  client_gravatar: true,
  empty_topic_name: false,
  narrow: [],
  ...extra,
});

function delivered(fact: Fact, extra: Partial<QueueOptions> = {}) {
  return deliveriesFor(stored(fact), { apiKeyOf: (salt) => `key-of-${salt}` }).map((d) => {
    const event = d.eventFor({ id: 'q', options: options(extra) });
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

const emoji = (id: string, name: string, deactivated = false): StoredRealmEmoji => ({
  id,
  name,
  source_url: `/user_avatars/2/emoji/images/${id}.png`,
  deactivated,
  author_id: 4,
  blob_key: `emoji/${id}`,
  content_type: 'image/png',
});
const api = (e: StoredRealmEmoji) => ({ id: e.id, name: e.name, source_url: e.source_url, still_url: null, deactivated: e.deactivated, author_id: e.author_id });

describe('custom emoji changes by the individual_emoji_changes capability', () => {
  const party = emoji('1', 'party');
  const cake = emoji('2', 'cake');
  const added: Fact = { type: 'RealmEmojiAdded', emoji: cake, realm_emoji: [party, cake], audience_user_ids: [1, 4] };
  const deactivated: Fact = { type: 'RealmEmojiDeactivated', emoji_id: '1', realm_emoji: [{ ...party, deactivated: true }, cake], audience_user_ids: [1, 4] };

  it('gives clients without it the whole set after each change (realm_emoji update)', () => {
    expect(delivered(added)).toEqual([{ user_ids: [1, 4], event: { type: 'realm_emoji', op: 'update', realm_emoji: { 1: api(party), 2: api(cake) } } }]);
    expect(delivered(deactivated)).toEqual([
      { user_ids: [1, 4], event: { type: 'realm_emoji', op: 'update', realm_emoji: { 1: api({ ...party, deactivated: true }), 2: api(cake) } } },
    ]);
  });

  it('gives clients with it the one emoji added (add) and the one property changed (update_one)', () => {
    expect(delivered(added, { individual_emoji_changes: true })).toEqual([{ user_ids: [1, 4], event: { type: 'realm_emoji', op: 'add', emoji: api(cake) } }]);
    expect(delivered(deactivated, { individual_emoji_changes: true })).toEqual([
      { user_ids: [1, 4], event: { type: 'realm_emoji', op: 'update_one', emoji_id: '1', data: { deactivated: true } } },
    ]);
  });
});

describe('muted users', () => {
  it("tells only the muting user's queues, with the whole list after the change", () => {
    const list = [{ id: 7, timestamp: 100 }, { id: 9, timestamp: 200 }];
    expect(delivered({ type: 'UserMuted', user_id: 4, muted_user_id: 9, timestamp: 200, muted_users: list })).toEqual([
      { user_ids: [4], event: { type: 'muted_users', muted_users: list } },
    ]);
    expect(delivered({ type: 'UserUnmuted', user_id: 4, muted_user_id: 7, muted_users: [{ id: 9, timestamp: 200 }] })).toEqual([
      { user_ids: [4], event: { type: 'muted_users', muted_users: [{ id: 9, timestamp: 200 }] } },
    ]);
  });
});

describe('deletions by the bulk_message_deletion capability', () => {
  const deleted: Fact = { type: 'MessageDeleted', message_id: 42, deleted_by: 4, channel_id: 10, topic: 'greetings', audience_user_ids: [1, 4] };
  const deletedDirect: Fact = { type: 'MessageDeleted', message_id: 43, deleted_by: 4, channel_id: null, topic: null, audience_user_ids: [1, 4] };
  // What the queue of user 4 (who loses sight of the moved messages) receives.
  const events = (fact: Fact, extra: Partial<QueueOptions> = {}) => delivered(fact, extra).flatMap((d) => (d.event && d.user_ids.includes(4) ? [d.event] : []));
  const moved: Fact = {
    type: 'MessageEdited',
    message_id: 42,
    editor_id: 1,
    timestamp: 1_700_000_100,
    content: null,
    move: { prev_channel_id: 10, channel_id: 11, channel_name: 'secret', prev_topic: '', topic: '', propagate_mode: 'change_all', message_ids: [44, 42, 43], recipient_id: 9, revoked_user_ids: [4] },
    audience_user_ids: [1, 4],
  };

  it('gives clients with it one event naming every message (message_ids)', () => {
    expect(events(deleted, { bulk_message_deletion: true })).toEqual([{ type: 'delete_message', message_ids: [42], message_type: 'stream', stream_id: 10, topic: 'greetings' }]);
    expect(events(deletedDirect, { bulk_message_deletion: true })).toEqual([{ type: 'delete_message', message_ids: [43], message_type: 'private' }]);
    expect(events(moved, { bulk_message_deletion: true, empty_topic_name: true })).toEqual([
      { type: 'delete_message', message_ids: [42, 43, 44], message_type: 'stream', stream_id: 10, topic: '' },
    ]);
  });

  it('gives clients without it one event per message (message_id), in id order, the empty topic shown by its display name', () => {
    expect(events(deleted)).toEqual([{ type: 'delete_message', message_id: 42, message_type: 'stream', stream_id: 10, topic: 'greetings' }]);
    expect(events(deletedDirect)).toEqual([{ type: 'delete_message', message_id: 43, message_type: 'private' }]);
    const topic = 'general chat';
    expect(events(moved)).toEqual([42, 43, 44].map((message_id) => ({ type: 'delete_message', message_id, message_type: 'stream', stream_id: 10, topic })));
  });

  it('shares each form among the queues that see it alike', () => {
    const [bulk, single] = deliveriesFor(stored(deleted), { apiKeyOf: (salt) => `key-of-${salt}` });
    const q = (id: string, extra: Partial<QueueOptions>) => ({ id, options: options(extra) });
    expect(bulk!.eventFor(q('a', { bulk_message_deletion: true }))).toBe(bulk!.eventFor(q('b', { bulk_message_deletion: true })));
    expect(single!.eventFor(q('a', {}))).toBe(single!.eventFor(q('b', {})));
    expect(single!.eventFor(q('a', { bulk_message_deletion: true }))).toBeNull();
  });
});

describe('linkifier changes by the linkifier_url_template capability', () => {
  const linkifiers = [{ id: 3, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' }];
  const added: Fact = { type: 'LinkifierAdded', linkifier: linkifiers[0]!, linkifiers, audience_user_ids: [1, 4] };

  it('gives clients with it the whole list as realm_linkifiers', () => {
    expect(delivered(added, { linkifier_url_template: true })).toEqual([{ user_ids: [1, 4], event: { type: 'realm_linkifiers', realm_linkifiers: linkifiers } }]);
  });

  it('gives clients without it nothing, and no one the legacy realm_filters', () => {
    expect(delivered(added).map((d) => d.event)).toEqual([null]);
  });
});
