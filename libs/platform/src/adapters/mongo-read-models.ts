/**
 * Read models on MongoDB: one MongoDB collection per port collection (documents keyed by
 * `_id`), the declared indexes created when a collection is opened (MongoDB makes an
 * index on an array field multikey by itself; `where` becomes a partial index), and one
 * `_checkpoints` collection holding each projector's position.
 *
 * Atomicity. A batch runs in a transaction where the server offers them (a replica set,
 * even of one node); a standalone server applies its writes one by one, and so does a
 * batch too large for one transaction (it is run again without one). Replays are made
 * harmless by a guard on each document instead: while a projector applies a fact
 * (`applying(position)`), every document it writes records that position in
 * `_position`, and a write of a fact at or before the recorded one is dropped. So a fact
 * replayed after a crash changes nothing it had already changed, even though its batch's
 * checkpoint never made it.
 */
import { LRUCache } from 'lru-cache';
import type { ClientSession, Db, MongoClient, Collection as MongoCollection, Document } from 'mongodb';
import type { Collection, CollectionOptions, Doc, DocId, Filter, FindOptions, IndexSpec, ReadModelStore, TextSearch } from '../ports/read-models';
import { isEngineUnavailable } from '../kit/engines';
import { deepFreeze } from './deep-freeze';
import { mongodbDriver } from './lazy-driver';
import { reconnectDelayMs } from './esdb-positions';
import { toMongoFilter, toMongoLimit, toMongoSort } from './mongo-filter';
import { MongoTextIndex, WORDS_FIELD } from './mongo-text-index';
import { checkName } from './sqlite-collection-schema';

/** The field of the position guard; never returned to callers. */
export const GUARD_FIELD = '_position';

function checkId(id: DocId): DocId {
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  throw new Error(`document ids must be strings or finite numbers, got ${JSON.stringify(id)}`);
}

/** The guard's condition for a write by the fact at `position`: the document is absent or older. */
export function guardCondition(id: DocId, position: number): Document {
  return { _id: id, $or: [{ [GUARD_FIELD]: { $exists: false } }, { [GUARD_FIELD]: { $lt: position } }] };
}

/** A duplicate of `_id` itself: an upsert whose guard refused an existing, newer document. */
export function isGuardRefusal(err: unknown): boolean {
  if ((err as { code?: unknown } | null)?.code !== 11000) return false;
  const keyPattern = (err as { keyPattern?: Record<string, unknown> }).keyPattern;
  if (keyPattern) return Object.keys(keyPattern).length === 1 && '_id' in keyPattern;
  return /index: _id_ /.test(String((err as Error).message));
}

/** The Mongo index a port index becomes. */
export function toMongoIndex(spec: IndexSpec): { key: Record<string, 1>; options: { unique?: boolean; partialFilterExpression?: Document } } {
  if (spec.fields.length === 0) throw new Error('an index needs at least one field');
  if (spec.multikey && spec.fields.length !== 1) throw new Error('a multikey index has one field');
  const key = Object.fromEntries(spec.fields.map((field) => [checkName('field', field), 1 as const]));
  const options: { unique?: boolean; partialFilterExpression?: Document } = {};
  if (spec.unique) options.unique = true;
  if (spec.where) options.partialFilterExpression = Object.fromEntries(Object.entries(spec.where).map(([f, v]) => [checkName('field', f), v]));
  return { key, options };
}

/** Errors that mean "MongoDB cannot take this batch as one transaction": run it without. */
function isTransactionLimit(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // TransactionTooLarge, BSONObjectTooLarge, ExceededTimeLimit, TransactionExceededLifetimeLimitSeconds, NoSuchTransaction (aborted for its age)
  return code === 257 || code === 10334 || code === 50 || code === 290 || code === 251;
}

interface Engine {
  session(): ClientSession | undefined;
  guard(): number | undefined;
  touched(collection: MongoReadCollection<Doc>): void;
}

