import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ClientEvent, EVENT_TYPE_OWNERS, isKnownEventType, ROLE, SPEC_EVENT_TYPES, type Actor, type SpecEventType } from '@teamchat/contracts';
import { AUDIENCE, recipientsOf, type AudienceUser, type Organization } from '../src/domain/audience';
import { announce, announceNow } from '../src/projections/announce';
import { QueueRegistry } from '../src/queries/queues';

/**
 * For every event type the spec names: events built to its schema parse, reach exactly
 * the users its audience rule names (through the real queue delivery), and stay out of a
 * queue whose event_types leave the type out.
 */

const OWNER = 1;
const ADMIN = 2;
const BOT_OWNER = 3;
const ACTOR = 4;
const GUEST = 5;
const DEACTIVATED = 6;
const BOT = 9;

const user = (user_id: number, role: number, extra: Partial<AudienceUser> = {}): AudienceUser => ({
  user_id,
  role,
  is_active: true,
  bot_owner_id: null,
  ...extra,
});
const USERS: AudienceUser[] = [
  user(OWNER, ROLE.owner),
  user(ADMIN, ROLE.administrator),
  user(BOT_OWNER, ROLE.member),
  user(ACTOR, ROLE.member),
  user(GUEST, ROLE.guest),
  user(DEACTIVATED, ROLE.member, { is_active: false }),
  user(BOT, ROLE.member, { bot_owner_id: BOT_OWNER }),
];
const EVERYONE_ACTIVE = [OWNER, ADMIN, BOT_OWNER, ACTOR, GUEST, BOT];
const org = (extra: Partial<Organization> = {}): Organization => ({ acting_user_id: ACTOR, users: USERS, ...extra });

const channel = {
  stream_id: 10,
  name: 'general',
  description: '',
  rendered_description: '',
  date_created: 1_700_000_000,
  creator_id: null,
  invite_only: false,
  is_web_public: false,
  history_public_to_subscribers: true,
  message_retention_days: null,
  topics_policy: 'inherit',
  is_archived: false,
  first_message_id: null,
  folder_id: null,
  is_recently_active: true,
  subscriber_count: 1,
  stream_weekly_traffic: null,
  stream_post_policy: 1,
  is_announcement_only: false,
  can_add_subscribers_group: 6,
  can_remove_subscribers_group: 6,
  can_administer_channel_group: 6,
  can_delete_any_message_group: 6,
  can_delete_own_message_group: 2,
  can_move_messages_out_of_channel_group: 6,
  can_move_messages_within_channel_group: 6,
  can_send_message_group: 2,
  can_create_topic_group: 2,
  can_resolve_topics_group: 6,
  can_subscribe_group: { direct_members: [], direct_subgroups: [] },
};
const subscription = {
  ...channel,
  subscribers: [ACTOR],
  color: '#76ce90',
  is_muted: false,
  in_home_view: true,
  pin_to_top: false,
  desktop_notifications: null,
  email_notifications: null,
  wildcard_mentions_notify: null,
  push_notifications: null,
  audible_notifications: null,
};
const message = {
  id: 42,
  sender_id: ACTOR,
  sender_email: 'actor@acme.example',
  sender_full_name: 'Actor',
  sender_realm_str: 'acme',
  avatar_url: null,
  client: 'website',
  content: '<p>hi</p>',
  content_type: 'text/html',
  recipient_id: 7,
  timestamp: 1_700_000_000,
  is_me_message: false,
  reactions: [],
  submessages: [],
  topic_links: [],
  type: 'stream',
  display_recipient: 'general',
  subject: 'greetings',
  stream_id: 10,
};
const draft = { id: 3, type: 'stream', to: [10], topic: 'greetings', content: 'half', timestamp: 1_700_000_000 };
const snippet = { id: 2, title: 'Hello', content: 'Hello **there**', date_created: 1_700_000_000 };
const scheduled = {
  scheduled_message_id: 5,
  type: 'stream',
  to: 10,
  topic: 'greetings',
  content: 'later',
  rendered_content: '<p>later</p>',
  scheduled_delivery_timestamp: 1_700_003_600,
  failed: false,
};
const reminder = {
  reminder_id: 6,
  type: 'private',
  to: [ACTOR],
  content: 'look',
  rendered_content: '<p>look</p>',
  scheduled_delivery_timestamp: 1_700_003_600,
  failed: false,
  reminder_target_message_id: 42,
};
const attachment = { id: 8, name: 'a.png', path_id: '2/ab/a.png', size: 1024, create_time: 1_700_000_000_000, messages: [{ id: 42, date_sent: 1_700_000_000_000 }] };
const bot = {
  user_id: BOT,
  email: 'bot@acme.example',
  full_name: 'Bot',
  bot_type: 1,
  is_active: true,
  api_key: 'key',
  default_sending_stream: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  avatar_url: 'https://example.com/bot.png',
  owner_id: BOT_OWNER,
  services: [],
};
const person = {
  user_id: BOT_OWNER,
  email: 'owner@acme.example',
  delivery_email: null,
  full_name: 'Bot Owner',
  date_joined: '2023-11-14T22:13:20+00:00',
  is_active: true,
  is_owner: false,
  is_admin: false,
  is_guest: false,
  is_bot: false,
  bot_type: null,
  role: ROLE.member,
  timezone: 'UTC',
  avatar_url: null,
  avatar_version: 1,
};
const group = {
  id: 20,
  name: 'support',
  description: '',
  members: [ACTOR],
  direct_subgroup_ids: [],
  is_system_group: false,
  date_created: 1_700_000_000,
  creator_id: ACTOR,
  deactivated: false,
  can_add_members_group: 20,
  can_join_group: 20,
  can_leave_group: 2,
  can_manage_group: 20,
  can_mention_group: 2,
  can_remove_members_group: 20,
};
const folder = { id: 1, name: 'Teams', description: '', rendered_description: '', order: 0, date_created: 1_700_000_000, creator_id: ADMIN, is_archived: false };

