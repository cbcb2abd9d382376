/**
 * Facts announced to every active user name that audience instead of listing it: the
 * registry resolves it over its queues with the roster the fan-out keeps in store order.
 * A user created after the others registered hears what follows; a deactivated user does
 * not; facts stored with a listed audience reach that list, as before.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Actor, ClientEvent, Fact, FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { fanOutHandlers } from '../src/projections/fan-out';
import { Roster } from '../src/projections/roster';
import { QueueRegistry } from '../src/queries/queues';

const actor = (user_id: number): Actor => ({ user_id, email: `u${user_id}@example.com`, full_name: 'U', role: 400, is_bot: false, client: 'test' });

const created = (user_id: number): FactOf<'UserCreated'> => ({
  type: 'UserCreated',
  user_id,
  email: `u${user_id}@example.com`,
  full_name: `User ${user_id}`,
  role: 400,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  timezone: '',
  date_joined: 1_700_000_000,
  api_key_salt: 'salt',
  api_key_hash: 'hash',
  audience: 'active_users',
});
const renamed = (user_id: number, full_name: string, audience: Partial<FactOf<'UserFullNameChanged'>> = { audience: 'active_users' }): Fact => ({
  type: 'UserFullNameChanged',
  user_id,
  full_name,
  ...audience,
});

/** The events service's fan-out over a registry, facts handed in at rising positions. */
class Events {
  position = 0;
  readonly roster = new Roster();
  readonly registry = new QueueRegistry({
    heartbeatSeconds: 60,
    settings: { maxEvents: 100, maxPerUser: 10, sweepMs: 60_000 },
    checkpoint: () => this.position,
  });
  private readonly handlers = fanOutHandlers((delivery, position) => this.registry.deliver(delivery, position), { apiKeyOf: (salt) => `key-${salt}`, roster: this.roster });

  constructor(users: number[]) {
    this.roster.seed(users.map((_id) => ({ _id, is_active: true })));
  }

  async store(fact: Fact): Promise<void> {
    this.position++;
    const stored: StoredFact = { id: `f${this.position}`, stream: 'organization', revision: 0, position: this.position, type: fact.type, data: fact, metadata: {}, created: 0 };
    const handler = this.handlers[fact.type] as (fact: Fact, stored: StoredFact) => void;
    await handler(fact, stored);
  }

  async queueOf(userId: number): Promise<() => Promise<ClientEvent[]>> {
    const { queue_id } = await this.registry.register(actor(userId), { event_types: ['realm_user', 'realm', 'realm_emoji'] });
    return async () => (await this.registry.getEvents(actor(userId), { queue_id, last_event_id: -1, dont_block: true })).events;
  }
}

const running: QueueRegistry[] = [];
afterEach(() => running.splice(0).forEach((r) => r.close()));

function events(users: number[]): Events {
  const e = new Events(users);
  running.push(e.registry);
  return e;
}

/** `user:name` or `user:active` for realm_user updates, `type:op` for the rest. */
function names(events: ClientEvent[]): string[] {
  return events.map((e) => {
    if (e.type === 'realm' && e.op === 'update') return `realm:${e.property}`;
    if (e.type !== 'realm_user' || e.op !== 'update') return `${e.type}:${'op' in e ? e.op : ''}`;
    const person = e.person as { user_id: number; full_name?: string; is_active?: boolean };
    return `${person.user_id}:${String(person.full_name ?? person.is_active)}`;
  });
}

describe('a named audience (every active user)', () => {
  it('reaches a user created after the others registered, and not a deactivated one', async () => {
    const e = events([1, 2, 3]);
    const [one, two, three] = await Promise.all([1, 2, 3].map((id) => e.queueOf(id)));
    await e.store(created(4));
    const four = await e.queueOf(4);
    await e.store({ type: 'UserDeactivated', user_id: 3, audience: 'active_users' });
    await e.store(renamed(2, 'Two'));
    await e.store({ type: 'UserReactivated', user_id: 3, audience: 'active_users' });
    await e.store(renamed(4, 'Four'));

    expect(names(await one!())).toEqual(['realm_user:add', '3:false', '2:Two', '3:true', '4:Four']);
    expect(names(await two!())).toEqual(['realm_user:add', '3:false', '2:Two', '3:true', '4:Four']);
    expect(names(await four())).toEqual(['3:false', '2:Two', '3:true', '4:Four']);
    // Told of their own deactivation (as before) and reactivation; not of what happened in between.
    expect(names(await three!())).toEqual(['realm_user:add', '3:false', '3:true', '4:Four']);
  });

  it('reaches the same users for an organization setting: the new user, not the deactivated one', async () => {
    const e = events([1, 2]);
    const [one, two] = await Promise.all([1, 2].map((id) => e.queueOf(id)));
    await e.store(created(3));
    const three = await e.queueOf(3);
    await e.store({ type: 'UserDeactivated', user_id: 2, audience: 'active_users' });
    await e.store({ type: 'RealmSettingsChanged', changes: { name: 'Renamed' }, actor_id: 1, audience: 'active_users' });
    await e.store({ type: 'RealmSettingsChanged', changes: { description: 'Listed' }, actor_id: 1, audience_user_ids: [2] });
    expect(names(await one!())).toEqual(['realm_user:add', '2:false', 'realm:name']);
    expect(names(await three())).toEqual(['2:false', 'realm:name']);
    expect(names(await two!())).toEqual(['realm_user:add', '2:false', 'realm:description']);
  });

  it('reaches a listed audience, stored before audiences were named, as listed', async () => {
    const e = events([1, 2]);
    const [one, two] = await Promise.all([1, 2].map((id) => e.queueOf(id)));
    await e.store(renamed(2, 'Listed', { audience_user_ids: [1] }));
    await e.store(renamed(2, 'Nobody', {}));
    expect(names(await one!())).toEqual(['2:Listed']);
    expect(await two!()).toEqual([]);
  });

  it('asks about the users with queues only, not every user of the organization', async () => {
    const users = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const e = events(users);
    const queues = await Promise.all([5, 50, 500].map((id) => e.queueOf(id)));
    const asked: number[] = [];
    const isActive = e.roster.isActive.bind(e.roster);
    e.roster.isActive = (id) => (asked.push(id), isActive(id));
    await e.store(created(10_001));
    // The realm_user add and the members' group event (filtered out by these queues' event types).
    expect(asked.sort((a, b) => a - b)).toEqual([5, 5, 50, 50, 500, 500]);
    for (const queue of queues) expect(names(await queue())).toEqual(['realm_user:add']);
  });
});
