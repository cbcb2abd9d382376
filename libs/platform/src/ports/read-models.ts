/**
 * The read-model port, shaped after what MongoDB offers: documents keyed by id in named
 * collections, single-document atomic writes, secondary indexes declared up front, simple
 * filtered and sorted finds, and a checkpoint per projector. Nothing here spans documents
 * atomically; projectors are idempotent instead.
 */

export type DocId = string | number;

export interface Doc {
  _id: DocId;
  [field: string]: unknown;
}

type Scalar = string | number | boolean | null;

/**
 * A filter over top-level fields. A plain value means equality; for an array-valued field,
 * equality means "contains" (MongoDB semantics); such fields need a `multikey` index.
 * Operators compare scalars. All conditions must hold.
 */
export type FieldCondition =
  | Scalar
  | { $in: Scalar[] }
  | { $nin: Scalar[] }
  | { $ne: Scalar }
  | { $lt?: Scalar; $lte?: Scalar; $gt?: Scalar; $gte?: Scalar }
  | { $text: TextSearch };

/**
 * A condition on a field with a text index (IndexSpec.text): every phrase must occur in
 * the field's words, its words one after another, each a whole word except the last,
 * which may be a whole word or the start of one ("deploy" finds "deployment"). A phrase
 * of one word is a word. Words are what textWords() makes of a text: a query word that
 * is not exactly one such word is refused (an error, not "no match"). At most one text
 * condition per filter; a find with one sorts by `_id` only.
 */
export interface TextSearch {
  phrases: string[][];
}

/**
 * The words a text index sees in a field: runs of characters other than ASCII spaces and
 * punctuation (every non-ASCII character is a word character), ASCII letters lower-cased.
 * Callers normalize their text into such words themselves (Unicode case, scripts written
 * without spaces); the index compares words exactly, code point by code point.
 */
export function textWords(text: string): string[] {
  const words: string[] = [];
  for (const word of text.split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/)) if (word) words.push(word.replace(/[A-Z]+/g, (w) => w.toLowerCase()));
  return words;
}

export type Filter = { [field: string]: FieldCondition };

export interface FindOptions {
  /** Field and direction: 1 ascending, -1 descending. */
  sort?: [string, 1 | -1];
  /**
   * The sort field's values are distinct among the documents the filter selects (a user's
   * rows by message id), so ties need no breaking by `_id`: an index with more columns
   * after that field still gives the order, rather than a sort after reading.
   */
  sortDistinct?: boolean;
  limit?: number;
}

export interface IndexSpec {
  /** Fields of a compound index, in order. */
  fields: string[];
  /**
   * When set, `fields` together must be unique across the collection. Declare it only on
   * fields every document holds: engines disagree on whether documents lacking them
   * collide (MongoDB indexes them as null, so they do; SQLite lets NULLs repeat).
   */
  unique?: boolean;
  /** Set when the (single) indexed field holds an array whose elements are indexed. */
  multikey?: boolean;
  /**
   * A partial index: only documents whose fields hold these booleans are in it (MongoDB's
   * partialFilterExpression). A find uses it when its filter requires the same values.
   * For flags that few documents have set, such as starred or unread.
   */
  where?: Record<string, boolean>;
  /**
   * A text index on the (single) field, a string of words (see textWords), for `$text`
   * conditions. At most one per collection, whose ids must be safe integers. It is kept
   * in the same unit as the document writes (a put or delete changes both or neither),
   * and emptied by clear() with the documents, so a rebuild rebuilds it too.
   */
  text?: boolean;
}

export interface CollectionOptions {
  /**
   * Keep up to this many documents in memory by id. Reads then return the cached object
   * itself, frozen: callers treat documents as immutable values anyway, and identity lets
   * them memoize work per document version (a put replaces the object). Only for
   * collections that this process alone writes, such as a projector's own read models;
   * another writer's changes would not be seen.
   */
  cacheSize?: number;
  /**
   * With `cacheSize`: whether a put also caches the document it writes (the default).
   * Off for collections written far more than they are read by id, such as a row per
   * recipient of every message: each cached write is a long-lived object that the
   * garbage collector must copy out of the young generation and then mark.
   */
  cacheWrites?: boolean;
}

