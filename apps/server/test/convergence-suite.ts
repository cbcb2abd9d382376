/**
 * Every action that changes what POST /register returns, checked for convergence (see
 * convergence.ts): for each observer, the registration's state plus the events the action
 * sent equals a fresh registration's state. Adding an action is one row of ACTIONS.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpoints } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';
import { verifyAction } from './convergence';
import type { Client, RunningServer } from './harness';
import { invitationLink, onOrigin, suiteServer } from './suite-kit';
import { PNG, uploadFiles } from './uploads-suite';

type Who = 'owner' | 'member' | 'member2' | 'guest';

interface Context {
  clients: Record<Who, Client>;
  ids: Record<Who, number>;
  /** A message of the member's in general, for the actions on a message. */
  messageId: number;
  channelId: (name: string) => Promise<number>;
  /** The server's bus, for what services do without an HTTP route (system bots' messages). */
  bus: () => Promise<Bus>;
  /** The server's origin (pages outside /api/v1) and data directory (the development mail outbox). */
  base: string;
  dataDir: string;
}

/** The invitation link last mailed to `email`, on this server's origin. */
async function mailedLink(ctx: Context, email: string): Promise<string> {
  return onOrigin(await invitationLink(ctx.dataDir, email), ctx.base);
}

/** Fills in and submits the registration form a link opens, as a browser does (its cookie and token). */
async function signUp(link: string, fields: Record<string, string>) {
  const page = await fetch(link);
  const token = /name="csrf_token" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(link, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ ...fields, csrf_token: token }) });
  await res.text();
  if (res.status !== 200) throw new Error(`sign-up refused (${res.status})`);
  return res;
}

interface ActionRow {
  name: string;
  /** Who registers before and after (each one is a separate check). */
  observers: Who[];
  perform: (ctx: Context) => Promise<unknown>;
  /** Registration parameters, where the action's events depend on them. */
  register?: Record<string, unknown>;
}

const stream = (to: string, topic: string, content: string) => ({ type: 'stream', to, topic, content });
let serial = 0;
const unique = (prefix: string) => `${prefix}-${++serial}-${Date.now() % 100000}`;

