/**
 * The read-model port's filters and sorts as MongoDB queries. The port was shaped after
 * MongoDB, so the translation is mostly the identity; what it adds is the checking the
 * SQLite adapter does (plain field names, known operators, scalar values), so that a
 * filter refused by one adapter is refused by the other, and nothing a caller passes can
 * become an operator MongoDB would run ($where, $expr, dotted paths).
 */
import type { FieldCondition, Filter, FindOptions } from '../ports/read-models';
import { checkName } from './sqlite-collection-schema';

type Scalar = string | number | boolean | null;

export type MongoQuery = Record<string, unknown>;

const OPERATORS = new Set(['$ne', '$in', '$nin', '$lt', '$lte', '$gt', '$gte']);

function scalar(value: unknown): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    return value;
  }
  throw new Error(`filter values must be strings, finite numbers, booleans or null, got ${JSON.stringify(value)}`);
}

function condition(field: string, value: FieldCondition): unknown {
  if (value === null || typeof value !== 'object') return scalar(value);
  if (Array.isArray(value)) throw new Error('a filter value cannot be an array; use $in');
  // Optional bounds left undefined impose nothing, as in the SQLite adapter.
  const entries = Object.entries(value).filter(([, operand]) => operand !== undefined);
  if (entries.length === 0) throw new Error(`empty filter condition on ${field}`);
  const translated: Record<string, unknown> = {};
  for (const [op, operand] of entries) {
    if (!OPERATORS.has(op)) throw new Error(`unsupported filter operator: ${op}`);
    if (op === '$in' || op === '$nin') {
      if (!Array.isArray(operand)) throw new Error(`${op} needs an array`);
      translated[op] = operand.map(scalar);
    } else if (op === '$ne') {
      translated[op] = scalar(operand);
    } else {
      const bound = scalar(operand);
      if (bound === null) throw new Error(`${op} needs a non-null value`);
      translated[op] = bound;
    }
  }
  return translated;
}

export function toMongoFilter(filter: Filter): MongoQuery {
  const query: MongoQuery = {};
  for (const [field, value] of Object.entries(filter)) {
    checkName('field', field);
    query[field] = condition(field, value);
  }
  return query;
}

/**
 * The sort: the requested field, then _id in the same direction, so that equal keys come
 * back in one stable order (as the SQLite adapter's index order gives them); by _id when
 * no sort is asked for.
 */
export function toMongoSort(options: FindOptions = {}): [string, 1 | -1][] {
  if (!options.sort) return [['_id', 1]];
  const [field, direction] = options.sort;
  checkName('field', field);
  if (direction !== 1 && direction !== -1) throw new Error(`sort direction must be 1 or -1, got ${String(direction)}`);
  return field === '_id' || options.sortDistinct ? [[field, direction]] : [[field, direction], ['_id', direction]];
}

export function toMongoLimit(options: FindOptions = {}): number {
  if (options.limit === undefined) return 0;
  if (!Number.isInteger(options.limit) || options.limit < 0) throw new Error(`invalid limit: ${options.limit}`);
  // 0 is "no limit" for MongoDB, and so for the SQLite adapter too.
  return options.limit;
}
