/** Convergence rows (convergence-suite.ts): messages and what users do with them: sending (also as a system bot), editing, moving, deleting, reactions, flags, topic visibility, presence. */
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { nextSerial, stream, unique, type ActionRow } from './convergence-rows';

export const MESSAGE_ACTIONS: ActionRow[] = [
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
    perform: ({ clients, messageId }) => clients.member.request('PATCH', `/messages/${messageId}`, { content: `edited ${nextSerial()}` }),
  },
  {
    name: 'move a topic',
    observers: ['member', 'member2'],
    perform: async ({ clients }) => {
      const sent = await clients.member.post('/messages', stream('general', unique('before'), 'to be moved'));
      return clients.member.request('PATCH', `/messages/${sent.body.id}`, { topic: unique('after'), propagate_mode: 'change_all' });
    },
  },
  // One delete_message event naming the messages, or one per message without the capability.
  ...[
    { suffix: 'for clients with bulk_message_deletion', register: { client_capabilities: { bulk_message_deletion: true } } },
    { suffix: 'for clients without it', register: {} },
  ].map(
    ({ suffix, register }): ActionRow => ({
      name: `delete a message, ${suffix}`,
      observers: ['owner', 'member2'],
      register,
      perform: async ({ clients }) => {
        const sent = await clients.owner.post('/messages', stream('general', 'doomed', 'going away'));
        return clients.owner.request('DELETE', `/messages/${sent.body.id}`);
      },
    }),
  ),
  {
    name: 'add a reaction',
    observers: ['member', 'member2'],
    perform: ({ clients, messageId }) => clients.member2.post(`/messages/${messageId}/reactions`, { emoji_name: 'octopus' }),
  },
  {
    name: 'vote on a poll',
    observers: ['member', 'member2', 'guest'],
    perform: async ({ clients }) => {
      const poll = await clients.member.post('/messages', stream('general', 'polls', `/poll Lunch ${nextSerial()}?\nPizza\nSushi`));
      return clients.member2.post('/submessage', { message_id: poll.body.id, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 }) });
    },
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
];
