/** Convergence rows (convergence-suite.ts): the personal and organization tools: drafts, scheduled messages and reminders, snippets, alert words, new users' defaults, navigation views, devices, linkifiers, code playgrounds, custom emoji, uploads. */
import { stream, unique, type ActionRow } from './convergence-rows';
import { Client } from './harness';
import { PNG, uploadFiles } from './uploads-suite';

const avatarRow = (register: Record<string, unknown>): ActionRow => ({
  name: `upload, replace and remove an avatar (client_gravatar ${String(register.client_gravatar)})`,
  observers: ['member', 'member2'],
  register,
  perform: async ({ clients }) => {
    await uploadFiles(clients.member, [{ name: 'me.png', bytes: PNG }], '/users/me/avatar');
    await uploadFiles(clients.member, [{ name: 'me2.png', bytes: PNG }], '/users/me/avatar');
    const removed = await clients.member.request('DELETE', '/users/me/avatar');
    await uploadFiles(clients.member2, [{ name: 'mine.png', bytes: PNG }], '/users/me/avatar');
    return removed;
  },
});

export const TOOL_ACTIONS: ActionRow[] = [
  // Avatars (issue 41): the realm_user update, with and without client_gravatar.
  avatarRow({ client_gravatar: false }),
  avatarRow({ client_gravatar: true }),
  {
    name: "a bot's avatar (realm_user and, for its administrators, realm_bot)",
    observers: ['owner', 'member'],
    perform: async ({ base }) => uploadFiles(await Client.login(`${base}/api/v1`, 'echo-bot@example.com'), [{ name: 'bot.png', bytes: PNG }], '/users/me/avatar'),
  },
  // The personal and organization tools (issue 15).
  {
    name: 'save drafts',
    observers: ['member', 'member2'],
    perform: async ({ clients, channelId }) =>
      clients.member.post('/drafts', { drafts: [{ type: 'stream', to: [await channelId('general')], topic: 'draft', content: unique('draft') }, { type: '', to: [], topic: '', content: 'loose' }] }),
  },
  {
    name: 'edit a draft',
    observers: ['member'],
    perform: async ({ clients, ids }) => {
      const id = (await clients.member.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'first' }] })).body.ids[0];
      return clients.member.request('PATCH', `/drafts/${id}`, { draft: { type: 'private', to: [ids.member2], topic: '', content: unique('edited'), timestamp: 1 } }, { query: false });
    },
  },
  {
    name: 'delete a draft',
    observers: ['member'],
    perform: async ({ clients }) => {
      const id = (await clients.member.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'doomed' }] })).body.ids[0];
      return clients.member.request('DELETE', `/drafts/${id}`);
    },
  },
  {
    name: 'turn draft synchronization off and on',
    observers: ['member2'],
    perform: async ({ clients }) => {
      await clients.member2.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'to be dropped' }] });
      await clients.member2.request('PATCH', '/settings', { enable_drafts_synchronization: false }, { query: false });
      return clients.member2.request('PATCH', '/settings', { enable_drafts_synchronization: true }, { query: false });
    },
  },
  // Scheduled messages and reminders (issue 17).
  {
    name: 'schedule, edit and delete scheduled messages',
    observers: ['member', 'member2'],
    perform: async ({ clients, ids }) => {
      const later = Math.floor(Date.now() / 1000) + 3600;
      const kept = await clients.member.post('/scheduled_messages', { type: 'stream', to: 'general', topic: 'later', content: unique('kept'), scheduled_delivery_timestamp: later });
      const id = (await clients.member.post('/scheduled_messages', { type: 'direct', to: [ids.member2], content: unique('later'), scheduled_delivery_timestamp: later + 60 })).body.scheduled_message_id;
      await clients.member.request('PATCH', `/scheduled_messages/${kept.body.scheduled_message_id}`, { content: unique('edited'), scheduled_delivery_timestamp: later + 120 }, { query: false });
      return clients.member.request('DELETE', `/scheduled_messages/${id}`);
    },
  },
  {
    name: 'deliver a scheduled message',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const content = unique('delivered');
      await clients.member.post('/scheduled_messages', { type: 'stream', to: 'general', topic: 'soon', content, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 1 });
      // Done once the message is in the channel and the scheduled message gone from the list.
      for (let i = 0; i < 100; i++) {
        const listed = (await clients.member.get('/scheduled_messages')).body.scheduled_messages as { content: string }[];
        if (!listed.some((m) => m.content === content)) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the scheduled message was not delivered');
    },
  },
  {
    name: 'set and delete reminders',
    observers: ['member', 'member2'],
    perform: async ({ clients, messageId }) => {
      const later = Math.floor(Date.now() / 1000) + 3600;
      await clients.member.post('/reminders', { message_id: messageId, scheduled_delivery_timestamp: later, note: 'kept' });
      const id = (await clients.member.post('/reminders', { message_id: messageId, scheduled_delivery_timestamp: later + 60 })).body.reminder_id;
      return clients.member.request('DELETE', `/reminders/${id}`);
    },
  },
  {
    name: 'add, edit and delete saved snippets',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const id = (await clients.member.post('/saved_snippets', { title: unique('snippet'), content: 'text' })).body.saved_snippet_id;
      await clients.member.post('/saved_snippets', { title: unique('kept'), content: 'kept' });
      await clients.member.request('PATCH', `/saved_snippets/${id}`, { title: 'renamed' }, { query: false });
      return clients.member.request('DELETE', `/saved_snippets/${id}`);
    },
  },
  {
    name: 'change alert words',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      await clients.member.post('/users/me/alert_words', { alert_words: ['Deploy', 'outage'] });
      return clients.member.request('DELETE', '/users/me/alert_words', { alert_words: ['outage'] });
    },
  },
  {
    name: 'send a message with an alert word',
    observers: ['member'],
    perform: async ({ clients }) => {
      await clients.member.post('/users/me/alert_words', { alert_words: ['zeppelin'] });
      return clients.member2.post('/messages', stream('general', 'converge', 'the Zeppelin lands'));
    },
  },
  {
    name: "change the defaults for new users' settings",
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const patch = (params: Record<string, unknown>) => clients.owner.request('PATCH', '/realm/user_settings_defaults', params, { query: false });
      await patch({ enter_sends: 'true', web_font_size_px: '18' });
      return patch({ enter_sends: 'false', web_font_size_px: '16' });
    },
  },
  {
    name: 'add, change and remove navigation views',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const fragment = `narrow/is/${unique('view')}`;
      await clients.member.post('/navigation_views', { fragment: 'inbox', is_pinned: 'true' });
      await clients.member.post('/navigation_views', { fragment, is_pinned: 'false', name: unique('View') });
      await clients.member.request('PATCH', `/navigation_views/${encodeURIComponent(fragment)}`, { is_pinned: 'true', name: unique('Renamed') }, { query: false });
      return clients.member.request('DELETE', '/navigation_views/inbox');
    },
  },
  {
    name: 'register logged-in devices, remove one',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      await clients.member.post('/register_client_device', {});
      const second = (await clients.member.post('/register_client_device', {})).body.device_id;
      return clients.member.post('/remove_client_device', { device_id: second });
    },
  },
  ...[
    { suffix: 'for clients with linkifier_url_template', register: { client_capabilities: { linkifier_url_template: true } } },
    // No linkifier events and an empty list at registration; a message linkified by the
    // server is what such a client hears of them.
    { suffix: 'for clients without it, then a message using one', register: {}, message: true },
  ].map(({ suffix, register, message }): ActionRow => ({
    name: `add, edit, reorder and remove linkifiers, ${suffix}`,
    observers: ['owner', 'member', 'guest'],
    register,
    perform: async ({ clients }) => {
      const patch = (path: string, params: Record<string, unknown>) => clients.owner.request('PATCH', path, params, { query: false });
      const a = (await clients.owner.post('/realm/filters', { pattern: `${unique('A')}-(?P<id>[0-9]+)`, url_template: 'https://a.example/{id}' })).body.id;
      const b = (await clients.owner.post('/realm/filters', { pattern: `${unique('B')}-(?P<id>[0-9]+)`, url_template: 'https://b.example/{id}' })).body.id;
      const kept = unique('C');
      await patch(`/realm/filters/${a}`, { pattern: `${kept}-(?P<id>[0-9]+)`, url_template: 'https://c.example/{id}' });
      const ids = (await clients.owner.get('/realm/linkifiers')).body.linkifiers.map((l: { id: number }) => l.id);
      await patch('/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([...ids].reverse()) });
      const removed = await clients.owner.request('DELETE', `/realm/filters/${b}`);
      return message ? clients.owner.post('/messages', stream('general', 'links', `see ${kept}-12`)) : removed;
    },
  })),
  {
    name: 'add and remove code playgrounds',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const id = (await clients.owner.post('/realm/playgrounds', { name: unique('Godbolt'), lexer_language: 'c', url_template: 'https://godbolt.org/z?code={code}' })).body.id;
      await clients.owner.post('/realm/playgrounds', { name: unique('Rust'), lexer_language: 'rust', url_template: 'https://play.rust-lang.org/?code={code}' });
      return clients.owner.request('DELETE', `/realm/playgrounds/${id}`);
    },
  },
  {
    name: 'add and deactivate custom emoji',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const name = unique('emoji').replace(/-/g, '_');
      await uploadFiles(clients.member, [{ name: 'e.png', bytes: PNG }], `/realm/emoji/${name}_1`);
      await uploadFiles(clients.member, [{ name: 'e.png', bytes: PNG }], `/realm/emoji/${name}_2`);
      return clients.owner.request('DELETE', `/realm/emoji/${name}_1`);
    },
  },
  {
    name: 'add and deactivate custom emoji, for clients with individual_emoji_changes',
    observers: ['owner', 'member'],
    register: { client_capabilities: { individual_emoji_changes: true } },
    perform: async ({ clients }) => {
      const name = unique('each').replace(/-/g, '_');
      await uploadFiles(clients.member, [{ name: 'e.png', bytes: PNG }], `/realm/emoji/${name}_1`);
      await uploadFiles(clients.member, [{ name: 'e.png', bytes: PNG }], `/realm/emoji/${name}_2`);
      return clients.owner.request('DELETE', `/realm/emoji/${name}_1`);
    },
  },
  // Muted users (issue 37). Each run toggles, as the row runs once per observer.
  {
    name: 'mute or unmute a user',
    observers: ['member', 'member2'],
    perform: async ({ clients, ids }) => {
      const muted = (await clients.member.post('/register', { fetch_event_types: ['muted_users'] })).body.muted_users as { id: number }[];
      if (muted.some((m) => m.id === ids.guest)) return clients.member.request('DELETE', `/users/me/muted_users/${ids.guest}`);
      return clients.member.post(`/users/me/muted_users/${ids.guest}`);
    },
  },
  {
    name: "mute a user whose messages are unread (they become read), and unmute them",
    observers: ['member'],
    perform: async ({ clients, ids }) => {
      await clients.member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: unique('unread') });
      await clients.member2.post('/messages', stream('general', 'muted', unique('unread too')));
      await clients.member.post(`/users/me/muted_users/${ids.member2}`);
      return clients.member.request('DELETE', `/users/me/muted_users/${ids.member2}`);
    },
  },
  {
    name: 'receive messages from a muted user (they arrive read)',
    observers: ['member', 'member2'],
    perform: async ({ clients, ids }) => {
      await clients.member.post(`/users/me/muted_users/${ids.member2}`);
      await clients.member2.post('/messages', { type: 'direct', to: JSON.stringify([ids.member]), content: unique('muted dm') });
      await clients.member2.post('/messages', stream('general', 'muted', `@**Member** ${unique('muted mention')}`));
      return clients.member.request('DELETE', `/users/me/muted_users/${ids.member2}`);
    },
  },
  {
    name: 'upload a file, link it in a message and delete it',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const { url } = (await uploadFiles(clients.member, [{ name: 'notes.txt', bytes: Buffer.from('notes') }])).body;
      await clients.member.post('/messages', stream('general', 'converge', `[notes](${url})`));
      const [attachment] = (await clients.member.get('/attachments')).body.attachments.filter((a: { path_id: string }) => url.endsWith(a.path_id));
      return clients.member.request('DELETE', `/attachments/${attachment.id}`);
    },
  },
  {
    name: 'link an uploaded file in two messages, edit the link out of one and delete the other',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const { url } = (await uploadFiles(clients.member, [{ name: 'plan.txt', bytes: Buffer.from('plan') }])).body;
      const first = (await clients.member.post('/messages', stream('general', 'converge', `[plan](${url})`))).body.id;
      const second = (await clients.member.post('/messages', stream('general', 'converge', `again: [plan](${url})`))).body.id;
      await clients.member.request('PATCH', `/messages/${first}`, { content: 'no plan after all' }, { query: false });
      return clients.owner.request('DELETE', `/messages/${second}`);
    },
  },
];
