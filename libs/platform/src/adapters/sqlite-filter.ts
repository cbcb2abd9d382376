import type { FieldCondition, Filter, TextSearch } from '../ports/read-models';
import type Database from 'better-sqlite3';
import { checkName, type CollectionSchema } from './sqlite-collection-schema';

type Scalar = string | number | boolean | null;

/** Values as SQLite sees them: json_extract yields JSON true/false as 1/0. */
function bindable(value: Scalar): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    return value;
  }
  throw new Error(`filter values must be strings, finite numbers, booleans or null, got ${JSON.stringify(value)}`);
}

export interface Compiled {
  where: string;
  params: unknown[];
}

const RANGE_OPERATORS = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' } as const;

/**
 * A port filter as a WHERE clause on the collection's table, with its parameters; its
 * text condition is left to textQuery. `idColumn`: how `_id` is named (with a text
 * condition, the text index's rowid, so that its id range narrows the index's scan).
 */
export function compileFilter(schema: CollectionSchema, filter: Filter, idColumn = '_id'): Compiled {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const [field, condition] of Object.entries(filter)) {
    checkName('field', field);
    if (isText(condition)) continue;
    if (schema.multikey.has(field)) compileMultikey(schema, field, condition, clauses, params);
    else compileScalar(field === '_id' ? idColumn : schema.column(field), condition, clauses, params);
  }
  return { where: clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`, params };
}

function compileScalar(column: string, condition: FieldCondition, clauses: string[], params: unknown[]): void {
  for (const [op, value] of operators(condition)) {
    switch (op) {
      case '$eq':
        if (value === null) clauses.push(`${column} IS NULL`);
        // A boolean is written into the SQL, not bound: SQLite uses a partial index
        // only when the query's terms match the index's condition literally.
        else if (typeof value === 'boolean') clauses.push(`${column} = ${value ? 1 : 0}`);
        else {
          clauses.push(`${column} = ?`);
          params.push(bindable(value as Scalar));
        }
        break;
      case '$ne':
        // IS NOT is null-safe: a missing field differs from any value, as in MongoDB.
        clauses.push(`${column} IS NOT ?`);
        params.push(bindable(value as Scalar));
        break;
      case '$in':
      case '$nin': {
        const { values, hasNull } = splitNull(value, op);
        const inList = `${column} IN (SELECT value FROM json_each(?))`;
        clauses.push(
          op === '$in'
            ? hasNull
              ? `(${inList} OR ${column} IS NULL)`
              : inList
            : hasNull
              ? `(${column} IS NOT NULL AND NOT ${inList})`
              : `(${column} IS NULL OR NOT ${inList})`,
        );
        params.push(JSON.stringify(values));
        break;
      }
      default:
        clauses.push(`${column} ${RANGE_OPERATORS[op]} ?`);
        params.push(rangeValue(op, value));
    }
  }
}

/**
 * Conditions on an array field hold when some element satisfies them (each operator on
 * its own, as in MongoDB); negations hold when no element matches.
 */
function compileMultikey(schema: CollectionSchema, field: string, condition: FieldCondition, clauses: string[], params: unknown[]): void {
  const elements = (test: string) => `_id IN (SELECT id FROM ${schema.sideTable} WHERE field = '${field}' AND ${test})`;
  for (const [op, value] of operators(condition)) {
    switch (op) {
      case '$eq':
        // MongoDB's null also matches a missing field, which has no element rows.
        if (value === null) clauses.push(`(${schema.column(field)} IS NULL OR ${elements('value IS NULL')})`);
        else {
          clauses.push(elements('value = ?'));
          params.push(bindable(value as Scalar));
        }
        break;
      case '$ne':
        clauses.push(value === null ? `NOT (${schema.column(field)} IS NULL OR ${elements('value IS NULL')})` : `NOT ${elements('value = ?')}`);
        if (value !== null) params.push(bindable(value as Scalar));
        break;
      case '$in':
      case '$nin': {
        const { values, hasNull } = splitNull(value, op);
        const test = `${elements('value IN (SELECT value FROM json_each(?))')}${
          hasNull ? ` OR ${schema.column(field)} IS NULL OR ${elements('value IS NULL')}` : ''
        }`;
        clauses.push(op === '$in' ? `(${test})` : `NOT (${test})`);
        params.push(JSON.stringify(values));
        break;
      }
      default:
        clauses.push(elements(`value ${RANGE_OPERATORS[op]} ?`));
        params.push(rangeValue(op, value));
    }
  }
}

type Operator = '$eq' | '$ne' | '$in' | '$nin' | keyof typeof RANGE_OPERATORS;

function operators(condition: FieldCondition): [Operator, unknown][] {
  if (condition === null || typeof condition !== 'object') return [['$eq', condition]];
  if (Array.isArray(condition)) throw new Error('a filter value cannot be an array; use $in');
  // Optional bounds left undefined (e.g. `{ $gte: from, $lt: until }`) impose nothing.
  const entries = Object.entries(condition).filter(([, value]) => value !== undefined);
  if (entries.length === 0) throw new Error('empty filter condition');
  for (const [op] of entries) {
    if (op !== '$ne' && op !== '$in' && op !== '$nin' && !(op in RANGE_OPERATORS)) {
      throw new Error(`unsupported filter operator: ${op}`);
    }
  }
  return entries as [Operator, unknown][];
}

function splitNull(value: unknown, op: string): { values: (string | number)[]; hasNull: boolean } {
  if (!Array.isArray(value)) throw new Error(`${op} needs an array`);
  // Booleans travel as JSON true/false, which json_each yields as 1/0 like json_extract.
  const values = (value as Scalar[]).map(bindable);
  return { values: values.filter((v): v is string | number => v !== null), hasNull: values.includes(null) };
}

function rangeValue(op: string, value: unknown): string | number {
  const bound = bindable(value as Scalar);
  if (bound === null) throw new Error(`${op} needs a non-null value`);
  return bound;
}

const isText = (condition: FieldCondition): condition is { $text: TextSearch } =>
  condition !== null && typeof condition === 'object' && '$text' in condition;

/**
 * A filter's text condition: the tables to read (the text index first, in its id order,
 * then each match's document, whatever indexes the rest of the filter could use) and
 * the MATCH term; undefined without one, null when it cannot match.
 */
export function textQuery(
  schema: CollectionSchema,
  filter: Filter,
  statement: (sql: string) => Database.Statement<unknown[], unknown>,
): { from: string; index: string; indexAlone: boolean; match: string; expression: string } | null | undefined {
  const texts = Object.entries(filter).filter(([, condition]) => isText(condition));
  if (texts.length === 0) return undefined;
  const [field, condition] = texts[0]!;
  if (texts.length > 1) throw new Error('one $text condition per filter');
  const text = schema.text;
  if (!text || text.field !== field) throw new Error(`$text on ${field}, which has no text index`);
  if (Object.keys(condition as object).length !== 1) throw new Error('$text goes alone on its field');
  const expression = text.expression((condition as { $text: TextSearch }).$text, statement);
  if (expression === null) return null;
  // `+t.rowid`: without affinity, so the comparison with the _id column (which has none)
  // can use its primary key; with the rowid's integer affinity it cannot, and each match
  // scanned the whole table (200 ms a page at 10,000 documents).
  return {
    from: `${text.table} AS t CROSS JOIN ${schema.table} ON ${schema.table}._id = +t.rowid`,
    index: `${text.table} AS t`,
    // Only ids within an id range: the index answers alone (it holds every document with words).
    indexAlone: Object.keys(filter).every((f) => f === '_id' || f === field),
    match: 't.words MATCH ?',
    expression,
  };
}
