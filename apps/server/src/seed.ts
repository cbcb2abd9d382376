/**
 * The development organization, seeded on first start in development mode (see
 * ARCHITECTURE.md). Seeding goes through the same bus commands as everything else, so
 * it works against the embedded services and against a distributed deployment alike.
 */
import { endpoints, ROLE, type ParamsOf } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';

const people = [
  { email: 'admin@example.com', full_name: 'Adam Admin', role: ROLE.administrator },
  { email: 'moderator@example.com', full_name: 'Mona Moderator', role: ROLE.moderator },
  { email: 'member@example.com', full_name: 'Mark Member', role: ROLE.member },
  { email: 'member2@example.com', full_name: 'Mary Member', role: ROLE.member },
  { email: 'guest@example.com', full_name: 'Gus Guest', role: ROLE.guest },
];

/** Returns false when the organization already existed (nothing was seeded). */
export async function seedDevelopmentOrganization(bus: Bus): Promise<boolean> {
  const { value: org } = await callContract(bus, endpoints.accounts.getOrganization, { params: {} });
  if (org.exists) return false;

  const { value: owner, position } = await callContract(bus, endpoints.accounts.createOrganization, {
    params: { name: 'Example Organization', owner_email: 'owner@example.com', owner_full_name: 'Olivia Owner' },
  });
  let after = position;
  const ids: Record<string, number> = { 'owner@example.com': owner.user_id };
  const create = async (params: ParamsOf<typeof endpoints.accounts.createUser>) => {
    const reply = await callContract(bus, endpoints.accounts.createUser, { params, ...(after ? { after } : {}) });
    after = reply.position ?? after;
    ids[params.email] = reply.value.user_id;
  };
  for (const person of people) await create(person);
  // As Zulip's development server gives its administrators: POST /users needs it (the tests use it).
  for (const email of ['owner@example.com', 'admin@example.com']) {
    const granted = await callContract(bus, endpoints.accounts.changeServerPermission, { params: { email, permission: 'can_create_users', granted: true }, ...(after ? { after } : {}) });
    after = granted.position ?? after;
  }
  await create({
    email: 'echo-bot@example.com',
    full_name: 'Echo Bot',
    role: ROLE.member,
    is_bot: true,
    bot_type: 1,
    bot_owner_id: ids['admin@example.com'],
  });

  const humans = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest'].map((n) => ids[`${n}@example.com`]!);
  const channels: ParamsOf<typeof endpoints.channels.createChannel>[] = [
    { name: 'general', description: 'Everyone is here.', is_default: true, subscribers: [...humans, ids['echo-bot@example.com']!] },
    { name: 'engineering', description: 'Building things.', subscribers: ['owner', 'admin', 'member'].map((n) => ids[`${n}@example.com`]!) },
    { name: 'leadership', description: 'Owners and administrators.', invite_only: true, subscribers: ['owner', 'admin'].map((n) => ids[`${n}@example.com`]!) },
  ];
  const channelIds: Record<string, number> = {};
  for (const channel of channels) {
    const reply = await callContract(bus, endpoints.channels.createChannel, { params: channel, ...(after ? { after } : {}) });
    after = reply.position ?? after;
    channelIds[channel.name] = reply.value.channel_id;
  }
  // New channels are announced in general, as the development organization of Zulip does.
  await callContract(bus, endpoints.accounts.setNewChannelAnnouncementsChannel, { params: { channel_id: channelIds.general! }, ...(after ? { after } : {}) });
  return true;
}
