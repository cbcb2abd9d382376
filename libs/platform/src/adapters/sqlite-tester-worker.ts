/**
 * The thread of a SqliteTesterThread (see there): a read-only connection to the store's
 * file that reads the documents it is asked for, tests each with the module's `test`,
 * and answers which passed. It runs at a lower priority than the threads that serve
 * requests, so that on a busy machine the scheduler gives them the cores first.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { DocId } from '../ports/read-models';
import type { TesterRequest, TesterReply, TesterThreadData } from './sqlite-tester-thread';

// Not `module`: that name is CommonJS's own.
const { path, module: testModule, nice, busyTimeoutMs } = workerData as TesterThreadData;

/**
 * Linux keeps a nice value per thread: this thread's id (from /proc/thread-self) names it
 * alone. Elsewhere the call would name the whole process, so nothing is changed there.
 */
function lowerPriority(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return undefined;
    setPriority(tid, nice);
    return tid;
  } catch {
    return undefined;
  }
}

const tid = lowerPriority();
const db = new Database(path, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const test = (require(testModule) as { test: (doc: unknown, args: unknown) => unknown }).test;
if (typeof test !== 'function') throw new Error(`${testModule} exports no test function`);
const statements = new Map<string, Database.Statement<[string], [DocId, string]>>();

function answer(request: TesterRequest): TesterReply {
  let statement = statements.get(request.table);
  if (!statement) {
    // The table name comes from the store (a checked collection name), never from a client.
    statement = db.prepare<[string], [DocId, string]>(`SELECT _id, doc FROM ${request.table} WHERE _id IN (SELECT value FROM json_each(?))`).raw(true);
    statements.set(request.table, statement);
  }
  const docs = new Map<DocId, string>();
  for (const [id, doc] of statement.all(JSON.stringify(request.ids))) docs.set(id, doc);
  const passed: DocId[] = [];
  const values: unknown[] = [];
  const missing: DocId[] = [];
  for (const id of request.ids) {
    const doc = docs.get(id);
    if (doc === undefined) {
      missing.push(id);
      continue;
    }
    const value = test(JSON.parse(doc), request.args);
    if (!value) continue;
    passed.push(id);
    values.push(value);
  }
  return { id: request.id, passed, values, missing };
}

parentPort!.postMessage({ ready: true, tid });
parentPort!.on('message', (request: TesterRequest) => {
  let reply: TesterReply;
  try {
    reply = answer(request);
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