export class MongoReadCollection<T extends Doc> implements Collection<T> {
  private cache: LRUCache<DocId, T> | undefined;
  private cacheWrites = true;
  private ready: Promise<unknown> = Promise.resolve();
  /** Documents whose guard refused the fact being applied: its later writes to them are dropped too. */
  private refused = new Set<DocId>();
  private refusedAt: number | undefined;
  /** Documents the fact being applied wrote: its later writes to them need no guard. */
  private accepted = new Set<DocId>();
  /** The text index, when one is declared (see mongo-text-index.ts). */
  private text: MongoTextIndex | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly collection: MongoCollection<Document>,
  ) {}

  declare(indexes: IndexSpec[], textIndex: (field: string) => MongoTextIndex): void {
    if (indexes.length === 0) return;
    const texts = indexes.filter((spec) => spec.text);
    for (const spec of texts) {
      if (spec.fields.length !== 1 || spec.unique || spec.multikey || spec.where || spec.fields[0] === '_id') {
        throw new Error('a text index covers one field, and is nothing else');
      }
      if (this.text && this.text.field !== spec.fields[0]) throw new Error('one text index per collection');
      this.text ??= textIndex(checkName('field', spec.fields[0]!));
    }
    const specs = indexes.filter((spec) => !spec.text).map(toMongoIndex);
    if (texts.length > 0) specs.push({ key: MongoTextIndex.indexKey(), options: {} });
    const previous = this.ready;
    this.ready = previous.then(() => this.collection.createIndexes(specs.map(({ key, options }) => ({ key, ...options }))));
  }

  cacheUpTo(max: number, cacheWrites: boolean): void {
    if (!this.cache || this.cache.max < max) this.cache = new LRUCache<DocId, T>({ max });
    this.cacheWrites = cacheWrites;
  }

  forgetCached(): void {
    this.cache?.clear();
  }

  private options(): { session?: ClientSession } {
    const session = this.engine.session();
    return session ? { session } : {};
  }

  private fromStored(stored: Document): T {
    const id = stored._id as unknown as DocId;
    const cached = this.cache?.get(id);
    if (cached) return cached;
    delete stored[GUARD_FIELD];
    delete stored[WORDS_FIELD];
    const doc = stored as T;
    if (this.cache) this.cache.set(id, deepFreeze(doc));
    return doc;
  }

  async get(id: DocId): Promise<T | undefined> {
    const cached = this.cache?.get(checkId(id));
    if (cached) return cached;
    await this.ready;
    const stored = await this.collection.findOne({ _id: id as never }, this.options());
    return stored ? this.fromStored(stored) : undefined;
  }

  async getMany(ids: DocId[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const found = new Map<DocId, T>();
    const missing: DocId[] = [];
    for (const id of ids) {
      const cached = this.cache?.get(checkId(id));
      if (cached) found.set(id, cached);
      else missing.push(id);
    }
    if (missing.length > 0) {
      await this.ready;
      for (const stored of await this.collection.find({ _id: { $in: missing as never[] } }, this.options()).toArray()) {
        found.set(stored._id as unknown as DocId, this.fromStored(stored));
      }
    }
    const docs: T[] = [];
    for (const id of ids) {
      const doc = found.get(id);
      if (doc) docs.push(doc);
    }
    return docs;
  }

  /** Whether a write by the fact being applied goes ahead without a guard, with one, or not at all. */
  private guardFor(id: DocId): number | 'skip' | undefined {
    const position = this.engine.guard();
    if (position === undefined) return undefined;
    if (this.refusedAt !== position) {
      this.refusedAt = position;
      this.refused.clear();
      this.accepted.clear();
    }
    if (this.refused.has(id)) return 'skip';
    if (this.accepted.has(id)) return undefined;
    return position;
  }

  async put(doc: T): Promise<void> {
    const id = checkId(doc._id);
    await this.ready;
    const guard = this.guardFor(id);
    if (guard === 'skip') return;
    this.engine.touched(this as unknown as MongoReadCollection<Doc>);
    const position = this.engine.guard();
    let stored: Document = position === undefined ? { ...doc } : { ...doc, [GUARD_FIELD]: position };
    if (this.text) {
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new Error(`a collection with a text index needs integer ids, got ${JSON.stringify(id)}`);
      stored = await this.text.stored(stored, this.cache?.get(id)?.[this.text.field]);
    }
    try {
      if (guard === undefined) {
        await this.collection.replaceOne({ _id: id as never }, stored, { upsert: true, ...this.options() });
      } else {
        await this.collection.replaceOne(guardCondition(id, guard), stored, { upsert: true, ...this.options() });
        this.accepted.add(id);
      }
    } catch (err) {
      if (guard !== undefined && isGuardRefusal(err)) {
        // The document already holds this fact or a later one: a replay, changing nothing.
        this.refused.add(id);
        return;
      }
      this.cache?.delete(id);
      if ((err as { code?: unknown }).code === 11000) throw new Error(`document ${JSON.stringify(id)}: ${(err as Error).message}`, { cause: err });
      throw err;
    }
    if (this.cache && this.cacheWrites) this.cache.set(id, deepFreeze(doc));
    else this.cache?.delete(id);
  }

  async delete(id: DocId): Promise<void> {
    checkId(id);
    await this.ready;
    const guard = this.guardFor(id);
    if (guard === 'skip') return;
    this.engine.touched(this as unknown as MongoReadCollection<Doc>);
    await this.collection.deleteOne(guard === undefined ? { _id: id as never } : guardCondition(id, guard), this.options());
    this.cache?.delete(id);
  }

  /** The filter as a MongoDB query, its text condition included; null when that cannot match. */
  private async query(filter: Filter, options?: FindOptions): Promise<Document | null> {
    const texts = Object.entries(filter).filter(([, c]) => c !== null && typeof c === 'object' && '$text' in c);
    if (texts.length === 0) return toMongoFilter(filter);
    if (texts.length > 1) throw new Error('one $text condition per filter');
    const [field, condition] = texts[0]!;
    if (!this.text || this.text.field !== field) throw new Error(`$text on ${field}, which has no text index`);
    if (Object.keys(condition as object).length !== 1) throw new Error('$text goes alone on its field');
    if (options?.sort && options.sort[0] !== '_id') throw new Error('a find with $text sorts by _id only');
    const rest = toMongoFilter(Object.fromEntries(Object.entries(filter).filter(([f]) => f !== field)));
    await this.ready;
    const text = await this.text.query((condition as { $text: TextSearch }).$text);
    return text === null ? null : { $and: [rest, text] };
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const query = await this.query(filter, options);
    const sort = toMongoSort(options);
    const limit = toMongoLimit(options);
    if (query === null) return [];
    await this.ready;
    const stored = await this.collection.find(query, { sort, limit, ...this.options() }).toArray();
    return stored.map((doc) => this.fromStored(doc));
  }

  async findIds(filter: Filter, options?: FindOptions): Promise<DocId[]> {
    const query = await this.query(filter, options);
    const sort = toMongoSort(options);
    const limit = toMongoLimit(options);
    if (query === null) return [];
    await this.ready;
    const stored = await this.collection.find(query, { sort, limit, projection: { _id: 1 }, ...this.options() }).toArray();
    return stored.map((doc) => doc._id as unknown as DocId);
  }

  async findFields<K extends string>(filter: Filter, fields: K[], options?: FindOptions): Promise<({ _id: DocId } & Record<K, string | number | null>)[]> {
    const stored = await this.projected(filter, fields, options, true);
    return stored.map((doc) => {
      const picked: Record<string, unknown> = { _id: doc._id };
      for (const field of fields) picked[field] = doc[field] ?? null;
      return picked as { _id: DocId } & Record<K, string | number | null>;
    });
  }

  async findColumns(filter: Filter, fields: string[], options?: FindOptions): Promise<(string | number | null)[][]> {
    const stored = await this.projected(filter, fields, options, false);
    return fields.map((field) => stored.map((doc) => (doc[field] ?? null) as string | number | null));
  }

  /** What `find` would return, only the given fields (and `_id` if asked). */
  private async projected(filter: Filter, fields: readonly string[], options: FindOptions | undefined, withId: boolean): Promise<Document[]> {
    const query = await this.query(filter, options);
    if (query === null) return [];
    await this.ready;
    const projection: Document = { _id: withId ? 1 : 0 };
    for (const field of fields) projection[field] = 1;
    return this.collection.find(query, { sort: toMongoSort(options), limit: toMongoLimit(options), projection, ...this.options() }).toArray();
  }

  async count(filter: Filter): Promise<number> {
    const query = await this.query(filter);
    if (query === null) return 0;
    await this.ready;
    return this.collection.countDocuments(query, this.options());
  }

  async clear(): Promise<void> {
    await this.ready;
    await this.collection.deleteMany({}, this.options());
    await this.text?.clear();
    this.cache?.clear();
  }
}

