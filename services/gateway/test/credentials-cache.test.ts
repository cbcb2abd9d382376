import { endpoints, type Actor } from '@teamchat/contracts';
import { CredentialsCache } from '../src/http/credentials-cache';

const alice: Actor = { user_id: 7, email: 'alice@example.com', full_name: 'Alice', role: 400, is_bot: false, client: 'website' };
const bob: Actor = { ...alice, user_id: 8, email: 'bob@example.com', full_name: 'Bob' };

describe('CredentialsCache', () => {
  it('keeps an identity per header, without the per-request client name', () => {
    const cache = new CredentialsCache();
    cache.remember('Basic a', alice, 10);
    const { client: _client, ...identity } = alice;
    expect(cache.get('Basic a')).toEqual(identity);
    expect(cache.get('Basic b')).toBeUndefined();
  });

  it("rebuilds a request's actor from an identity with every member the actor contract has", () => {
    const cache = new CredentialsCache();
    cache.remember('Basic a', { ...alice, client: 'ZulipMobile' }, 10);
    const actor = CredentialsCache.actorOf(cache.get('Basic a')!, 'website');
    expect(actor).toEqual(alice);
    // actorOf names each member: one the contract gains must be added there too.
    const schema = endpoints.accounts.authenticate.reply.shape.actor;
    expect(Object.keys(actor).sort()).toEqual(Object.keys(schema.shape).sort());
    expect(schema.safeParse(actor).success).toBe(true);
  });

  it('forgets every header of a changed user, and only theirs', () => {
    const cache = new CredentialsCache();
    cache.remember('Basic a1', alice, 10);
    cache.remember('Basic a2', alice, 11);
    cache.remember('Basic b', bob, 10);
    cache.forget({ user_id: alice.user_id, position: 12 });
    expect(cache.get('Basic a1')).toBeUndefined();
    expect(cache.get('Basic a2')).toBeUndefined();
    expect(cache.get('Basic b')?.user_id).toBe(bob.user_id);
    expect(cache.newestChange).toBe(12);
  });

  it('does not keep an answer older than a change it heard of (the two crossed on the bus)', () => {
    const cache = new CredentialsCache();
    cache.forget({ user_id: alice.user_id, position: 20 });
    cache.remember('Basic a', alice, 19);
    expect(cache.get('Basic a')).toBeUndefined();
    cache.remember('Basic a', alice, 20);
    expect(cache.get('Basic a')?.user_id).toBe(alice.user_id);
    // Another user's older answer is unaffected by alice's change.
    cache.remember('Basic b', bob, 5);
    expect(cache.get('Basic b')?.user_id).toBe(bob.user_id);
  });

  it('keeps nothing without a position, and lets entries expire', async () => {
    const cache = new CredentialsCache({ ttlMs: 20 });
    cache.remember('Basic a', alice, undefined);
    expect(cache.get('Basic a')).toBeUndefined();
    cache.remember('Basic a', alice, 1);
    expect(cache.get('Basic a')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('Basic a')).toBeUndefined();
  });
});
