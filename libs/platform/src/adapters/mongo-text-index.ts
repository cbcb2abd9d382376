/**
 * A collection's text index (IndexSpec.text) on MongoDB. Not MongoDB's own text index:
 * it stems words and drops stop words by language, ORs the words of a search, matches no
 * word starts, and returns matches unordered (a page of a common word would sort every
 * match). Instead each document keeps its distinct words in a hidden array field with an
 * index on (word, _id), so a word's matches come in id order from the index and a page
 * costs the same however many documents match; a phrase's word order is checked by a
 * regular expression on the text of the candidates the words select. A word start is
 * expanded, through a vocabulary collection of the words ever indexed, into the words it
 * starts (read with $in, which MongoDB merges in id order); a start of more than
 * MAX_EXPANSIONS words is read as a range of words, which MongoDB must sort in memory:
 * the one place where this index does worse than SQLite's FTS5 prefix indexes (short
 * starts like "a" or "th" are such ranges here).
 */
import type { Collection as MongoCollection, Db, Document } from 'mongodb';
import { textWords, type TextSearch } from '../ports/read-models';
import { checkedPhrases, MAX_EXPANSIONS, successor } from './sqlite-text-index';

/** The hidden field holding a document's distinct words; never returned to callers. */
export const WORDS_FIELD = '_words';

/** ASCII punctuation and spaces: what separates words (textWords). */
const SEPARATOR = '[\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]';

export class MongoTextIndex {
  private readonly vocabulary: MongoCollection<{ _id: string }>;

  constructor(
    db: Db,
    collection: string,
    readonly field: string,
  ) {
    this.vocabulary = db.collection(`_words_${collection}`);
  }

  /** The index a collection with this text index needs. */
  static indexKey(): Record<string, 1> {
    return { [WORDS_FIELD]: 1, _id: 1 };
  }

  /** The stored document with its words; the vocabulary learns them first (harmless if the write then fails). */
  async stored(doc: Document, previousText: unknown): Promise<Document> {
    const text = doc[this.field];
    const words = typeof text === 'string' ? [...new Set(textWords(text))] : [];
    if (words.length > 0 && text !== previousText) {
      await this.vocabulary.bulkWrite(
        words.map((word) => ({ updateOne: { filter: { _id: word }, update: { $setOnInsert: { seen: true } }, upsert: true } })),
        { ordered: false },
      );
    }
    return { ...doc, [WORDS_FIELD]: words };
  }

  async clear(): Promise<void> {
    await this.vocabulary.deleteMany({});
  }

  /** The MongoDB query for a search, or null when it cannot match. */
  async query(search: TextSearch): Promise<Document | null> {
    const conditions: Document[] = [];
    for (const phrase of checkedPhrases(search)) {
      for (const word of phrase.slice(0, -1)) conditions.push({ [WORDS_FIELD]: word });
      const last = phrase[phrase.length - 1]!;
      const upper = successor(last);
      const range = upper === undefined ? { $gte: last } : { $gte: last, $lt: upper };
      const found = await this.vocabulary.find({ _id: range }, { projection: { _id: 1 }, sort: { _id: 1 }, limit: MAX_EXPANSIONS + 1 }).toArray();
      const words = found.map((w) => w._id).filter((w) => w.startsWith(last));
      if (words.length === 0) return null;
      conditions.push({ [WORDS_FIELD]: words.length > MAX_EXPANSIONS ? range : { $in: words } });
      if (phrase.length > 1) conditions.push({ [this.field]: { $regex: phrasePattern(phrase) } });
    }
    return conditions.length === 1 ? conditions[0]! : { $and: conditions };
  }
}

/** The phrase's words one after another, as the tokenizer separates them, the last one a start. */
function phrasePattern(phrase: string[]): string {
  const word = (w: string) =>
    [...w].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : /[0-9]/.test(c) ? c : `\\x{${c.codePointAt(0)!.toString(16)}}`)).join('');
  return `(?:^|${SEPARATOR})${phrase.map(word).join(`${SEPARATOR}+`)}`;
}