interface Case {
  events: unknown[];
  /** The users who must get the events; nobody else may. */
  to: number[];
  org?: Partial<Organization>;
}

/** The guest may not see the bot owner: `realm_user` about them must not reach the guest. */
const guestCannotSeeBotOwner = { may_access: (viewer: number, subject: number) => !(viewer === GUEST && subject === BOT_OWNER) };
/** What the deciding service computed for message, channel and typing events (the deactivated user is dropped). */
const carried = { carried_user_ids: [ACTOR, BOT_OWNER, DEACTIVATED] };
const CARRIED_TO = [BOT_OWNER, ACTOR];

const CASES: Record<SpecEventType, Case> = {
  alert_words: { to: [ACTOR], events: [{ type: 'alert_words', alert_words: ['deploy', 'outage'] }] },
  attachment: {
    to: [ACTOR],
    events: [
      { type: 'attachment', op: 'add', attachment, upload_space_used: 1024 },
      { type: 'attachment', op: 'update', attachment, upload_space_used: 1024 },
      { type: 'attachment', op: 'remove', attachment: { id: 8 }, upload_space_used: 0 },
    ],
  },
  channel_folder: {
    to: EVERYONE_ACTIVE,
    events: [
      { type: 'channel_folder', op: 'add', channel_folder: folder },
      { type: 'channel_folder', op: 'update', channel_folder_id: 1, data: { name: 'Groups', is_archived: true } },
      { type: 'channel_folder', op: 'reorder', order: [2, 1] },
    ],
  },
  device: {
    to: [ACTOR],
    events: [
      { type: 'device', op: 'add', device_id: 1 },
      { type: 'device', op: 'update', device_id: 1, push_key_id: 3, push_token_id: 'tok', push_registration_error_code: null },
      { type: 'device', op: 'remove', device_id: 1 },
    ],
  },
  drafts: {
    to: [ACTOR],
    events: [
      { type: 'drafts', op: 'add', drafts: [draft] },
      { type: 'drafts', op: 'update', draft: { ...draft, content: 'whole' } },
      { type: 'drafts', op: 'remove', draft_id: 3 },
    ],
  },
  has_meeting_token: { to: [ACTOR], events: [{ type: 'has_meeting_token', value: true }] },
  heartbeat: { to: [], events: [{ type: 'heartbeat' }] },
  message: { to: CARRIED_TO, org: carried, events: [{ type: 'message', message, flags: [] }] },
  navigation_view: {
    to: [ACTOR],
    events: [
      { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/starred', is_pinned: true, name: null } },
      { type: 'navigation_view', op: 'update', fragment: 'narrow/is/starred', data: { is_pinned: false } },
      { type: 'navigation_view', op: 'remove', fragment: 'narrow/is/starred' },
    ],
  },
  reaction: {
    to: CARRIED_TO,
    org: carried,
    events: [{ type: 'reaction', op: 'add', message_id: 42, user_id: ACTOR, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' }],
  },
  realm: {
    to: EVERYONE_ACTIVE,
    events: [
      { type: 'realm', op: 'update', property: 'name', value: 'Acme' },
      { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: true, message_content_edit_limit_seconds: null } },
      { type: 'realm', op: 'update_dict', property: 'icon', data: { icon_url: '/icon.png', icon_source: 'U' } },
    ],
  },
  realm_bot: {
    to: [OWNER, ADMIN, BOT_OWNER],
    events: [
      { type: 'realm_bot', op: 'add', bot },
      { type: 'realm_bot', op: 'update', bot: { user_id: BOT, full_name: 'Renamed' } },
      { type: 'realm_bot', op: 'delete', bot: { user_id: BOT } },
    ],
  },
  realm_domains: {
    to: EVERYONE_ACTIVE,
    events: [
      { type: 'realm_domains', op: 'add', realm_domain: { domain: 'acme.example', allow_subdomains: false } },
      { type: 'realm_domains', op: 'change', realm_domain: { domain: 'acme.example', allow_subdomains: true } },
      { type: 'realm_domains', op: 'remove', domain: 'acme.example' },
    ],
  },
  realm_emoji: {
    to: EVERYONE_ACTIVE,
    events: [
      {
        type: 'realm_emoji',
        op: 'update',
        realm_emoji: { '1': { id: '1', name: 'party', source_url: '/e/party.gif', still_url: '/e/still/party.png', deactivated: false, author_id: ACTOR } },
      },
    ],
  },
  realm_user: {
    to: [OWNER, ADMIN, BOT_OWNER, ACTOR, BOT],
    org: guestCannotSeeBotOwner,
    events: [
      { type: 'realm_user', op: 'add', person },
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: BOT_OWNER, avatar_url: '/a.png', avatar_source: 'U', avatar_url_medium: '/a-medium.png', avatar_version: 2 },
      },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, email: 'owner@acme.example', timezone: 'Europe/Paris' } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, delivery_email: null } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, custom_profile_field: { id: 1, value: '*x*', rendered_value: '<p><em>x</em></p>' } } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, new_email: 'user3@acme.example' } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, is_imported_stub: false } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, full_name: 'B. Owner' } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, role: ROLE.moderator } },
      { type: 'realm_user', op: 'update', person: { user_id: BOT_OWNER, is_active: false } },
      { type: 'realm_user', op: 'remove', person: { user_id: BOT_OWNER, full_name: 'Bot Owner' } },
    ],
  },
  realm_user_settings_defaults: {
    to: EVERYONE_ACTIVE,
    events: [{ type: 'realm_user_settings_defaults', op: 'update', property: 'enter_sends', value: true }],
  },
  reminders: {
    to: [ACTOR],
    events: [
      { type: 'reminders', op: 'add', reminders: [reminder] },
      { type: 'reminders', op: 'remove', reminder_id: 6 },
    ],
  },
  saved_snippets: {
    to: [ACTOR],
    events: [
      { type: 'saved_snippets', op: 'add', saved_snippet: snippet },
      { type: 'saved_snippets', op: 'update', saved_snippet: { ...snippet, title: 'Hi' } },
      { type: 'saved_snippets', op: 'remove', saved_snippet_id: 2 },
    ],
  },
  scheduled_messages: {
    to: [ACTOR],
    events: [
      { type: 'scheduled_messages', op: 'add', scheduled_messages: [scheduled] },
      { type: 'scheduled_messages', op: 'update', scheduled_message: { ...scheduled, type: 'private', to: [ADMIN], topic: undefined } },
      { type: 'scheduled_messages', op: 'remove', scheduled_message_id: 5 },
    ].map((e) => JSON.parse(JSON.stringify(e))),
  },
  stream: { to: CARRIED_TO, org: carried, events: [{ type: 'stream', op: 'create', streams: [channel], for_unarchiving: false }] },
  subscription: {
    to: CARRIED_TO,
    org: carried,
    events: [
      { type: 'subscription', op: 'add', subscriptions: [subscription] },
      { type: 'subscription', op: 'remove', subscriptions: [{ stream_id: 10, name: 'general' }] },
      { type: 'subscription', op: 'update', stream_id: 10, property: 'pin_to_top', value: true },
      { type: 'subscription', op: 'peer_add', stream_ids: [10], user_ids: [ADMIN] },
      { type: 'subscription', op: 'peer_remove', stream_ids: [10], user_ids: [ADMIN] },
    ],
  },
  typing: {
    to: CARRIED_TO,
    org: carried,
    events: [{ type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: ACTOR, email: 'actor@acme.example' }, recipients: [] }],
  },
  typing_edit_message: {
    to: CARRIED_TO,
    org: carried,
    events: [{ type: 'typing_edit_message', op: 'start', sender_id: ACTOR, message_id: 42, recipient: { type: 'channel', channel_id: 10, topic: 'greetings' } }],
  },
  update_message_flags: {
    to: [ACTOR],
    events: [{ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [42], all: false }],
  },
  user_group: {
    to: EVERYONE_ACTIVE,
    events: [
      { type: 'user_group', op: 'add', group },
      { type: 'user_group', op: 'update', group_id: 20, data: { name: 'helpdesk', can_mention_group: 20 } },
      { type: 'user_group', op: 'add_members', group_id: 20, user_ids: [ADMIN] },
      { type: 'user_group', op: 'remove_members', group_id: 20, user_ids: [ADMIN] },
      { type: 'user_group', op: 'add_subgroups', group_id: 20, direct_subgroup_ids: [21] },
      { type: 'user_group', op: 'remove_subgroups', group_id: 20, direct_subgroup_ids: [21] },
      { type: 'user_group', op: 'remove', group_id: 20 },
    ],
  },
  user_settings: {
    to: [ACTOR],
    events: [
      { type: 'user_settings', op: 'update', property: 'enter_sends', value: true },
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'fr', language_name: 'French' },
    ],
  },
  user_topic: { to: [ACTOR], events: [{ type: 'user_topic', stream_id: 10, topic_name: 'greetings', last_updated: 1_700_000_000, visibility_policy: 1 }] },
};

