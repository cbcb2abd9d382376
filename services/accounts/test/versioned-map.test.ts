/**
 * The organization's user registry as versioned maps: every version reads exactly as the
 * plain Map it replaces would (iteration order included), older versions never change,
 * and a new user copies nothing (it copied every user before it).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { ROLE, type Fact } from '@teamchat/contracts';
import { decideCreateUser, decideDeactivateUser, decideReactivateUser, evolveOrganization, initialOrganization, personAudience, type OrganizationState } from '../src/domain/organization';
import { AscendingIds, VersionedMap } from '../src/domain/versioned-map';

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

const contents = (map: ReadonlyMap<string, number>) => ({ entries: [...map], keys: [...map.keys()], values: [...map.values()], size: map.size });

describe('VersionedMap', () => {
  it('reads as a Map at every version, whichever version a change is made from', () => {
    const pick = random(40);
    const plain: Map<string, number>[] = [new Map()];
    const versioned: VersionedMap<string, number>[] = [VersionedMap.empty()];
    for (let step = 0; step < 800; step++) {
      // Mostly from the newest version (a fold), sometimes from an older one (a second fold from a cached state).
      const from = pick(10) === 0 ? pick(plain.length) : plain.length - 1;
      const key = `k${pick(40)}`;
      if (pick(4) === 0) {
        const next = new Map(plain[from]);
        next.delete(key);
        plain.push(next);
        versioned.push(versioned[from]!.without(key));
      } else {
        plain.push(new Map(plain[from]).set(key, step));
        versioned.push(versioned[from]!.with(key, step));
      }
    }
    for (let v = 0; v < plain.length; v++) {
      expect(contents(versioned[v]!)).toEqual(contents(plain[v]!));
      for (const key of ['k0', 'k7', 'k39', 'absent']) {
        expect(versioned[v]!.get(key)).toBe(plain[v]!.get(key));
        expect(versioned[v]!.has(key)).toBe(plain[v]!.has(key));
      }
    }
  });

  it('puts a key deleted and added again at the end, as a Map does', () => {
    const map = VersionedMap.of([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const moved = map.without('a').with('a', 4).with('b', 5);
    expect([...moved]).toEqual([
      ['b', 5],
      ['c', 3],
      ['a', 4],
    ]);
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const seen: string[] = [];
    moved.forEach((value, key) => seen.push(`${key}=${value}`));
    expect(seen).toEqual(['b=5', 'c=3', 'a=4']);
  });
});

describe('AscendingIds', () => {
  it('holds at every version what a sorted array would, whichever version a change is made from', () => {
    const pick = random(41);
    const plain: number[][] = [[]];
    const versioned: AscendingIds[] = [AscendingIds.empty()];
    for (let step = 0; step < 800; step++) {
      const from = pick(10) === 0 ? pick(plain.length) : plain.length - 1;
      const base = plain[from]!;
      // Mostly a new highest id (a new user), sometimes any id in or out (deactivations, reactivations).
      const id = pick(3) === 0 ? pick(60) : (base.at(-1) ?? 0) + 1 + pick(3);
      if (pick(4) === 0) {
        plain.push(base.filter((x) => x !== id));
        versioned.push(versioned[from]!.without(id));
      } else {
        plain.push([...new Set([...base, id])].sort((a, b) => a - b));
        versioned.push(versioned[from]!.with(id));
      }
    }
    for (let v = 0; v < plain.length; v++) {
      expect(versioned[v]!.toArray()).toEqual(plain[v]);
      expect(versioned[v]!.length).toBe(plain[v]!.length);
      for (const id of [0, 5, 30, plain[v]!.at(-1) ?? 1]) expect(versioned[v]!.has(id)).toBe(plain[v]!.includes(id));
    }
  });
});

describe("the organization's registry", () => {
  const realMap = globalThis.Map;
  afterEach(() => {
    globalThis.Map = realMap;
  });

  /** Counts the entries copied into new Maps (`new Map(other)`), the work that grew with the organization. */
  function countCopies(): { copied: number } {
    const counter = { copied: 0 };
    globalThis.Map = class CountingMap<K, V> extends realMap<K, V> {
      constructor(entries?: Iterable<readonly [K, V]> | null) {
        super(entries);
        if (entries) counter.copied += this.size;
      }
    } as MapConstructor;
    return counter;
  }

  const credentials = { api_key_salt: 'salt', api_key_hash: 'hash' };

  it('adds a user without copying the users before it', () => {
    let state: OrganizationState = initialOrganization();
    const created: Fact[] = [];
    const fold = (facts: Fact[]) => {
      for (const fact of facts) state = evolveOrganization(state, fact);
    };
    fold([{ type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1 }]);
    const USERS = 1_000;
    for (let i = 0; i < USERS; i++) {
      created.push(...decideCreateUser(state, { actor: undefined, user: { email: `u${i}@example.com`, full_name: `U ${i}`, role: ROLE.member }, credentials, now: 1_000 }));
      fold(created.slice(-1));
    }
    // Fold the same facts again, counting: copying both maps for each user copied about USERS² entries.
    state = initialOrganization();
    const counter = countCopies();
    fold([{ type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1 }]);
    const halfway = created.length / 2;
    fold(created.slice(0, halfway));
    const before = state;
    fold(created.slice(halfway));
    expect(counter.copied).toBe(0);
    globalThis.Map = realMap;

    expect(state.usersById.size).toBe(USERS);
    expect(state.usersById.get(USERS)?.email).toBe(`u${USERS - 1}@example.com`);
    expect(state.usersByEmail.get(`u${USERS - 1}@example.com`)?.user_id).toBe(USERS);
    // The state halfway through is what it was.
    expect(before.usersById.size).toBe(halfway);
    expect(before.usersById.has(halfway + 1)).toBe(false);
    expect([...before.usersById.keys()]).toEqual(Array.from({ length: halfway }, (_, i) => i + 1));
  });

  it("announces a change to a person to exactly the active users, as a pass over the users finds them", () => {
    const pick = random(42);
    let state: OrganizationState = evolveOrganization(initialOrganization(), { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 1 });
    const owner = { user_id: 1, email: 'u0@example.com', full_name: 'U 0', role: ROLE.owner, is_bot: false, client: 'test' };
    const fold = (facts: Fact[]) => {
      for (const fact of facts) state = evolveOrganization(state, fact);
    };
    const byPass = (s: OrganizationState) =>
      [...s.usersById.values()]
        .filter((u) => u.is_active)
        .map((u) => u.user_id)
        .sort((a, b) => a - b);
    for (let i = 0; i < 300; i++) {
      const ids = [...state.usersById.keys()].filter((id) => id !== 1);
      const target = ids.length > 0 ? state.usersById.get(ids[pick(ids.length)]!)! : undefined;
      const move = pick(6);
      if (!target || move < 3) {
        // Some of them bots owned by a member, deactivated with their owner.
        const bot = i > 0 && pick(4) === 0;
        const user = { email: `u${i}@example.com`, full_name: `U ${i}`, role: i === 0 ? ROLE.owner : ROLE.member, ...(bot ? { is_bot: true, bot_owner_id: target?.user_id ?? 1 } : {}) };
        fold(decideCreateUser(state, { actor: undefined, user, credentials, now: 1_000 }));
      } else if (move < 5 && target.is_active) {
        fold(decideDeactivateUser(state, { actor: owner, user_id: target.user_id }));
      } else if (!target.is_active) {
        fold(decideReactivateUser(state, { actor: owner, user_id: target.user_id }));
      }
      expect(personAudience(state)).toEqual(byPass(state));
      expect(personAudience(state, [999])).toEqual([...byPass(state), 999]);
    }
    expect(byPass(state).length).toBeLessThan(state.usersById.size);
  });
});
