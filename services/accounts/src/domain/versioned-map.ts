/**
 * A map whose every version stays readable, made for a stream's fold: each fact makes a
 * new state from the last one, and the old state must not change (a decision may still be
 * looking at it, and a failed append falls back to it). Copying a plain Map for that made
 * every new user cost a copy of every user before it, O(users²) for an organization.
 *
 * Here all versions share one store of per-key histories. A change made from the newest
 * version adds one node to its key's history: O(1). A change made from an older version
 * (two folds from the same cached state, rare) copies that version first, as before, so
 * the answer is exact either way. Each version reads as a Map would, iteration order
 * included: keys in the order they were added, a key deleted and added again at the end.
 *
 * The price is memory: the store keeps every value a key has had since it was last
 * copied, one small node per change, so it grows with the changes folded (the stream's
 * length), not with the versions kept.
 */

interface Node<V> {
  readonly version: number;
  /** False for a deletion. */
  readonly present: boolean;
  readonly value: V | undefined;
  /** The version in which the key was last added (from absent): its place in the order. */
  readonly addedIn: number;
  readonly older: Node<V> | undefined;
}

interface Store<K, V> {
  newest: number;
  readonly heads: Map<K, Node<V>>;
  /** Every addition of a key, in version order: the iteration order of every version. */
  readonly additions: { key: K; version: number }[];
}

export class VersionedMap<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly store: Store<K, V>,
    private readonly version: number,
    readonly size: number,
  ) {}

  static empty<K, V>(): VersionedMap<K, V> {
    return new VersionedMap<K, V>({ newest: 0, heads: new Map(), additions: [] }, 0, 0);
  }

  static of<K, V>(entries: Iterable<readonly [K, V]>): VersionedMap<K, V> {
    let map = VersionedMap.empty<K, V>();
    for (const [key, value] of entries) map = map.with(key, value);
    return map;
  }

  get(key: K): V | undefined {
    const node = this.nodeOf(key);
    return node?.present ? node.value : undefined;
  }

  has(key: K): boolean {
    return this.nodeOf(key)?.present ?? false;
  }

  /** This map with `key` set to `value`; this one is unchanged. */
  with(key: K, value: V): VersionedMap<K, V> {
    const base = this.newestOrCopy();
    const before = base.nodeOf(key);
    const present = before?.present ?? false;
    return base.next(key, { present: true, value, addedIn: present ? before!.addedIn : base.version + 1, older: before }, present ? 0 : 1);
  }

  /** This map without `key`; this one is unchanged. */
  without(key: K): VersionedMap<K, V> {
    if (!this.has(key)) return this;
    const base = this.newestOrCopy();
    const before = base.nodeOf(key)!;
    return base.next(key, { present: false, value: undefined, addedIn: before.addedIn, older: before }, -1);
  }

  *entries(): MapIterator<[K, V]> {
    const { additions } = this.store;
    for (let i = 0; i < additions.length && additions[i]!.version <= this.version; i++) {
      const { key, version } = additions[i]!;
      const node = this.nodeOf(key);
      // A key deleted since, or deleted and added again later, is not in this place.
      if (node?.present && node.addedIn === version) yield [key, node.value as V];
    }
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  /** The key's newest node at this version or before it. */
  private nodeOf(key: K): Node<V> | undefined {
    let node = this.store.heads.get(key);
    while (node && node.version > this.version) node = node.older;
    return node;
  }

  private next(key: K, node: Omit<Node<V>, 'version'>, grows: number): VersionedMap<K, V> {
    const version = ++this.store.newest;
    this.store.heads.set(key, { ...node, version });
    if (!node.older?.present && node.present) this.store.additions.push({ key, version });
    return new VersionedMap(this.store, version, this.size + grows);
  }

  private newestOrCopy(): VersionedMap<K, V> {
    if (this.version === this.store.newest) return this;
    let copy = VersionedMap.empty<K, V>();
    for (const [key, value] of this.entries()) copy = copy.with(key, value);
    return copy;
  }
}

/**
 * Ids in ascending order, versioned as VersionedMap is: a version is a prefix of one shared
 * array, so adding an id above every other one to the newest version is O(1); any other
 * change copies (deactivations and reactivations, rare).
 */
export class AscendingIds {
  private constructor(
    private readonly shared: number[],
    readonly length: number,
  ) {}

  static empty(): AscendingIds {
    return new AscendingIds([], 0);
  }

  has(id: number): boolean {
    return this.indexOf(id) >= 0;
  }

  with(id: number): AscendingIds {
    const newest = this.length === this.shared.length;
    if (newest && (this.length === 0 || this.shared[this.length - 1]! < id)) {
      this.shared.push(id);
      return new AscendingIds(this.shared, this.length + 1);
    }
    if (this.has(id)) return this;
    const ids = this.toArray();
    ids.splice(this.insertionPoint(id), 0, id);
    return new AscendingIds(ids, ids.length);
  }

  without(id: number): AscendingIds {
    const at = this.indexOf(id);
    if (at < 0) return this;
    const ids = this.toArray();
    ids.splice(at, 1);
    return new AscendingIds(ids, ids.length);
  }

  /** A new array: the caller may keep or change it. */
  toArray(): number[] {
    return this.shared.slice(0, this.length);
  }

  private indexOf(id: number): number {
    const at = this.insertionPoint(id);
    return at < this.length && this.shared[at] === id ? at : -1;
  }

  /** The first index whose id is not below `id`. */
  private insertionPoint(id: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.shared[middle]! < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