const ACTIONS: ActionRow[] = [
  {
    name: 'send a channel message',
    observers: ['member', 'member2', 'guest'],
    perform: ({ clients }) => clients.member.post('/messages', stream('general', 'converge', 'hello @**Mary Member**')),
  },
  {
    name: 'send a direct message',
    observers: ['member', 'member2', 'owner'],
    perform: ({ clients, ids }) => clients.member.post('/messages', { type: 'direct', to: JSON.stringify([ids.member2]), content: 'psst' }),
  },
  {
    name: 'send a group direct message',
    observers: ['member2', 'owner'],
    perform: ({ clients, ids }) => clients.member.post('/messages', { type: 'direct', to: JSON.stringify([ids.member2, ids.owner]), content: 'all three' }),
  },
  {
    name: 'the welcome bot sends a direct message',
    observers: ['member', 'member2'],
    perform: async ({ bus, ids }) => callContract(await bus(), endpoints.messaging.sendSystemBotMessage, { params: { bot: 'welcome', to: [ids.member], content: 'Welcome!' } }),
  },
  {
    name: 'edit a message',
    observers: ['member', 'member2'],
    perform: ({ clients, messageId }) => clients.member.request('PATCH', `/messages/${messageId}`, { content: `edited ${++serial}` }),
  },
  {
    name: 'move a topic',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const sent = await clients.member.post('/messages', stream('general', unique('before'), 'to be moved'));
      return clients.member.request('PATCH', `/messages/${sent.body.id}`, { topic: unique('after'), propagate_mode: 'change_all' });
    },
  },
  {
    name: 'delete a message',
    observers: ['owner', 'member2'],
    perform: async ({ clients }) => {
      const sent = await clients.owner.post('/messages', stream('general', 'doomed', 'going away'));
      return clients.owner.request('DELETE', `/messages/${sent.body.id}`);
    },
  },
  {
    name: 'add a reaction',
    observers: ['member', 'member2'],
    perform: ({ clients, messageId }) => clients.member2.post(`/messages/${messageId}/reactions`, { emoji_name: 'octopus' }),
  },
  {
    name: 'mark messages read',
    observers: ['member2'],
    perform: async ({ clients }) => {
      const sent = await clients.member.post('/messages', stream('general', 'unread', 'read me'));
      return clients.member2.post('/messages/flags', { messages: JSON.stringify([sent.body.id]), op: 'add', flag: 'read' });
    },
  },
  {
    name: 'mark a message unread again',
    observers: ['member2'],
    perform: async ({ clients }) => {
      const sent = await clients.member.post('/messages', stream('general', 'again', 'read, then unread'));
      await clients.member2.post('/messages/flags', { messages: JSON.stringify([sent.body.id]), op: 'add', flag: 'read' });
      return clients.member2.post('/messages/flags', { messages: JSON.stringify([sent.body.id]), op: 'remove', flag: 'read' });
    },
  },
  {
    name: 'star a message',
    observers: ['member2'],
    perform: ({ clients, messageId }) => clients.member2.post('/messages/flags', { messages: JSON.stringify([messageId]), op: 'add', flag: 'starred' }),
  },
  {
    name: 'mark a topic as read',
    observers: ['member2'],
    perform: async ({ clients, channelId }) =>
      clients.member2.post('/mark_topic_as_read', { stream_id: await channelId('general'), topic_name: 'converge' }),
  },
  {
    name: 'mute a topic',
    observers: ['member2'],
    perform: async ({ clients, channelId }) =>
      clients.member2.post('/user_topics', { stream_id: await channelId('general'), topic: 'converge', visibility_policy: 1 }),
  },
  {
    name: 'report presence',
    observers: ['member2', 'owner'],
    register: { slim_presence: true, client_capabilities: JSON.stringify({ simplified_presence_events: true }) },
    perform: ({ clients }) => clients.guest.post('/users/me/presence', { status: 'active', new_user_input: true }),
  },
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
      return clients.member.post('/users/me/subscriptions/properties', {
        subscription_data: JSON.stringify([
          { stream_id: general, property: 'color', value: `#00${String(++serial % 100).padStart(2, '0')}00` },
          { stream_id: general, property: 'is_muted', value: serial % 2 === 0 },
          { stream_id: general, property: 'push_notifications', value: true },
        ]),
      });
    },
  },
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
    name: 'create a user group',
    observers: ['owner', 'member', 'guest'],
    perform: ({ clients, ids }) =>
      clients.member.post('/user_groups/create', { name: unique('cooks'), description: 'kitchen', members: JSON.stringify([ids.member, ids.guest]) }),
  },
  {
    name: 'update a user group',
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('bakers'), description: '', members: '[]' })).body;
      return clients.member.request('PATCH', `/user_groups/${group_id}`, {
        name: unique('pastry'),
        can_mention_group: JSON.stringify({ new: 5, old: 2 }),
      });
    },
  },
  {
    name: 'add and remove user group members',
    observers: ['member', 'member2', 'guest'],
    perform: async ({ clients, ids }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('pair'), description: '', members: '[]' })).body;
      await clients.member.post(`/user_groups/${group_id}/members`, { add: JSON.stringify([ids.member2, ids.guest]) });
      return clients.member.post(`/user_groups/${group_id}/members`, { delete: JSON.stringify([ids.guest]) });
    },
  },
  {
    name: 'add and remove user group subgroups',
    observers: ['owner', 'member'],
    perform: async ({ clients }) => {
      const create = async () => (await clients.member.post('/user_groups/create', { name: unique('nest'), description: '', members: '[]' })).body.group_id;
      const [inner, outer] = [await create(), await create()];
      await clients.member.post(`/user_groups/${outer}/subgroups`, { add: JSON.stringify([inner, 5]) });
      return clients.member.post(`/user_groups/${outer}/subgroups`, { delete: JSON.stringify([5]) });
    },
  },
  {
    name: 'add a member to a group that may subscribe others to a private channel',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients, ids }) => {
      const { group_id } = (await clients.owner.post('/user_groups/create', { name: unique('gatekeepers'), description: '', members: '[]' })).body;
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('gated') }]), invite_only: true, can_add_subscribers_group: group_id });
      return clients.owner.post(`/user_groups/${group_id}/members`, { add: JSON.stringify([ids.member]) });
    },
  },
  {
    name: 'remove a member from a group that administers a private channel, through a subgroup',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients, ids }) => {
      const create = async (members: number[]) =>
        (await clients.owner.post('/user_groups/create', { name: unique('stewards'), description: '', members: JSON.stringify(members) })).body.group_id;
      const [inner, outer] = [await create([ids.member]), await create([])];
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('stewarded') }]), invite_only: true, can_administer_channel_group: outer });
      await clients.owner.post(`/user_groups/${outer}/subgroups`, { add: JSON.stringify([inner]) });
      return clients.owner.post(`/user_groups/${inner}/members`, { delete: JSON.stringify([ids.member]) });
    },
  },
  {
    name: 'deactivate a user group',
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('brief'), description: '', members: '[]' })).body;
      return clients.member.post(`/user_groups/${group_id}/deactivate`);
    },
  },
  {
    name: 'deactivate a user group, for clients that list deactivated groups',
    observers: ['member', 'owner'],
    register: { client_capabilities: JSON.stringify({ include_deactivated_groups: true }) },
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('kept'), description: '', members: '[]' })).body;
      return clients.member.post(`/user_groups/${group_id}/deactivate`);
    },
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
    name: 'register logged-in devices, register one for push, remove another',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const first = (await clients.member.post('/register_client_device', {})).body.device_id;
      const second = (await clients.member.post('/register_client_device', {})).body.device_id;
      const push_key = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 5)]).toString('base64');
      await clients.member.post('/mobile_push/register', {
        device_id: first,
        push_key_id: 77,
        push_key,
        token_kind: 'apns',
        token_id: 'AAECAwQFBgc=',
        bouncer_public_key: 'bouncer-key',
        encrypted_push_registration: 'sealed',
      });
      return clients.member.post('/remove_client_device', { device_id: second });
    },
  },
  {
    name: 'add, edit, reorder and remove linkifiers',
    observers: ['owner', 'member', 'guest'],
    perform: async ({ clients }) => {
      const patch = (path: string, params: Record<string, unknown>) => clients.owner.request('PATCH', path, params, { query: false });
      const a = (await clients.owner.post('/realm/filters', { pattern: `${unique('A')}-(?P<id>[0-9]+)`, url_template: 'https://a.example/{id}' })).body.id;
      const b = (await clients.owner.post('/realm/filters', { pattern: `${unique('B')}-(?P<id>[0-9]+)`, url_template: 'https://b.example/{id}' })).body.id;
      await patch(`/realm/filters/${a}`, { pattern: `${unique('C')}-(?P<id>[0-9]+)`, url_template: 'https://c.example/{id}' });
      const ids = (await clients.owner.get('/realm/linkifiers')).body.linkifiers.map((l: { id: number }) => l.id);
      await patch('/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([...ids].reverse()) });
      return clients.owner.request('DELETE', `/realm/filters/${b}`);
    },
  },
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
    perform: ({ clients }) =>
      clients.owner.request('PATCH', '/realm', {
        description: unique('About us'),
        message_content_edit_limit_seconds: String(600 + (++serial % 50)),
        can_add_custom_emoji_group: JSON.stringify({ new: serial % 2 === 0 ? 6 : 3 }),
      }),
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
    name: 'change personal settings, for clients without the user_settings object',
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

export function convergenceSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`convergence of register state and events (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'member', 'member2', 'guest'] as Who[]);
    const ctx = { clients: suite.clients, ids: suite.ids } as Context;

    beforeAll(async () => {
      const { server } = suite;
      ctx.bus = server.bus!;
      ctx.base = server.api.replace(/\/api\/v1$/, '');
      ctx.dataDir = server.dataDir!;
      ctx.messageId = (await ctx.clients.member.post('/messages', stream('general', 'converge', 'the target'))).body.id;
      const channels = new Map<string, number>();
      ctx.channelId = async (name) => {
        if (!channels.has(name)) {
          const registered = await ctx.clients.owner.post('/register', { fetch_event_types: JSON.stringify(['subscription']) });
          for (const s of registered.body.subscriptions ?? []) channels.set(s.name, s.stream_id);
        }
        return channels.get(name)!;
      };
    });

    for (const action of ACTIONS) {
      it(`${action.name}: state + events = fresh state, for ${action.observers.join(', ')}`, async () => {
        let heard = 0;
        for (const who of action.observers) {
          const { events, expected, actual } = await verifyAction(ctx.clients[who], ctx.ids[who], () => action.perform(ctx), action.register);
          expect({ observer: who, state: actual }).toEqual({ observer: who, state: expected });
          heard += events.filter((e) => e.type !== 'heartbeat').length;
        }
        // The check proves something only if the action was heard of.
        expect(heard).toBeGreaterThan(0);
      }, 30_000);
    }
  });
}