export interface MongoReadModelOptions {
  /** 'auto' (default): transactions where the server offers them; 'off': never. */
  transactions?: 'auto' | 'off';
}

/**
 * One service's read models in one MongoDB database (give each service, and each
 * instance of the events service, its own database name).
 */
export class MongoReadModelStore implements ReadModelStore {
  private readonly collections = new Map<string, MongoReadCollection<Doc>>();
  private readonly checkpoints: MongoCollection<{ _id: string; position: number }>;
  private queueTail: Promise<unknown> = Promise.resolve();
  private currentSession: ClientSession | undefined;
  private guardPosition: number | undefined;
  private touchedInBatch = new Set<MongoReadCollection<Doc>>();

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    readonly transactions: boolean,
  ) {
    this.checkpoints = db.collection('_checkpoints');
  }

  /** Connects and checks the server answers; rejects when it does not (a clear startup error is the caller's). */
  static async connect(url: string, database: string, options: MongoReadModelOptions = {}): Promise<MongoReadModelStore> {
    const client = new (mongodbDriver().MongoClient)(url, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      const db = client.db(database);
      const hello = await db.admin().command({ hello: 1 });
      const replicaSet = typeof hello.setName === 'string';
      return new MongoReadModelStore(client, db, replicaSet && options.transactions !== 'off');
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  }

  private readonly engine: Engine = {
    session: () => this.currentSession,
    guard: () => this.guardPosition,
    touched: (collection) => this.touchedInBatch.add(collection),
  };

  collection<T extends Doc>(name: string, indexes: IndexSpec[] = [], options: CollectionOptions = {}): Collection<T> {
    checkName('collection', name);
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MongoReadCollection(this.engine, this.db.collection(name));
      this.collections.set(name, collection);
    }
    if (options.cacheSize) collection.cacheUpTo(options.cacheSize, options.cacheWrites ?? true);
    collection.declare(indexes, (field) => new MongoTextIndex(this.db, name, field));
    return collection as unknown as Collection<T>;
  }

  async dropCollection(name: string): Promise<void> {
    checkName('collection', name);
    if (this.collections.has(name)) throw new Error(`collection ${name} is open: it cannot be dropped`);
    if (await this.db.listCollections({ name }, { nameOnly: true }).hasNext()) await this.db.dropCollection(name);
  }

  async getCheckpoint(projector: string): Promise<number> {
    const stored = await this.checkpoints.findOne({ _id: projector }, this.currentSession ? { session: this.currentSession } : {});
    return stored?.position ?? 0;
  }

  async setCheckpoint(projector: string, position: number): Promise<void> {
    await this.checkpoints.replaceOne({ _id: projector }, { position }, { upsert: true, ...(this.currentSession ? { session: this.currentSession } : {}) });
  }

  /** The position of the fact whose writes follow (undefined when no fact is being applied). */
  applying(position: number | undefined): void {
    this.guardPosition = position;
  }

  /** Batches are queued so that two never interleave; a batch must not start another. */
  batch<R>(work: () => Promise<R>): Promise<R> {
    const result = this.queueTail.then(() => this.runUntilReachable(work));
    this.queueTail = result.catch(() => undefined);
    return result;
  }

  /** A batch is committed (or its writes acknowledged) when it settles: the queue's tail is enough. */
  durable(): Promise<void> {
    return this.queueTail.then(() => undefined);
  }

  /**
   * A batch that fails because MongoDB is out of reach runs again once it answers (after
   * a growing pause): projectors stall during an outage instead of stopping for good,
   * and applying a batch twice is harmless (a transaction, or the position guards).
   */
  private async runUntilReachable<R>(work: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runBatch(work);
      } catch (err) {
        if (!isEngineUnavailable(err) || this.closed) throw err;
        await new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(attempt)));
      }
    }
  }

  private async runBatch<R>(work: () => Promise<R>): Promise<R> {
    if (!this.transactions) return work();
    const session = this.client.startSession();
    try {
      this.currentSession = session;
      let value: R | undefined;
      await session.withTransaction(async () => {
        this.touchedInBatch.clear();
        try {
          value = await work();
        } catch (err) {
          this.forgetTouched();
          throw err;
        }
      });
      return value as R;
    } catch (err) {
      this.forgetTouched();
      if (!isTransactionLimit(err)) throw err;
      // Too much for one transaction: the guards keep it correct one write at a time.
      this.currentSession = undefined;
      return work();
    } finally {
      this.currentSession = undefined;
      await session.endSession();
    }
  }

  /** A rolled-back transaction's writes must not survive in the caches. */
  private forgetTouched(): void {
    for (const collection of this.touchedInBatch) collection.forgetCached();
    this.touchedInBatch.clear();
  }

  private closed = false;

  async close(): Promise<void> {
    this.closed = true;
    await this.queueTail;
    await this.client.close();
  }
}