export interface Collection<T extends Doc> {
  get(id: DocId): Promise<T | undefined>;
  /** The documents that exist, in the order of `ids`. */
  getMany(ids: DocId[]): Promise<T[]>;
  /** Inserts or replaces the whole document. */
  put(doc: T): Promise<void>;
  delete(id: DocId): Promise<void>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** What `find` would return, as ids only: an index can answer without reading documents. */
  findIds(filter: Filter, options?: FindOptions): Promise<DocId[]>;
  /**
   * What `find` would return, as `_id` and the given fields only, each a field some index
   * names and holding a string, a number or null (absent reads as null): an index can
   * answer without reading documents.
   */
  findFields<K extends string>(filter: Filter, fields: K[], options?: FindOptions): Promise<({ _id: DocId } & Record<K, string | number | null>)[]>;
  /**
   * findFields without `_id`, by column: one array per field given (in that order), each
   * holding that field's value for every document `find` would return, in its order. For
   * reads of tens of thousands of entries (a user's unread ids at registration), where an
   * object, or even an array, per entry costs more than reading the index.
   */
  findColumns(filter: Filter, fields: string[], options?: FindOptions): Promise<(string | number | null)[][]>;
  count(filter: Filter): Promise<number>;
  /**
   * Deletes every document; the collection and its indexes stay. For a projection that
   * replays from the start into a new shape (see ProjectorOptions.collections).
   */
  clear(): Promise<void>;
}

/**
 * Tests documents on a thread of their own (see ReadModelStore.offThreadTester). The test
 * is the `test(doc, args)` export of a compiled module, `args` a structured-clonable value;
 * a document passes when it returns a truthy value, which comes back with it.
 */
export interface DocTester {
  /**
   * Of `ids`, those whose documents pass the test, in the order given, with what the test
   * returned for each (`values[i]` for `passed[i]`); `missing`: those without a document.
   * What the store's own thread wrote is seen: it is committed first. Rejects when the
   * thread is gone (the caller then tests on its own thread).
   */
  test(collection: string, ids: DocId[], args: unknown): Promise<DocTestResult>;
}

export interface DocTestResult {
  passed: DocId[];
  values: unknown[];
  missing: DocId[];
}

export interface ReadModelStore {
  /** Opens (creating when absent) a collection with its indexes. */
  collection<T extends Doc>(name: string, indexes?: IndexSpec[], options?: CollectionOptions): Collection<T>;

  /**
   * Removes a collection no longer declared, with its indexes (nothing when absent), so a
   * read model that changed shape does not keep the old one's space. Not for a collection
   * opened in this process.
   */
  dropCollection(name: string): Promise<void>;

  /** The position a projector has applied up to (0 when it never ran). */
  getCheckpoint(projector: string): Promise<number>;
  setCheckpoint(projector: string, position: number): Promise<void>;

  /**
   * Runs `work` as one unit where the engine can (one SQLite transaction); where it cannot
   * (MongoDB without a replica set) the writes inside are applied one by one. Callers must
   * therefore stay correct without atomicity: projectors are idempotent.
   */
  batch<R>(work: () => Promise<R>): Promise<R>;

  /**
   * Resolves once every batch finished before the call is committed, without waiting for a
   * group commit's window; rejects when that commit fails. For the rare write a client is
   * told is done and must not lose to a crash right after (deleting an event queue).
   */
  durable(): Promise<void>;

  /**
   * Told by a projector, inside a batch, the position of the fact whose writes follow
   * (undefined once it is done). Where batches are not atomic, an adapter stamps each
   * document it writes with it and drops writes of facts at or before the stamp, so that a
   * replayed fact changes nothing. Adapters with atomic batches need not implement it.
   */
  applying?(position: number | undefined): void;

  /**
   * Told by a projector when a catch-up of its (a rebuild, a start after a long stop)
   * begins and when it ends. An adapter may then hold less in memory: a rebuild writes
   * each page of the read models once or twice, where a cache buys little, and a cache
   * sized for serving filled with it.
   */
  catchingUp?(started: boolean): void;

  /**
   * A thread of its own, at a lower OS priority than the caller's, that reads documents
   * and tests them with `module`'s `test` export (one thread per module, started at the
   * first test): for a scan that reads and parses thousands of documents, so that the
   * caller's thread stays free for other requests meanwhile, and the machine's cores
   * serve them first. Undefined where the engine cannot share the data with another
   * thread (an in-memory SQLite file) or reads on its own server already (MongoDB).
   */
  offThreadTester?(module: string): DocTester | undefined;

  close(): Promise<void>;
}
