/**
 * The development outbox: every message is written as one JSON file under a directory
 * (the data directory's `outbox/`), where the gateway's development page /emails lists
 * them, newest first, so a newcomer can follow an invitation's link without any mail
 * server. Nothing is delivered anywhere.
 *
 * File names start with the time written, zero-padded, so that sorting names sorts
 * messages; a per-process sequence and the process id keep names of one millisecond apart.
 * A file is written under a temporary name and renamed, so a reader never sees half of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mailer, OutgoingEmail } from '../ports/mailer';

/** One message of the outbox, as its file holds it. */
export interface OutboxEntry {
  /** The file's name without `.json`: unique, and orders entries by time. */
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** When it was written (ISO 8601). */
  date: string;
}

const ENTRY_FILE = /^(\d{15}-[0-9a-z]+-\d{6}-[0-9a-f]{6})\.json$/;

let sequence = 0;

export class OutboxMailer implements Mailer {
  constructor(
    readonly dir: string,
    private readonly from: string,
  ) {}

  async send(email: OutgoingEmail): Promise<void> {
    // Mail holds invitation and confirmation links: the directory is its owner's alone.
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const now = Date.now();
    sequence = (sequence + 1) % 1_000_000;
    const id = `${String(now).padStart(15, '0')}-${process.pid.toString(36)}-${String(sequence).padStart(6, '0')}-${randomBytes(3).toString('hex')}`;
    const entry: OutboxEntry = {
      id,
      from: this.from,
      to: email.to,
      subject: email.subject,
      text: email.text,
      ...(email.html === undefined ? {} : { html: email.html }),
      date: new Date(now).toISOString(),
    };
    const file = join(this.dir, `${id}.json`);
    await writeFile(`${file}.tmp`, JSON.stringify(entry, null, 2), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }
}

/**
 * The newest `limit` messages of an outbox, newest first. A directory that does not exist
 * yet is an empty outbox; a file that does not parse (edited by hand) is skipped.
 */
export async function readOutbox(dir: string, limit = 100): Promise<OutboxEntry[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const ids = names
    .map((name) => ENTRY_FILE.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .sort()
    .reverse()
    .slice(0, limit);
  const entries: OutboxEntry[] = [];
  for (const id of ids) {
    try {
      const parsed = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as Partial<OutboxEntry>;
      if (typeof parsed.to === 'string' && typeof parsed.subject === 'string' && typeof parsed.text === 'string') {
        entries.push({
          id,
          from: String(parsed.from ?? ''),
          to: parsed.to,
          subject: parsed.subject,
          text: parsed.text,
          ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
          date: String(parsed.date ?? ''),
        });
      }
    } catch {
      // Removed meanwhile, or not ours: the page lists the rest.
    }
  }
  return entries;
}
