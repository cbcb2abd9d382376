/** Convergence rows (convergence-suite.ts): channels: creation, subscriptions and their settings, default channels, folders, archiving. */
import { nextSerial, stream, unique, type ActionRow } from './convergence-rows';

export const CHANNEL_ACTIONS: ActionRow[] = [
  {
    name: 'create a channel by subscribing',
    observers: ['owner', 'member', 'guest'],
    perform: ({ clients }) => clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('fresh') }]) }),
  },
  {
    name: 'create a channel with an announcement',
    observers: ['owner', 'member2', 'guest'],
    perform: ({ clients }) =>
      clients.member.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('announced'), description: 'News' }]), announce: true }),
  },
  {
    name: 'subscribe another user',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients, ids }) => {
      const name = unique('peers');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
      return clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify([ids.member]) });
    },
  },
  {
    name: 'update a channel description',
    observers: ['owner', 'member'],
    perform: async ({ clients, channelId }) =>
      clients.owner.request('PATCH', `/streams/${await channelId('engineering')}`, { description: `about ${unique('things')}` }),
  },
  {
    name: 'make a channel default',
    observers: ['owner', 'member'],
    perform: async ({ clients, channelId }) => clients.owner.request('PATCH', `/streams/${await channelId('engineering')}`, { is_default_stream: true }),
  },
  {
    name: 'leave a channel',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients }) => {
      const name = unique('left');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(['member@example.com', 'owner@example.com']) });
      return clients.member.request('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([name]) });
    },
  },
  {
    name: 'remove a user from a private channel',
    observers: ['owner', 'member', 'member2'],
    register: { include_subscribers: true },
    perform: async ({ clients }) => {
      const name = unique('private-left');
      await clients.owner.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name }]),
        invite_only: true,
        principals: JSON.stringify(['member@example.com', 'owner@example.com']),
      });
      return clients.owner.request('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([name]), principals: JSON.stringify(['member@example.com']) });
    },
  },
  {
    name: "change one's subscription settings",
    observers: ['member'],
    perform: async ({ clients, channelId }) => {
      const general = await channelId('general');
      const serial = nextSerial();
      return clients.member.post('/users/me/subscriptions/properties', {
        subscription_data: JSON.stringify([
          { stream_id: general, property: 'color', value: `#00${String(serial % 100).padStart(2, '0')}00` },
          { stream_id: general, property: 'is_muted', value: serial % 2 === 0 },
          { stream_id: general, property: 'push_notifications', value: true },
        ]),
      });
    },
  },
  // A channel's notification setting set, then left to the user's default again (null):
  // null in events and state with notification_settings_null, the default in register without it.
  ...[
    { suffix: 'for clients with notification_settings_null', register: { client_capabilities: { notification_settings_null: true } } },
    { suffix: 'for clients without it (the defaults instead of null)', register: {} },
  ].map(
    ({ suffix, register }): ActionRow => ({
      name: `set a channel's notification settings and return them to the defaults, ${suffix}`,
      observers: ['member'],
      register,
      perform: async ({ clients, channelId }) => {
        const general = await channelId('general');
        const set = (value: boolean | null) =>
          clients.member.post('/users/me/subscriptions/properties', {
            subscription_data: JSON.stringify(['desktop_notifications', 'email_notifications'].map((property) => ({ stream_id: general, property, value }))),
          });
        await set(true);
        return set(null);
      },
    }),
  ),
  {
    name: 'mute a channel with unread messages, unmute one of its topics, then unmute the channel and mute a topic',
    observers: ['member2'],
    perform: async ({ clients, channelId }) => {
      const general = await channelId('general');
      const [loud, quiet] = [unique('loud'), unique('quiet')];
      for (const topic of [loud, quiet, quiet]) await clients.owner.post('/messages', stream('general', topic, 'unread for now'));
      const mute = (value: boolean) =>
        clients.member2.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: general, property: 'is_muted', value }]) });
      await mute(true);
      await clients.member2.post('/user_topics', { stream_id: general, topic: quiet.toUpperCase(), visibility_policy: 2 });
      await mute(false);
      return clients.member2.post('/user_topics', { stream_id: general, topic: loud, visibility_policy: 1 });
    },
  },
  {
    name: 'add and remove a default channel',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const name = unique('defaulted');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
      const id = (await clients.owner.get('/get_stream_id', { stream: name })).body.stream_id;
      await clients.owner.post('/default_streams', { stream_id: id });
      await clients.owner.request('DELETE', '/default_streams', { stream_id: id });
      return clients.owner.post('/default_streams', { stream_id: id });
    },
  },
  {
    name: 'create, rename and archive a channel folder',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const created = await clients.owner.post('/channel_folders/create', { name: unique('folder'), description: 'Things' });
      const id = created.body.channel_folder_id;
      await clients.owner.request('PATCH', `/channel_folders/${id}`, { name: unique('renamed'), description: 'Other *things*' }, { query: false });
      return clients.owner.request('PATCH', `/channel_folders/${id}`, { is_archived: true }, { query: false });
    },
  },
  {
    name: 'reorder the channel folders',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      await clients.owner.post('/channel_folders/create', { name: unique('first') });
      const ids = ((await clients.owner.get('/channel_folders', { include_archived: true })).body.channel_folders as { id: number }[]).map((f) => f.id);
      return clients.owner.request('PATCH', '/channel_folders', { order: JSON.stringify(ids.reverse()) }, { query: false });
    },
  },
  {
    name: 'put a channel in a folder',
    observers: ['owner', 'member'],
    perform: async ({ clients, channelId }) => {
      const folder = (await clients.owner.post('/channel_folders/create', { name: unique('shelf') })).body.channel_folder_id;
      return clients.owner.request('PATCH', `/streams/${await channelId('engineering')}`, { folder_id: folder }, { query: false });
    },
  },
  {
    name: 'archive a channel',
    observers: ['owner', 'member'],
    perform: async ({ clients, channelId }) => {
      const name = unique('archived');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(['member@example.com']) });
      return clients.owner.request('DELETE', `/streams/${await channelId(name)}`);
    },
  },
  {
    name: 'archive a channel, for clients with archived_channels',
    observers: ['owner', 'member'],
    register: { client_capabilities: { archived_channels: true } },
    perform: async ({ clients, channelId }) => {
      const name = unique('kept');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(['member@example.com']) });
      return clients.owner.request('DELETE', `/streams/${await channelId(name)}`);
    },
  },
  // Unarchiving, to clients with archived_channels (an update) and without (the channel
  // created again); a subscriber without the capability is not among the observers: as
  // in Zulip, it is told of the channel but not of its subscription coming back.
  ...[
    { suffix: 'for clients with archived_channels', observers: ['owner', 'member', 'guest'] as const, register: { client_capabilities: { archived_channels: true } } },
    { suffix: 'for clients without it', observers: ['member2'] as const, register: {} },
  ].map(({ suffix, observers, register }) => ({
    name: `unarchive a channel, ${suffix}`,
    observers: [...observers],
    register,
    perform: async ({ clients, channelId }: Parameters<ActionRow['perform']>[0]) => {
      const name = unique('revived');
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(['member@example.com']) });
      const id = await channelId(name);
      await clients.owner.request('DELETE', `/streams/${id}`);
      return clients.owner.request('PATCH', `/streams/${id}`, { is_archived: false }, { query: false });
    },
  })),
];