const actor = (user_id: number): Actor => ({ user_id, email: `u${user_id}@acme.example`, full_name: 'U', role: ROLE.member, is_bot: false, client: 'test' });

const registries: QueueRegistry[] = [];
afterEach(() => registries.splice(0).forEach((r) => r.close()));

function registry(position: { at: number }) {
  const r = new QueueRegistry({
    heartbeatSeconds: 0.02,
    settings: { maxEvents: 100, maxPerUser: 10, sweepMs: 60_000 },
    checkpoint: () => position.at,
  });
  registries.push(r);
  return r;
}

describe('the spec event types', () => {
  it('are written once, in contracts, and both the audience table and this test cover exactly them', () => {
    const sorted = [...SPEC_EVENT_TYPES].sort();
    expect(Object.keys(AUDIENCE).sort()).toEqual(sorted);
    expect(Object.keys(CASES).sort()).toEqual(sorted);
    expect(new Set(SPEC_EVENT_TYPES).size).toBe(SPEC_EVENT_TYPES.length);
  });

  const spec = '/work/shared/spec/team-chat-api.md';
  // The spec lives beside the repository in development; without it this check has nothing to read.
  (existsSync(spec) ? it : it.skip)("are the spec's list of event types named for the interface", () => {
    const line = readFileSync(spec, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Event types named for the interface:'));
    const named = [...(line ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(named).toEqual([...SPEC_EVENT_TYPES]);
  });

  it('are all accepted by POST /register, with the owners they had before', () => {
    for (const type of SPEC_EVENT_TYPES) expect(isKnownEventType(type)).toBe(true);
    expect(EVENT_TYPE_OWNERS.message).toBe('messaging');
    expect(EVENT_TYPE_OWNERS.stream).toBe('channels');
    expect(EVENT_TYPE_OWNERS.device).toBe('accounts');
    // Accounts answers has_meeting_token (issue 15: video calls) since it knows the provider.
    expect(EVENT_TYPE_OWNERS.has_meeting_token).toBe('accounts');
  });
});

const deliverable = SPEC_EVENT_TYPES.filter((type) => type !== 'heartbeat');

describe.each(deliverable)('event type %s', (type) => {
  const { events, to, org: extra } = CASES[type];

  it('has a strict schema its events are built to', () => {
    for (const event of events) {
      const parsed = ClientEvent.safeParse(event);
      expect(parsed.success ? parsed.data : parsed.error.issues).toEqual(event);
    }
  });

  it('reaches exactly the queues of the users who may see it, and not a queue that left its type out', async () => {
    const position = { at: 0 };
    const r = registry(position);
    const everyone = USERS.map((u) => u.user_id);
    const all = new Map<number, string>();
    const others = new Map<number, string>();
    const otherType = type === 'realm' ? 'message' : 'realm';
    for (const id of everyone) {
      all.set(id, (await r.register(actor(id), {})).queue_id);
      others.set(id, (await r.register(actor(id), { event_types: [otherType] })).queue_id);
    }
    const parsed = events.map((e) => ClientEvent.parse(e));
    for (const event of parsed) {
      position.at++;
      r.deliver(announce(event, org(extra)), position.at);
    }
    for (const id of everyone) {
      const got = (await r.getEvents(actor(id), { queue_id: all.get(id)!, last_event_id: -1, dont_block: true })).events;
      expect({ user: id, events: got.map(({ id: _, ...e }) => e) }).toEqual({ user: id, events: to.includes(id) ? parsed : [] });
      const filtered = (await r.getEvents(actor(id), { queue_id: others.get(id)!, last_event_id: -1, dont_block: true })).events;
      expect({ user: id, events: filtered }).toEqual({ user: id, events: [] });
    }
  });
});

describe('a heartbeat', () => {
  it('goes to no one by delivery, yet every polling queue gets one, whatever its event types', async () => {
    expect(recipientsOf({ type: 'heartbeat' }, org({ carried_user_ids: [ACTOR] }))).toEqual([]);
    const r = registry({ at: 0 });
    const { queue_id } = await r.register(actor(ACTOR), { event_types: ['message'] });
    const { events } = await r.getEvents(actor(ACTOR), { queue_id, last_event_id: -1, dont_block: false });
    expect(events.map((e) => e.type)).toEqual(['heartbeat']);
    expect(ClientEvent.parse({ type: 'heartbeat' })).toEqual({ type: 'heartbeat' });
  });
});

describe('the audience rules', () => {
  const personal: ClientEvent = { type: 'alert_words', alert_words: [] };

  it('send nothing personal for a user who is no longer active', () => {
    expect(recipientsOf(personal, org({ acting_user_id: DEACTIVATED }))).toEqual([]);
  });

  it('need no roster for a personal event or a carried audience', () => {
    expect(recipientsOf(personal, { acting_user_id: ACTOR })).toEqual([ACTOR]);
    const typing = CASES.typing.events[0] as ClientEvent;
    expect(recipientsOf(typing, { acting_user_id: ACTOR, carried_user_ids: [ACTOR, DEACTIVATED] })).toEqual([ACTOR, DEACTIVATED]);
  });

  it('let every active user see a realm_user event when nothing restricts access, the user included', () => {
    const event = { type: 'realm_user', op: 'update', person: { user_id: GUEST, full_name: 'G' } } as const;
    expect(recipientsOf(event, org())).toEqual(EVERYONE_ACTIVE);
    expect(recipientsOf(event, org({ may_access: () => false }))).toEqual([GUEST]);
  });

  it('send realm_bot to the owner an added bot names, before the organization knows the bot', () => {
    const added = { type: 'realm_bot', op: 'add', bot: { ...bot, user_id: 99, owner_id: ACTOR } } as const;
    expect(recipientsOf(added, org())).toEqual([OWNER, ADMIN, ACTOR]);
  });

  it('announce now to the organization as the directory has it', async () => {
    const delivered: number[][] = [];
    const directory = {
      allUsers: async () => USERS.map((u) => ({ _id: u.user_id, role: u.role, is_active: u.is_active, bot_owner_id: u.bot_owner_id })),
    };
    await announceNow(
      { directory, deliver: (d) => delivered.push(d.user_ids) },
      { type: 'realm_emoji', op: 'update', realm_emoji: {} },
      { acting_user_id: ADMIN },
    );
    expect(delivered).toEqual([EVERYONE_ACTIVE]);
  });
});
