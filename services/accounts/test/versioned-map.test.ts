/**
 * The organization's user registry as versioned maps: every version reads exactly as the
 * plain Map it replaces would (iteration order included), older versions never change,
 * and a new user copies nothing (it copied every user before it).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { ROLE, type Fact } from '@teamchat/contracts';
import { decideCreateUser, evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import { VersionedMap } from '../src/domain/versioned-map';

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
});
