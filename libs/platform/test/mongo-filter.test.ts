/** The MongoDB adapter's translations, which need no engine: filters, sorts, indexes, the guard. */
import { MongoServerError } from 'mongodb';
import { toMongoFilter, toMongoLimit, toMongoSort } from '../src/adapters/mongo-filter';
import { guardCondition, isGuardRefusal, toMongoIndex } from '../src/adapters/mongo-read-models';
import type { Filter } from '../src/ports/read-models';

describe('toMongoFilter', () => {
  it('keeps equality, null, booleans and array containment as MongoDB reads them', () => {
    expect(toMongoFilter({ role: 400, active: true, email: null, groups: 'admins' })).toEqual({
      role: 400,
      active: true,
      email: null,
      groups: 'admins',
    });
    expect(toMongoFilter({})).toEqual({});
  });

  it('passes the port operators, dropping bounds left undefined', () => {
    expect(toMongoFilter({ role: { $gte: 200, $lt: undefined } as never, _id: { $in: [1, 'x', null] }, note: { $nin: ['bot'] }, email: { $ne: null } })).toEqual({
      role: { $gte: 200 },
      _id: { $in: [1, 'x', null] },
      note: { $nin: ['bot'] },
      email: { $ne: null },
    });
  });

  it.each<[string, Filter]>([
    ['an operator MongoDB would run', { role: { $where: 'sleep(1000)' } as never }],
    ['a regex', { name: { $regex: '.*' } as never }],
    ['a dotted path', { 'a.b': 1 }],
    ['a top-level operator', { $where: 1 } as never],
    ['an empty field name', { '': 1 }],
    ['an array value', { groups: ['a'] as never }],
    ['an object value', { name: { nested: 1 } as never }],
    ['a non-finite number', { n: Number.NaN }],
    ['$in without an array', { n: { $in: 3 } as never }],
    ['a null range bound', { n: { $gt: null } }],
    ['an empty condition', { n: {} as never }],
    ['an object inside $in', { n: { $in: [{ $gt: 1 }] } as never }],
  ])('refuses %s', (_label, filter) => {
    expect(() => toMongoFilter(filter)).toThrow();
  });
});

describe('toMongoSort and toMongoLimit', () => {
  it('sorts by the field then _id, by _id alone when asked or by default', () => {
    expect(toMongoSort({ sort: ['name', -1] })).toEqual([['name', -1], ['_id', -1]]);
    expect(toMongoSort({ sort: ['_id', -1] })).toEqual([['_id', -1]]);
    expect(toMongoSort()).toEqual([['_id', 1]]);
    expect(() => toMongoSort({ sort: ['name; drop', 1] })).toThrow();
    expect(() => toMongoSort({ sort: ['name', 2 as never] })).toThrow();
  });

  it('reads 0 and absence as no limit, and refuses others that are not whole', () => {
    expect(toMongoLimit({ limit: 5 })).toBe(5);
    expect(toMongoLimit({})).toBe(0);
    expect(() => toMongoLimit({ limit: -1 })).toThrow();
    expect(() => toMongoLimit({ limit: 1.5 })).toThrow();
  });
});

describe('toMongoIndex', () => {
  it('makes compound, unique and partial indexes', () => {
    expect(toMongoIndex({ fields: ['user', 'channel'], unique: true })).toEqual({ key: { user: 1, channel: 1 }, options: { unique: true } });
    expect(toMongoIndex({ fields: ['role', '_id'], where: { active: true } })).toEqual({
      key: { role: 1, _id: 1 },
      options: { partialFilterExpression: { active: true } },
    });
    expect(toMongoIndex({ fields: ['groups'], multikey: true })).toEqual({ key: { groups: 1 }, options: {} });
    expect(() => toMongoIndex({ fields: ['a', 'b'], multikey: true })).toThrow();
    expect(() => toMongoIndex({ fields: ['$x'] })).toThrow();
  });
});

describe('position guard', () => {
  it('lets a fact write a document that is absent or older than it', () => {
    expect(guardCondition('c', 12)).toEqual({ _id: 'c', $or: [{ _position: { $exists: false } }, { _position: { $lt: 12 } }] });
  });

  it('tells a refused guard (duplicate _id on upsert) from a unique index violation', () => {
    const duplicate = (keyPattern: Record<string, number>) => new MongoServerError({ code: 11000, keyPattern, errmsg: 'E11000 duplicate key error' });
    expect(isGuardRefusal(duplicate({ _id: 1 }))).toBe(true);
    expect(isGuardRefusal(duplicate({ name: 1 }))).toBe(false);
    expect(isGuardRefusal(new MongoServerError({ code: 2, errmsg: 'bad' }))).toBe(false);
    expect(isGuardRefusal(new Error('network'))).toBe(false);
  });
});
