import type { LinkableChannel, MentionableGroup, MentionableUser, RenderContext } from '../src';

export const users: MentionableUser[] = [
  { id: 12, full_name: 'Alice Smith', email: 'alice@example.com', is_active: true },
  // A second Alice, so that `Name|id` has something to disambiguate.
  { id: 13, full_name: 'Alice Smith', email: 'alice2@example.com', is_active: true },
  { id: 20, full_name: 'Bob <b>Bold</b>', email: 'bob@example.com', is_active: true },
  { id: 30, full_name: 'Gone Person', email: 'gone@example.com', is_active: false },
];

export const groups: MentionableGroup[] = [
  { id: 3, name: 'support' },
  { id: 4, name: 'design <team>' },
];

export const channels: LinkableChannel[] = [
  { id: 1, name: 'general' },
  { id: 7, name: 'design team' },
  { id: 9, name: 'a.b (c)' },
];

export function makeContext(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    // Like a directory lookup: the first match wins when two users share a name.
    userByName: (name) => users.find((user) => user.full_name.toLowerCase() === name.toLowerCase()),
    userById: (id) => users.find((user) => user.id === id),
    groupByName: (name) => groups.find((group) => group.name.toLowerCase() === name.toLowerCase()),
    channelByName: (name) => channels.find((channel) => channel.name === name),
    realmUrl: 'http://127.0.0.1:9991',
    ...overrides,
  };
}
