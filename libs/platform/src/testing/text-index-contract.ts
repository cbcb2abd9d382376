import type * as JestGlobals from '@jest/globals';
import type { Collection, Doc, TextSearch } from '../ports/read-models';
import type { ReadModelFixture } from './read-model-contract';

interface NoteDoc extends Doc {
  _id: number;
  owner: number;
  text?: string | null;
}

const search = (...phrases: string[]): { $text: TextSearch } => ({ $text: { phrases: phrases.map((p) => p.split(' ')) } });

/**
 * What every adapter owes a collection with a text index (IndexSpec.text): the same
 * matches, in id order, kept with every write. Run against each adapter's factory.
 */
export function textIndexContract(name: string, open: () => Promise<ReadModelFixture>): void {
  const { describe, it, expect, beforeEach, afterEach } = globalThis as unknown as typeof JestGlobals;

  describe(`ReadModelStore text index: ${name}`, () => {
    let fixture: ReadModelFixture;
    let notes: Collection<NoteDoc>;
    const openNotes = () => fixture.store.collection<NoteDoc>('notes', [{ fields: ['owner'] }, { fields: ['text'], text: true }]);

    beforeEach(async () => {
      fixture = await open();
      notes = openNotes();
      const texts = [
        'deployment of the new release notes',
        'release the notes',
        'we deploy on friday',
        'near and or not',
        'café 会 議 naïve',
        'notes',
      ];
      for (const [i, text] of texts.entries()) await notes.put({ _id: i + 1, owner: i % 2, text });
      await notes.put({ _id: 7, owner: 0 });
      await notes.put({ _id: 8, owner: 0, text: null });
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const ids = async (filter: Parameters<Collection<NoteDoc>['findIds']>[0], direction: 1 | -1 = 1, limit?: number) =>
      notes.findIds(filter, { sort: ['_id', direction], ...(limit ? { limit } : {}) });

    it('finds whole words and word starts, every phrase needed, in id order', async () => {
      expect(await ids({ text: search('deploy') })).toEqual([1, 3]);
      expect(await ids({ text: search('deployment') })).toEqual([1]);
      expect(await ids({ text: search('ploy') })).toEqual([]);
      expect(await ids({ text: search('n') })).toEqual([1, 2, 4, 5, 6]);
      expect(await ids({ text: search('notes', 'release') })).toEqual([1, 2]);
      expect(await ids({ text: search('notes', 'release', 'friday') })).toEqual([]);
      expect(await ids({ text: search('release notes') })).toEqual([1]);
      expect(await ids({ text: search('release no') })).toEqual([1]);
      expect(await ids({ text: search('notes release') })).toEqual([]);
      expect(await ids({ text: search('the new rel') })).toEqual([1]);
      expect(await ids({ text: search('zzzz') })).toEqual([]);
    });

    it('reads operator words and other scripts as plain words', async () => {
      expect(await ids({ text: search('near', 'and', 'or', 'not') })).toEqual([4]);
      expect(await ids({ text: search('and or') })).toEqual([4]);
      expect(await ids({ text: search('café') })).toEqual([5]);
      expect(await ids({ text: search('caf') })).toEqual([5]);
      expect(await ids({ text: search('会 議') })).toEqual([5]);
      expect(await ids({ text: search('naïve') })).toEqual([5]);
    });

    it('refuses words that are not one word of the index, and searches without a phrase', async () => {
      for (const word of ['"', 'a*', 'x:y', '^a', 'AND', 'a b', '(a)', '-a', '', 'NEAR(a b)']) {
        await expect(notes.findIds({ text: { $text: { phrases: [[word]] } } })).rejects.toThrow();
      }
      await expect(notes.findIds({ text: { $text: { phrases: [] } } })).rejects.toThrow();
      await expect(notes.findIds({ owner: search('notes') })).rejects.toThrow();
    });

    it('pages by id both ways, within an id range, with the other conditions', async () => {
      expect(await ids({ text: search('notes') }, -1)).toEqual([6, 2, 1]);
      expect(await ids({ text: search('notes') }, -1, 2)).toEqual([6, 2]);
      expect(await ids({ text: search('notes'), _id: { $lt: 6 } }, -1, 1)).toEqual([2]);
      expect(await ids({ text: search('notes'), _id: { $gt: 1, $lte: 6 } }, 1)).toEqual([2, 6]);
      expect(await ids({ text: search('notes'), _id: { $in: [1, 6, 3] } })).toEqual([1, 6]);
      expect(await ids({ text: search('notes'), owner: 1 })).toEqual([2, 6]);
      expect((await notes.find({ text: search('friday') }, { sort: ['_id', 1] })).map((d) => d.text)).toEqual(['we deploy on friday']);
      expect(await notes.count({ text: search('notes') })).toBe(3);
      expect(await notes.count({ text: search('notes'), owner: 0 })).toBe(1);
    });

    it('follows edits and deletions, and is emptied and refilled with the documents', async () => {
      await notes.put({ _id: 3, owner: 1, text: 'we ship on monday' });
      expect(await ids({ text: search('friday') })).toEqual([]);
      expect(await ids({ text: search('monday') })).toEqual([3]);
      expect(await ids({ text: search('deploy') })).toEqual([1]);
      await notes.put({ _id: 3, owner: 0, text: 'we ship on monday' });
      expect(await ids({ text: search('monday'), owner: 0 })).toEqual([3]);
      await notes.put({ _id: 3, owner: 0 });
      expect(await ids({ text: search('monday') })).toEqual([]);
      await notes.put({ _id: 7, owner: 0, text: 'monday again' });
      expect(await ids({ text: search('monday') })).toEqual([7]);
      await notes.delete(1);
      expect(await ids({ text: search('notes') })).toEqual([2, 6]);
      await notes.clear();
      expect(await ids({ text: search('notes') })).toEqual([]);
      await notes.put({ _id: 1, owner: 0, text: 'notes again' });
      expect(await ids({ text: search('notes') })).toEqual([1]);
    });

    it('expands a prefix of many words, and keeps what a batch wrote only if it committed', async () => {
      const many = Array.from({ length: 80 }, (_, i) => `prefixword${String(i).padStart(2, '0')}`);
      for (const [i, word] of many.entries()) await notes.put({ _id: 100 + i, owner: 0, text: `${word} tail${i % 3}` });
      expect((await ids({ text: search('prefixword') })).length).toBe(80);
      expect(await ids({ text: search('prefixword7') })).toEqual([170, 171, 172, 173, 174, 175, 176, 177, 178, 179]);
      expect(await ids({ text: search('prefixword', 'tail2') }, -1, 3)).toEqual([177, 174, 171]);
      expect(await ids({ text: search('prefixword79 tail') })).toEqual([179]);
      if (!fixture.atomicBatch) return;
      await expect(
        fixture.store.batch(async () => {
          await notes.put({ _id: 9, owner: 0, text: 'rolled back' });
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await ids({ text: search('rolled') })).toEqual([]);
    });

    it('refuses ids the index cannot key', async () => {
      const other = fixture.store.collection<Doc>('stringly', [{ fields: ['text'], text: true }]);
      await expect(other.put({ _id: 'a', text: 'x' })).rejects.toThrow();
    });

    it('survives reopening, and indexes what a collection held before the index was declared', async () => {
      if (!fixture.reopen) return;
      const plain = fixture.store.collection<Doc>('later', []);
      await plain.put({ _id: 1, text: 'written before' });
      const store = await fixture.reopen();
      notes = store.collection<NoteDoc>('notes', [{ fields: ['owner'] }, { fields: ['text'], text: true }]);
      expect(await ids({ text: search('deploy') })).toEqual([1, 3]);
      const later = store.collection<Doc>('later', [{ fields: ['text'], text: true }]);
      expect(await later.findIds({ text: search('befo') })).toEqual([1]);
    });
  });
}
