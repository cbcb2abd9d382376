/** Convergence rows (convergence-suite.ts): the organization and its people: allowed domains, invitations, users, roles, bots, organization settings, statuses, custom profile fields, personal settings. */
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { mailedLink, nextSerial, signUp, unique, type ActionRow } from './convergence-rows';

export const ORG_ACTIONS: ActionRow[] = [
  {
    name: 'add, change and remove allowed domains',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const domain = `${unique('d')}.example`;
      await clients.owner.post('/realm/domains', { domain, allow_subdomains: false });
      await clients.owner.post('/realm/domains', { domain: `x${domain}`, allow_subdomains: false });
      await clients.owner.request('PATCH', `/realm/domains/${domain}`, { allow_subdomains: true }, { query: false });
      return clients.owner.request('DELETE', `/realm/domains/x${domain}`);
    },
  },
  {
    name: 'send and revoke invitations',
    observers: ['owner', 'member'],
    perform: async ({ clients }) => {
      const email = `${unique('invitee')}@example.org`;
      await clients.owner.post('/invites', { invitee_emails: email, stream_ids: '[]' });
      const id = ((await clients.owner.get('/invites')).body.invites as { id: number; email?: string }[]).find((i) => i.email === email)!.id;
      return clients.owner.request('DELETE', `/invites/${id}`);
    },
  },
  {
    name: 'accept an invitation: the account, its channels and groups, the referrer told',
    observers: ['owner', 'member', 'guest'],
    perform: async (ctx) => {
      const email = `${unique('joiner')}@example.org`;
      await ctx.clients.owner.post('/invites', { invitee_emails: email, stream_ids: JSON.stringify([await ctx.channelId('engineering')]), include_realm_default_subscriptions: 'true' });
      return signUp(await mailedLink(ctx, email), { full_name: 'Joiner', password: 'a good password' });
    },
  },
  {
    name: 'create a user',
    observers: ['member', 'guest'],
    perform: ({ clients }) => clients.owner.post('/users', { email: `${unique('newcomer')}@example.com`, full_name: 'New Comer', password: 'a good password' }),
  },
  {
    name: "change a user's role",
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      const { user_id } = (await clients.owner.post('/users', { email: `${unique('climber')}@example.com`, full_name: 'Climber' })).body;
      return clients.owner.request('PATCH', `/users/${user_id}`, { role: 300 }, { query: false });
    },
  },
  {
    name: 'make a member an administrator, who sees every bot, and a member again',
    observers: ['member2'],
    perform: async ({ clients, ids }) => {
      await clients.member.post('/bots', { full_name: 'Seen By Admins', short_name: unique('seen') });
      await clients.owner.request('PATCH', `/users/${ids.member2}`, { role: 200 }, { query: false });
      return clients.owner.request('PATCH', `/users/${ids.member2}`, { role: 400 }, { query: false });
    },
  },
  {
    name: "an owner given can_change_user_emails changes a user's address",
    observers: ['member', 'owner'],
    perform: async ({ clients, bus }) => {
      const { user_id } = (await clients.owner.post('/users', { email: `${unique('mover')}@example.com`, full_name: 'Mover' })).body;
      const permission = async (granted: boolean) =>
        callContract(await bus(), endpoints.accounts.changeServerPermission, { params: { email: clients.owner.email!, permission: 'can_change_user_emails', granted } });
      await permission(true);
      try {
        return await clients.owner.request('PATCH', `/users/${user_id}`, { new_email: `${unique('moved')}@example.com` }, { query: false });
      } finally {
        await permission(false);
      }
    },
  },
  {
    name: "change a user's full name",
    observers: ['member', 'owner'],
    perform: ({ clients, ids }) => clients.owner.request('PATCH', `/users/${ids.member2}`, { full_name: unique('Mary ') }, { query: false }),
  },
  {
    name: 'deactivate and reactivate a user in a group',
    observers: ['member', 'owner'],
    perform: async ({ clients }) => {
      const { user_id } = (await clients.owner.post('/users', { email: `${unique('leaver')}@example.com`, full_name: 'Leaver' })).body;
      await clients.member.post('/user_groups/create', { name: unique('leavers'), description: '', members: JSON.stringify([user_id]) });
      await clients.owner.request('DELETE', `/users/${user_id}`);
      return clients.owner.post(`/users/${user_id}/reactivate`);
    },
  },
  {
    name: 'create a bot',
    observers: ['member', 'owner', 'guest'],
    perform: ({ clients }) => clients.member.post('/bots', { full_name: 'Converging Bot', short_name: unique('conv'), default_sending_stream: 'general' }),
  },
  {
    name: "change a bot's name, defaults and owner",
    observers: ['member', 'member2', 'owner'],
    perform: async ({ clients, ids }) => {
      const { user_id } = (await clients.member.post('/bots', { full_name: 'Handed Bot', short_name: unique('handed') })).body;
      await clients.member.request('PATCH', `/bots/${user_id}`, { full_name: 'Handed Over', default_events_register_stream: 'general' }, { query: false });
      return clients.member.request('PATCH', `/bots/${user_id}`, { bot_owner_id: ids.member2 }, { query: false });
    },
  },
  {
    name: "regenerate a bot's key and deactivate it",
    observers: ['member', 'owner'],
    perform: async ({ clients }) => {
      const { user_id } = (await clients.member.post('/bots', { full_name: 'Short Lived', short_name: unique('short') })).body;
      await clients.member.post(`/bots/${user_id}/api_key/regenerate`);
      return clients.member.request('DELETE', `/bots/${user_id}`);
    },
  },
  {
    name: 'change organization settings',
    observers: ['owner', 'member', 'guest'],
    perform: ({ clients }) => {
      const serial = nextSerial();
      return clients.owner.request('PATCH', '/realm', {
        description: unique('About us'),
        message_content_edit_limit_seconds: String(600 + (serial % 50)),
        can_add_custom_emoji_group: JSON.stringify({ new: serial % 2 === 0 ? 6 : 3 }),
      });
    },
  },
  {
    name: 'set the moderation-request channel and report a message there',
    observers: ['owner', 'member', 'guest'],
    // Not the channel sections: a new channel's first message changes its first_message_id,
    // which this server does not announce yet (a gap of channels, not of reports).
    register: { event_types: JSON.stringify(['realm', 'message', 'update_message_flags']) },
    perform: async ({ clients, ids, channelId }) => {
      const name = unique('moderators');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), invite_only: 'true' });
      await clients.owner.request('PATCH', '/realm', { moderation_request_channel_id: String(await channelId(name)) });
      const id = (await clients.member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: unique('rude') })).body.id;
      return clients.member.post(`/messages/${id}/report`, { report_type: 'spam' });
    },
  },
  {
    name: 'set and clear a user status',
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      await clients.member.post('/users/me/status', { status_text: unique('busy'), emoji_name: 'car' });
      await clients.member.post('/users/me/status', { emoji_name: '' });
      return clients.owner.post('/users/me/status', { status_text: unique('here') });
    },
  },
  {
    name: 'create, change, reorder and delete custom profile fields, and set values',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients, ids }) => {
      const create = async (params: Record<string, unknown>) => (await clients.owner.post('/realm/profile_fields', params)).body.id as number;
      const text = await create({ name: unique('Nick'), field_type: '1' });
      const people = await create({ name: unique('Buddy'), field_type: '6' });
      const gone = await create({ name: unique('Temp'), field_type: '1' });
      await clients.owner.request('PATCH', `/realm/profile_fields/${text}`, { hint: 'What we call you' }, { query: false });
      await clients.member.request('PATCH', '/users/me/profile_data', { data: JSON.stringify([{ id: text, value: 'Marky' }, { id: people, value: [ids.guest] }, { id: gone, value: 'x' }]) }, { query: false });
      await clients.member.request('DELETE', '/users/me/profile_data', { data: JSON.stringify([text]) });
      await clients.owner.request('DELETE', `/realm/profile_fields/${gone}`);
      const order = ((await clients.owner.get('/realm/profile_fields')).body.custom_fields as { id: number }[]).map((f) => f.id).reverse();
      return clients.owner.request('PATCH', '/realm/profile_fields', { order: JSON.stringify(order) }, { query: false });
    },
  },
  {
    name: 'change personal settings, the language among them',
    observers: ['member'],
    // Two changes, so that at least one setting really changes whatever the state was.
    perform: async ({ clients }) => {
      await clients.member.request('PATCH', '/settings', { color_scheme: 2, default_language: 'de', enter_sends: true }, { query: false });
      return clients.member.request('PATCH', '/settings', { color_scheme: 3, default_language: 'fr', enter_sends: false }, { query: false });
    },
  },
  {
    name: 'change personal settings, for clients without the user_settings object (the same form since Zulip 12)',
    observers: ['member'],
    register: { client_capabilities: JSON.stringify({ user_settings_object: false }) },
    perform: async ({ clients }) => {
      await clients.member.request('PATCH', '/settings/display', { emojiset: 'text' }, { query: false });
      return clients.member.request('PATCH', '/settings/display', { emojiset: 'twitter' }, { query: false });
    },
  },
  {
    name: 'change the time zone',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      await clients.member.request('PATCH', '/settings', { timezone: 'Asia/Tokyo' }, { query: false });
      return clients.member.request('PATCH', '/settings', { timezone: 'Europe/Paris' }, { query: false });
    },
  },
  {
    name: 'change the own name through settings',
    observers: ['member', 'member2'],
    perform: ({ clients }) => clients.member2.request('PATCH', '/settings', { full_name: `Mary ${unique('Member')}` }, { query: false }),
  },
  {
    name: "change other users' settings with target_users",
    observers: ['member', 'member2'],
    perform: async ({ clients, ids }) => {
      const target_users = JSON.stringify({ user_ids: [ids.member, ids.member2] });
      await clients.owner.request('PATCH', '/settings', { target_users, web_font_size_px: 15 }, { query: false });
      return clients.owner.request('PATCH', '/settings', { target_users, web_font_size_px: 16 }, { query: false });
    },
  },
  {
    name: 'hide the own email address from members, then from everyone, then show it again',
    observers: ['member', 'owner'],
    perform: async ({ clients }) => {
      for (const value of [3, 4]) await clients.member2.request('PATCH', '/settings', { email_address_visibility: value }, { query: false });
      return clients.member2.request('PATCH', '/settings', { email_address_visibility: 1 }, { query: false });
    },
  },
  {
    name: 'make a member an administrator, seen by themselves',
    observers: ['member2'],
    // Last: the member stays an administrator.
    perform: ({ clients, ids }) => clients.owner.request('PATCH', `/users/${ids.member2}`, { role: 200 }, { query: false }),
  },
];
