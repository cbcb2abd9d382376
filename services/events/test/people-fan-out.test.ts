/**
 * The fan-out of people's facts: who gets which `realm_user`, `realm_bot` and system
 * `user_group` event, each event checked against its client-event schema.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, SYSTEM_GROUP, type Fact, type FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import type { QueueOptions } from '../src/domain/event-queue';
import { deliveriesFor } from '../src/projections/fan-out';

const ctx = { apiKeyOf: (salt: string) => `key-of-${salt}` };

const stored = (data: Fact): StoredFact => ({
  id: 'fact-1',
  stream: 'organization',
  revision: 0,
  position: 7,
  type: data.type,
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

const options = (extra: Partial<QueueOptions> = {}) =>
  ({
    user_id: 1,
    event_types: null,
    apply_markdown: true,
    client_gravatar: false,
    empty_topic_name: true,
    include_deactivated_groups: false,
    narrow: [],
    ...extra,
  }) as unknown as QueueOptions;

function delivered(fact: Fact, extra: Partial<QueueOptions> = {}) {
  return deliveriesFor(stored(fact), ctx).map((d) => {
    const event = d.eventFor({ id: 'q', options: options(extra) });
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

const SETTINGS = {
  default_sending_stream_id: 10,
  default_sending_stream: 'general',
  default_events_register_stream_id: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  services: [],
};

const created = (extra: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> => ({
  type: 'UserCreated',
  user_id: 9,
  email: 'nine@acme.example',
  full_name: 'Nine',
  role: 400,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  timezone: 'UTC',
  date_joined: 1_700_000_000,
  api_key_salt: 'salt-9',
  api_key_hash: 'hash-9',
  audience_user_ids: [1, 2, 9],
  ...extra,
});

describe('the fan-out of people facts', () => {
  it('announces a new user to the audience, as a person and a member of the role group', () => {
    const [person, group] = delivered(created());
    expect(person).toEqual({
      user_ids: [1, 2, 9],
      event: expect.objectContaining({ type: 'realm_user', op: 'add', person: expect.objectContaining({ user_id: 9, role: 400, is_active: true, avatar_url: expect.any(String) }) }),
    });
    expect(group).toEqual({ user_ids: [1, 2, 9], event: { type: 'user_group', op: 'add_members', group_id: SYSTEM_GROUP.fullmembers, user_ids: [9] } });
  });

  it('leaves the avatar URL to clients that compute Gravatar URLs', () => {
    expect((delivered(created(), { client_gravatar: true })[0]!.event as any).person.avatar_url).toBeNull();
  });

  it('gives a new bot, with its derived key, to its owner and the administrators only', () => {
    const deliveries = delivered(created({ is_bot: true, bot_type: 1, bot_owner_id: 4, bot_audience_user_ids: [1, 4], bot_settings: SETTINGS }));
    expect(deliveries.map((d) => d.event!.type)).toEqual(['realm_user', 'user_group', 'realm_bot']);
    expect(deliveries[2]).toEqual({
      user_ids: [1, 4],
      event: {
        type: 'realm_bot',
        op: 'add',
        bot: expect.objectContaining({ user_id: 9, api_key: 'key-of-salt-9', owner_id: 4, default_sending_stream: 'general' }),
      },
    });
    expect(JSON.stringify(deliveries.slice(0, 2))).not.toContain('key-of');
  });

  it('announces nothing for facts stored before they carried audiences', () => {
    const { audience_user_ids: _a, ...old } = created();
    expect(delivered(old as Fact)).toEqual([]);
    expect(delivered({ type: 'UserDeactivated', user_id: 9 })).toEqual([]);
  });

  it('moves a user between system groups on a role change', () => {
    expect(delivered({ type: 'UserRoleChanged', user_id: 9, role: 200, old_role: 400, audience_user_ids: [1, 9] }).map((d) => d.event)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: 9, role: 200 } },
      { type: 'user_group', op: 'remove_members', group_id: SYSTEM_GROUP.fullmembers, user_ids: [9] },
      { type: 'user_group', op: 'add_members', group_id: SYSTEM_GROUP.administrators, user_ids: [9] },
    ]);
  });

  it("shows a new administrator the others' bots, with their keys, and hides them from one who is no more", () => {
    const shown = delivered({
      type: 'UserRoleChanged',
      user_id: 9,
      role: 200,
      old_role: 400,
      audience_user_ids: [1, 9],
      bots_shown: [{ user_id: 7, email: 'bot@acme.example', full_name: 'Bot', bot_type: 1, is_active: true, owner_id: 4, api_key_salt: 'salt-7', bot_settings: SETTINGS }],
    });
    expect(shown[1]).toEqual({
      user_ids: [9],
      event: { type: 'realm_bot', op: 'add', bot: expect.objectContaining({ user_id: 7, owner_id: 4, api_key: 'key-of-salt-7' }) },
    });
    const hidden = delivered({ type: 'UserRoleChanged', user_id: 9, role: 400, old_role: 200, audience_user_ids: [1, 9], bots_hidden: [7] });
    expect(hidden[1]).toEqual({ user_ids: [9], event: { type: 'realm_bot', op: 'delete', bot: { user_id: 7 } } });
  });

  it('announces deactivation and reactivation, with the groups rejoined, and a bot\'s to its owner', () => {
    expect(delivered({ type: 'UserDeactivated', user_id: 7, audience_user_ids: [1], bot_audience_user_ids: [1, 4] })).toEqual([
      { user_ids: [1], event: { type: 'realm_user', op: 'update', person: { user_id: 7, is_active: false } } },
      { user_ids: [1, 4], event: { type: 'realm_bot', op: 'update', bot: { user_id: 7, is_active: false } } },
    ]);
    expect(delivered({ type: 'UserReactivated', user_id: 9, audience_user_ids: [1, 9], group_ids: [4, 12] }).map((d) => d.event)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: 9, is_active: true } },
      { type: 'user_group', op: 'add_members', group_id: 4, user_ids: [9] },
      { type: 'user_group', op: 'add_members', group_id: 12, user_ids: [9] },
    ]);
  });

  it('hands a bot over: the old owner sees it go, the new one gets it whole, everyone the new owner', () => {
    const fact: Fact = {
      type: 'BotOwnerChanged',
      user_id: 7,
      bot_owner_id: 6,
      old_owner_id: 4,
      audience_user_ids: [1, 2, 4, 6, 7],
      bot_audience_user_ids: [1, 6],
      bot: { email: 'bot@acme.example', full_name: 'Bot', bot_type: 1, is_active: true, api_key_salt: 'salt-7' },
      bot_settings: SETTINGS,
    };
    expect(delivered(fact).map((d) => [d.user_ids, (d.event as any).type, (d.event as any).op])).toEqual([
      [[1, 2, 4, 6, 7], 'realm_user', 'update'],
      [[4], 'realm_bot', 'delete'],
      [[6], 'realm_bot', 'add'],
      [[1, 6], 'realm_bot', 'update'],
    ]);
    expect((delivered(fact)[2]!.event as any).bot).toMatchObject({ user_id: 7, owner_id: 6, api_key: 'key-of-salt-7' });
  });

  it('tells a new key and changed defaults to the owner and administrators, never the channel ids', () => {
    expect(delivered({ type: 'BotApiKeyRegenerated', user_id: 7, api_key_salt: 'new', api_key_hash: 'h', bot_audience_user_ids: [1, 4] })).toEqual([
      { user_ids: [1, 4], event: { type: 'realm_bot', op: 'update', bot: { user_id: 7, api_key: 'key-of-new' } } },
    ]);
    expect(
      delivered({ type: 'BotSettingsChanged', user_id: 7, changes: { default_sending_stream_id: 10, default_sending_stream: 'general' }, bot_audience_user_ids: [1] }),
    ).toEqual([{ user_ids: [1], event: { type: 'realm_bot', op: 'update', bot: { user_id: 7, default_sending_stream: 'general' } } }]);
  });

  it('never announces a password', () => {
    expect(delivered({ type: 'UserPasswordSet', user_id: 9, password_hash: 'scrypt$...' })).toEqual([]);
  });
});
