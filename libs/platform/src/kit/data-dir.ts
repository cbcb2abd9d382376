/**
 * The data directory holds every message, every password hash and the server secret: it is
 * its owner's alone (0700, its files 0600), whatever umask the server was started with.
 *
 * Two halves. Creation: the process's umask becomes 077 before anything is written, so the
 * SQLite files (and the -wal and -shm files SQLite creates beside them, later and from
 * other threads), uploads, outbox mail and the secret come out private without every writer
 * having to ask; the umask is per process, and worker threads (which cannot set it) share
 * it. The writers in this package ask for private modes as well, for processes that never
 * loaded a configuration.
 *
 * Existing directories: one created by an earlier release (or by `mkdir`) may let others in.
 * Only the directory itself and its own entries are checked (a few stats, whatever the
 * number of uploads): a directory that grants nobody else anything keeps out everything
 * below it, so deeper modes do not matter. In production that is refused, in one line
 * saying what is exposed and how to fix it: the data may already have been read, which the
 * operator must learn and act on, and the modes may be the operator's own choice (a backup
 * group), which a server should not overrule behind their back; besides, a server that does
 * not own the files could not change them. In development the server tightens them itself
 * and says so in one line.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { ConfigurationError } from './engines';

/** Group and others: no bit of theirs is ever wanted on the data directory or in it. */
const OTHERS = 0o077;

interface Exposed {
  path: string;
  /** As the operator sees it: `the directory` or the entry's name. */
  label: string;
  mode: number;
}

/**
 * Makes `dataDir` (created if absent) private to the process's user, or refuses it in
 * production when it already lets others in. Throws ConfigurationError with a one-line
 * message; `report` receives the one line saying what was tightened in development.
 */
export function preparePrivateDataDir(
  dataDir: string,
  mode: 'development' | 'production',
  report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  if (isMainThread) process.umask(OTHERS);
  // mkdir's mode passes through the umask, which only ever removes bits: never more than 0700.
  const created = mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (created !== undefined) return;
  const exposed = exposedEntries(dataDir);
  if (exposed.length === 0) return;
  const listed = describe(exposed);
  if (mode === 'production') {
    throw new ConfigurationError(
      `data directory ${dataDir} is readable by other users (${listed}): make it private with \`chmod -R go= ${shellQuoted(dataDir)}\` and start again`,
    );
  }
  try {
    for (const entry of exposed) chmodSync(entry.path, entry.mode & ~OTHERS);
  } catch (err) {
    throw new ConfigurationError(`data directory ${dataDir} is readable by other users (${listed}) and cannot be made private: ${(err as Error).message}`);
  }
  report(`data directory ${dataDir} was readable by other users (${listed}): made it private to its owner`);
}

function exposedEntries(dataDir: string): Exposed[] {
  const exposed: Exposed[] = [];
  // The directory as reached (through a symbolic link, its target's mode is what counts).
  const own = statSync(dataDir).mode & 0o7777;
  if (own & OTHERS) exposed.push({ path: dataDir, label: 'the directory', mode: own });
  for (const name of readdirSync(dataDir).sort()) {
    const path = join(dataDir, name);
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue; // removed meanwhile (a temporary file of another process)
    }
    // A link's own mode means nothing; what it points to is the operator's to place.
    if (stats.isSymbolicLink()) continue;
    const entryMode = stats.mode & 0o7777;
    if (entryMode & OTHERS) exposed.push({ path, label: name, mode: entryMode });
  }
  return exposed;
}

function describe(exposed: Exposed[]): string {
  const shown = exposed.slice(0, 4).map((e) => `${e.label} ${e.mode.toString(8).padStart(4, '0')}`);
  const more = exposed.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

function shellQuoted(path: string): string {
  return /^[A-Za-z0-9_./+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
