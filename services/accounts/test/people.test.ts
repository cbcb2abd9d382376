import { describe, expect, it } from '@jest/globals';
import { ROLE, WELCOME_BOT, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { NO_CUSTOM_GROUPS, ORGANIZATION_POLICY } from '@teamchat/policies';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import {
  decideCreateBot,
  decideDeactivateBot,
  decideDeactivateOwnAccount,
  decideRegenerateBotKey,
  decideServerPermission,
  decideUpdateBot,
  decideUpdateUser,
  type CreateBot,
  type UpdateBot,
  type UpdateUser,
} from '../src/domain/people';
import { hashPassword, passwordMatches } from '../src/domain/passwords';

const NOW = 1_700_000_000_999;
const credentials = { api_key_salt: 'salt', api_key_hash: 'hash' };

const spec = <C>(decide: (state: OrganizationState, cmd: C) => Fact[]) =>
  deciderSpec<OrganizationState, C>({ initial: initialOrganization, evolve: evolveOrganization, decide: (cmd, state) => decide(state, cmd) });

function userCreated(user_id: number, role: number, extra: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> {
  return {
    type: 'UserCreated',
    user_id,
    email: `user${user_id}@acme.example`,
    full_name: `User ${user_id}`,
    role,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    timezone: '',
    date_joined: 1_600_000_000,
    api_key_salt: `salt-${user_id}`,
    api_key_hash: `hash-${user_id}`,
    ...extra,
  };
}

const actor = (user_id: number, role: number, is_bot = false): Actor => ({
  user_id,
  email: `user${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot,
  client: 'test',
});

// 1 owner, 2 administrator, 3 moderator, 4 member, 5 guest, 6 member, 7 a bot of member 4
const owner = actor(1, ROLE.owner);
const admin = actor(2, ROLE.administrator);
const moderator = actor(3, ROLE.moderator);
const member = actor(4, ROLE.member);
const guest = actor(5, ROLE.guest);
const member6 = actor(6, ROLE.member);
const bot = actor(7, ROLE.member, true);
const BOT_SETTINGS = {
  default_sending_stream_id: null,
  default_sending_stream: null,
  default_events_register_stream_id: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  services: [],
};
/** Bot 7 as a new administrator is shown it. */
const BOT_7 = { user_id: 7, email: 'user7@acme.example', full_name: 'User 7', bot_type: 1, is_active: true, owner_id: 4, api_key_salt: 'salt-7', bot_settings: {
  default_sending_stream_id: null,
  default_sending_stream: null,
  default_events_register_stream_id: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  services: [],
} };
const acme: Fact[] = [
  { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1_600_000_000 },
  userCreated(1, ROLE.owner),
  userCreated(2, ROLE.administrator),
  userCreated(3, ROLE.moderator),
  userCreated(4, ROLE.member),
  userCreated(5, ROLE.guest),
  userCreated(6, ROLE.member),
  userCreated(7, ROLE.member, { is_bot: true, bot_type: 1, bot_owner_id: 4, bot_settings: BOT_SETTINGS }),
];

describe('decideUpdateUser', () => {
  const update = spec<UpdateUser>(decideUpdateUser);
  const when = (cmd: Partial<UpdateUser> & { actor: Actor; user_id: number }, given: Fact[] = acme) =>
    update.given(given).when(cmd);

  it('changes a role, telling everyone active', () =>
    when({ actor: admin, user_id: 4, role: ROLE.moderator }).then([
      { type: 'UserRoleChanged', user_id: 4, role: 300, old_role: 400, audience: 'active_users' },
    ]));

  it('changes a full name, trimmed; a bot\'s name is also told to its owner and the administrators', () => {
    when({ actor: admin, user_id: 6, full_name: '  Six Renamed ' }).then([
      { type: 'UserFullNameChanged', user_id: 6, full_name: 'Six Renamed', audience: 'active_users' },
    ]);
    when({ actor: owner, user_id: 7, full_name: 'Bot Renamed' }).then([
      { type: 'UserFullNameChanged', user_id: 7, full_name: 'Bot Renamed', audience: 'active_users', bot_audience_user_ids: [1, 2, 4] },
    ]);
  });

  it('changes name and role in one request, name first', () =>
    when({ actor: owner, user_id: 6, full_name: 'Six', role: ROLE.administrator }).then([
      { type: 'UserFullNameChanged', user_id: 6, full_name: 'Six', audience: 'active_users' },
      { type: 'UserRoleChanged', user_id: 6, role: 200, old_role: 400, audience: 'active_users', bots_shown: [BOT_7] },
    ]));

  it("shows a new administrator the others' bots and hides them again, but not their own", () => {
    when({ actor: owner, user_id: 4, role: ROLE.administrator }).then([
      { type: 'UserRoleChanged', user_id: 4, role: 200, old_role: 400, audience: 'active_users', bots_shown: [] },
    ]);
    when({ actor: owner, user_id: 2, role: ROLE.moderator }).then([
      { type: 'UserRoleChanged', user_id: 2, role: 300, old_role: 200, audience: 'active_users', bots_hidden: [7] },
    ]);
    // Between administrator and owner nothing changes.
    when({ actor: owner, user_id: 2, role: ROLE.owner }).then([{ type: 'UserRoleChanged', user_id: 2, role: 100, old_role: 200, audience: 'active_users' }]);
  });

  it('decides nothing when nothing changes', () => when({ actor: admin, user_id: 6, role: 400, full_name: 'User 6' }).then([]));

  // Who is active when it is announced is the events service's to resolve (roster.ts).
  it('names its audience rather than listing the active users', () =>
    when({ actor: admin, user_id: 6, role: ROLE.moderator }, [...acme, { type: 'UserDeactivated', user_id: 3 }]).then([
      { type: 'UserRoleChanged', user_id: 6, role: 300, old_role: 400, audience: 'active_users' },
    ]));

  it.each([
    ['moderator', moderator],
    ['member', member],
    ['guest', guest],
    ['bot', bot],
  ])('refuses a %s', (_, by) => when({ actor: by, user_id: 6, full_name: 'X' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('lets only owners give the owner role and take it', () => {
    when({ actor: admin, user_id: 6, role: ROLE.owner }).thenThrows({ msg: 'Must be an organization owner' });
    when({ actor: owner, user_id: 6, role: ROLE.owner }).then([
      { type: 'UserRoleChanged', user_id: 6, role: 100, old_role: 400, audience: 'active_users', bots_shown: [BOT_7] },
    ]);
    const twoOwners = [...acme, { type: 'UserRoleChanged', user_id: 6, role: 100, old_role: 400 } as Fact];
    when({ actor: admin, user_id: 6, role: ROLE.member }, twoOwners).thenThrows({ msg: 'Must be an organization owner' });
    when({ actor: owner, user_id: 6, role: ROLE.member }, twoOwners).then([
      { type: 'UserRoleChanged', user_id: 6, role: 400, old_role: 100, audience: 'active_users', bots_hidden: [7] },
    ]);
  });

  it('keeps the owner role on the only active owner', () => {
    when({ actor: owner, user_id: 1, role: ROLE.administrator }).thenThrows({ msg: 'The owner permission cannot be removed from the only organization owner.' });
    const otherOwnerGone = [...acme, { type: 'UserRoleChanged', user_id: 6, role: 100, old_role: 400 } as Fact, { type: 'UserDeactivated', user_id: 6 } as Fact];
    when({ actor: owner, user_id: 1, role: ROLE.administrator }, otherOwnerGone).thenThrows({ msg: /only organization owner/ });
  });

  it('refuses to make a guest an administrator or an owner, but lets a guest become a member', () => {
    when({ actor: owner, user_id: 5, role: ROLE.administrator }).thenThrows({ msg: 'Guests cannot be organization administrators' });
    when({ actor: owner, user_id: 5, role: ROLE.owner }).thenThrows({ msg: 'Guests cannot be organization administrators' });
    when({ actor: admin, user_id: 5, role: ROLE.member }).then([{ type: 'UserRoleChanged', user_id: 5, role: 400, old_role: 600, audience: 'active_users' }]);
  });

  it.each([0, 150, 250, 700])('refuses the role %d', (role) => when({ actor: owner, user_id: 6, role }).thenThrows({ msg: `Invalid role ${role}` }));

  it.each([
    ['', 'Name too short!'],
    ['   ', 'Name too short!'],
    ['x'.repeat(101), 'Name too long!'],
    ['with *stars*', 'Invalid characters in name!'],
    ['with @mention', 'Invalid characters in name!'],
    ['back`tick', 'Invalid characters in name!'],
    ['new\nline', 'Invalid characters in name!'],
  ])('refuses the full name %j', (full_name, msg) => when({ actor: admin, user_id: 6, full_name }).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('accepts a full name of 100 code points, astral ones counting once', () =>
    when({ actor: admin, user_id: 6, full_name: '😀'.repeat(100) }).then([
      { type: 'UserFullNameChanged', user_id: 6, full_name: '😀'.repeat(100), audience: 'active_users' },
    ]));

  it('refuses a new email from an administrator who is not an owner', () =>
    when({ actor: admin, user_id: 6, new_email: 'six@acme.example' }).thenThrows({ msg: 'Must be an organization owner' }));

  it("refuses a new email from an owner without the server's permission to change addresses", () =>
    when({ actor: owner, user_id: 6, new_email: 'six@acme.example' }).thenThrows({ msg: 'User not authorized to change user emails' }));

  describe('with the permission given by the operator', () => {
    const granted: Fact[] = [...acme, { type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: true }];
    // Administrators see every real address; the others see none in this example.
    const maySeeRealEmail = (viewer: { role: number }) => viewer.role <= ROLE.administrator;

    it('changes the address, telling those who may see the real one', () =>
      when({ actor: owner, user_id: 6, new_email: ' six@new.example ', maySeeRealEmail }, granted).then([
        { type: 'UserEmailChanged', user_id: 6, old_email: 'user6@acme.example', new_email: 'six@new.example', audience_user_ids: [1, 2] },
      ]));

    it("tells a bot's owner and the administrators of a bot's new address", () =>
      when({ actor: owner, user_id: 7, new_email: 'bot7@new.example', maySeeRealEmail }, granted).then([
        { type: 'UserEmailChanged', user_id: 7, old_email: 'user7@acme.example', new_email: 'bot7@new.example', audience_user_ids: [1, 2], bot_audience_user_ids: [1, 2, 4] },
      ]));

    it('changes nothing for the same address, in any case', () =>
      when({ actor: owner, user_id: 6, new_email: 'USER6@acme.example', maySeeRealEmail }, granted).then([]));

    it.each([
      ['not an address', "Invalid email 'not an address'"],
      ['user4@acme.example', "Email 'user4@acme.example' already in use"],
      [WELCOME_BOT.email, `Email '${WELCOME_BOT.email}' already in use`],
    ])('refuses the address %j', (new_email, msg) => when({ actor: owner, user_id: 6, new_email, maySeeRealEmail }, granted).thenThrows({ code: 'BAD_REQUEST', msg }));

    it('is refused again once the permission is taken back', () =>
      when({ actor: owner, user_id: 6, new_email: 'six@new.example' }, [
        ...granted,
        { type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: false },
      ]).thenThrows({ msg: 'User not authorized to change user emails' }));

    it('still needs the owner role: a granted user demoted to administrator is refused', () =>
      when({ actor: actor(1, ROLE.administrator), user_id: 6, new_email: 'six@new.example' }, granted).thenThrows({ msg: 'Must be an organization owner' }));
  });

  it('refuses an unknown user', () => when({ actor: admin, user_id: 99, full_name: 'Ghost' }).thenThrows({ msg: 'No such user' }));
});

describe('decideDeactivateOwnAccount', () => {
  const leave = spec<{ actor: Actor }>(decideDeactivateOwnAccount);

  it('lets anyone leave, telling everyone active', () =>
    leave.given(acme).when({ actor: guest }).then([{ type: 'UserDeactivated', user_id: 5, audience: 'active_users' }]));

  it('tells a bot\'s owner and the administrators when a bot leaves', () =>
    leave.given(acme).when({ actor: bot }).then([{ type: 'UserDeactivated', user_id: 7, audience: 'active_users', bot_audience_user_ids: [1, 2, 4] }]));

  it("takes the user's active bots along, as Zulip does", () =>
    leave
      .given(acme)
      .when({ actor: member })
      .then([
        { type: 'UserDeactivated', user_id: 4, audience: 'active_users' },
        { type: 'UserDeactivated', user_id: 7, audience: 'active_users', bot_audience_user_ids: [1, 2, 4] },
      ]));

  it('refuses the only owner', () => leave.given(acme).when({ actor: owner }).thenThrows({ msg: 'Cannot deactivate the only organization owner' }));

  it('lets an owner leave when another owner stays', () =>
    leave
      .given([...acme, { type: 'UserRoleChanged', user_id: 6, role: 100, old_role: 400 }])
      .when({ actor: owner })
      .then([{ type: 'UserDeactivated', user_id: 1, audience: 'active_users' }]));
});

describe('decideCreateBot', () => {
  const create = spec<CreateBot>((state, cmd) => [decideCreateBot(state, cmd)]);
  const channels: Record<string, { channel_id: number; name: string }> = { general: { channel_id: 10, name: 'general' } };
  const base: CreateBot = {
    actor: member,
    full_name: 'Weather Bot',
    short_name: 'weather',
    bot_type: 1,
    host: 'acme.example',
    credentials,
    now: NOW,
    channel: (name) => channels[name],
    groups: NO_CUSTOM_GROUPS,
  };
  const created = (extra: Partial<FactOf<'UserCreated'>> = {}): FactOf<'UserCreated'> => ({
    type: 'UserCreated',
    user_id: 8,
    email: 'weather-bot@acme.example',
    full_name: 'Weather Bot',
    role: 400,
    is_bot: true,
    bot_type: 1,
    bot_owner_id: 4,
    timezone: '',
    date_joined: 1_700_000_000,
    ...credentials,
    audience: 'active_users',
    bot_audience_user_ids: [1, 2, 4],
    bot_settings: BOT_SETTINGS,
    ...extra,
  });

  it('creates a generic bot owned by its creator, a member, told to everyone and its key to the owner and administrators', () =>
    create.given(acme).when(base).then([created()]));

  it('resolves default channels by name', () =>
    create
      .given(acme)
      .when({ ...base, default_sending_stream: 'general', default_events_register_stream: 'general', default_all_public_streams: true })
      .then([
        created({
          bot_settings: {
            ...BOT_SETTINGS,
            default_sending_stream_id: 10,
            default_sending_stream: 'general',
            default_events_register_stream_id: 10,
            default_events_register_stream: 'general',
            default_all_public_streams: true,
          },
        }),
      ]));

  it('records the service of outgoing webhook and embedded bots', () => {
    create
      .given(acme)
      .when({ ...base, bot_type: 3, payload_url: 'https://hooks.example/x' })
      .then([created({ bot_type: 3, bot_settings: { ...BOT_SETTINGS, services: [{ base_url: 'https://hooks.example/x', interface: 1 }] } })]);
    create
      .given(acme)
      .when({ ...base, bot_type: 4, service_name: 'converter', config_data: { unit: 'metric' } })
      .then([created({ bot_type: 4, bot_settings: { ...BOT_SETTINGS, services: [{ service_name: 'converter', config_data: { unit: 'metric' } }] } })]);
  });

  it.each([
    ['a guest', guest],
    ['a bot', bot],
  ])('refuses %s', (_, by) => create.given(acme).when({ ...base, actor: by }).thenThrows({ msg: 'Insufficient permission' }));

  it('follows the organization policy: incoming webhook bots by can_create_write_only_bots_group', () => {
    const adminsOnly = { ...ORGANIZATION_POLICY, canCreateWriteOnlyBotsGroup: 6 };
    create.given(acme).when({ ...base, bot_type: 2, policy: adminsOnly }).thenThrows({ msg: 'Insufficient permission' });
    create.given(acme).when({ ...base, policy: adminsOnly }).then([created()]);
  });

  it.each([
    [{ bot_type: 5 }, 'Invalid bot type 5'],
    [{ short_name: '' }, 'Bad name or username'],
    [{ short_name: 'a b' }, 'Bad name or username'],
    [{ full_name: '' }, 'Name too short!'],
    [{ bot_type: 3 }, 'Missing payload_url'],
    [{ bot_type: 3, payload_url: 'javascript:alert(1)' }, 'payload_url is not a URL'],
    [{ bot_type: 3, payload_url: 'https://x.example', interface_type: 3 }, 'Invalid interface type 3'],
    [{ bot_type: 4 }, 'Invalid embedded bot name.'],
    [{ default_sending_stream: 'secret' }, "Invalid channel name 'secret'"],
  ] as [Partial<CreateBot>, string][])('refuses %j', (extra, msg) => create.given(acme).when({ ...base, ...extra }).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('refuses a short name in use', () =>
    create.given([...acme, created()]).when(base).thenThrows({ msg: 'Username already in use' }));
});

describe('decideUpdateBot', () => {
  const update = spec<UpdateBot>(decideUpdateBot);
  const base: UpdateBot = { actor: member, bot_id: 7, channel: (name) => (name === 'general' ? { channel_id: 10, name } : undefined) };

  it('changes the owner: the new owner gets the bot whole, with its salt, never its key', () =>
    update
      .given(acme)
      .when({ ...base, bot_owner_id: 6 })
      .then([
        {
          type: 'BotOwnerChanged',
          user_id: 7,
          bot_owner_id: 6,
          old_owner_id: 4,
          audience: 'active_users',
          bot_audience_user_ids: [1, 2, 6],
          bot: { email: 'user7@acme.example', full_name: 'User 7', bot_type: 1, is_active: true, api_key_salt: 'salt-7' },
          bot_settings: BOT_SETTINGS,
        },
      ]));

  it('changes defaults, only what differs', () =>
    update
      .given(acme)
      .when({ ...base, default_sending_stream: 'general', default_all_public_streams: false })
      .then([
        {
          type: 'BotSettingsChanged',
          user_id: 7,
          changes: { default_sending_stream_id: 10, default_sending_stream: 'general' },
          bot_audience_user_ids: [1, 2, 4],
        },
      ]));

  it('lets an administrator change anyone\'s bot; refuses others', () => {
    update.given(acme).when({ ...base, actor: admin, full_name: 'Renamed' }).then([
      { type: 'UserFullNameChanged', user_id: 7, full_name: 'Renamed', audience: 'active_users', bot_audience_user_ids: [1, 2, 4] },
    ]);
    update.given(acme).when({ ...base, actor: member6, full_name: 'Renamed' }).thenThrows({ msg: 'Insufficient permission' });
    update.given(acme).when({ ...base, actor: moderator, full_name: 'Renamed' }).thenThrows({ msg: 'Insufficient permission' });
  });

  it.each([
    [{ bot_owner_id: 99 }, 'Failed to change owner, no such user'],
    [{ bot_owner_id: 7 }, "Failed to change owner, bots can't own other bots"],
    [{ default_events_register_stream: 'nowhere' }, "Invalid channel name 'nowhere'"],
    [{ bot_id: 6 }, 'No such bot'],
    [{ bot_id: 99 }, 'No such bot'],
  ] as [Partial<UpdateBot>, string][])('refuses %j', (extra, msg) => update.given(acme).when({ ...base, full_name: 'X', ...extra }).thenThrows({ msg }));

  it('refuses a deactivated new owner', () =>
    update.given([...acme, { type: 'UserDeactivated', user_id: 6 }]).when({ ...base, bot_owner_id: 6 }).thenThrows({ msg: 'Failed to change owner, user is deactivated' }));
});

describe('decideDeactivateBot and decideRegenerateBotKey', () => {
  const deactivate = spec<{ actor: Actor; bot_id: number }>(decideDeactivateBot);
  const regenerate = spec<{ actor: Actor; bot_id: number; credentials: typeof credentials }>(decideRegenerateBotKey);

  it('deactivates a bot for its owner', () =>
    deactivate.given(acme).when({ actor: member, bot_id: 7 }).then([{ type: 'UserDeactivated', user_id: 7, audience: 'active_users', bot_audience_user_ids: [1, 2, 4] }]));

  it('refuses a bot already deactivated, and others\' bots', () => {
    deactivate.given([...acme, { type: 'UserDeactivated', user_id: 7 }]).when({ actor: member, bot_id: 7 }).thenThrows({ msg: 'User is already deactivated' });
    deactivate.given(acme).when({ actor: member6, bot_id: 7 }).thenThrows({ msg: 'Insufficient permission' });
  });

  it('regenerates a key as a new salt and hash, told to the owner and the administrators', () =>
    regenerate
      .given(acme)
      .when({ actor: admin, bot_id: 7, credentials: { api_key_salt: 'new-salt', api_key_hash: 'new-hash' } })
      .then([{ type: 'BotApiKeyRegenerated', user_id: 7, api_key_salt: 'new-salt', api_key_hash: 'new-hash', bot_audience_user_ids: [1, 2, 4] }]));

  it('refuses to regenerate a human\'s key here', () =>
    regenerate.given(acme).when({ actor: admin, bot_id: 4, credentials }).thenThrows({ msg: 'No such bot' }));
});

describe('passwords', () => {
  it('hashes with scrypt and a salt, never keeping the password', async () => {
    const hash = await hashPassword('hunter2 hunter2');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hash).not.toContain('hunter2');
    expect(await hashPassword('hunter2 hunter2')).not.toBe(hash);
    expect(await passwordMatches('hunter2 hunter2', hash)).toBe(true);
    expect(await passwordMatches('hunter2 hunter3', hash)).toBe(false);
  });

  it('answers false, after hashing as long, without a stored hash', async () => {
    const hash = await hashPassword('p');
    const timed = async (stored: string | undefined) => {
      const start = process.hrtime.bigint();
      const result = await passwordMatches('p', stored);
      return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
    };
    const known = await timed(hash);
    const unknown = await timed(undefined);
    expect(known.result).toBe(true);
    expect(unknown.result).toBe(false);
    // The same work either way: a dummy hash is computed (a loose bound, for a shared machine).
    expect(unknown.ms).toBeGreaterThan(known.ms / 4);
    expect(await passwordMatches('p', 'not a hash')).toBe(false);
  });
});

describe('decideServerPermission', () => {
  const change = spec<Parameters<typeof decideServerPermission>[1]>(decideServerPermission);

  it('gives the permission to a user named by email, in any case', () =>
    change.given(acme).when({ email: 'USER1@acme.example', permission: 'can_change_user_emails', granted: true }).then([
      { type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: true },
    ]));

  it('changes nothing when the permission is already as asked', () => {
    change.given(acme).when({ email: 'user1@acme.example', permission: 'can_change_user_emails', granted: false }).then([]);
    change
      .given([...acme, { type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: true }])
      .when({ email: 'user1@acme.example', permission: 'can_change_user_emails', granted: true })
      .then([]);
  });

  it('takes it back', () =>
    change
      .given([...acme, { type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: true }])
      .when({ email: 'user1@acme.example', permission: 'can_change_user_emails', granted: false })
      .then([{ type: 'ServerPermissionChanged', user_id: 1, permission: 'can_change_user_emails', granted: false }]));

  it('refuses an unknown email', () =>
    change.given(acme).when({ email: 'ghost@acme.example', permission: 'can_change_user_emails', granted: true }).thenThrows({ code: 'BAD_REQUEST', msg: 'No user with the email ghost@acme.example' }));
});
