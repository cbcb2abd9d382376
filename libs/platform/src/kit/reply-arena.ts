/**
 * Reply bytes lent across threads instead of handed over in a new buffer each time.
 *
 * A page of GET /messages is built as bytes on the messaging thread and written to the
 * socket by the main thread. A fresh buffer per reply cost twice: its pages were new
 * memory, which this VM maps at about 16 µs a page on first touch; and each isolate counts
 * every such buffer as external memory, so about 64 MiB of replies (some 500 pages of a
 * hundred messages) started a full collection on the main thread, with marking steps of
 * several milliseconds in the middle of requests.
 *
 * A service thread instead leases a slot of one SharedArrayBuffer, writes the reply there,
 * and sends a view of it: structured clone shares the memory rather than copying it, and
 * an isolate counts shared memory once, not per view. The main thread writes the view to
 * the socket and releases the slot when the response is done. Each slot keeps room before
 * the reply for the gateway's own members (`result`, `msg`, …), so the full body is built
 * in place without a copy.
 *
 * The arena describes itself (its header is at the start of the shared memory), so the
 * thread that releases a slot needs nothing but the view. A reply too large for a slot,
 * or one asked for while every slot is lent, gets a buffer of its own, as before.
 */

import { isSharedArrayBuffer, isUint8Array } from 'node:util/types';

/** Marks shared memory laid out as an arena ("RPLY"). */
const MAGIC = 0x52504c59;
const HEADER_MAGIC = 0;
const HEADER_SLOTS = 1;
const HEADER_SLOT_SIZE = 2;
const HEADER_HEAD_ROOM = 3;
const HEADER_NEXT_TOKEN = 4;
const HEADER_INTS = 5;

export interface ReplyArenaOptions {
  /** How many replies may be lent at once (default 32). */
  slots?: number;
  /** Bytes per slot, head room included (default 256 KiB). */
  slotSize?: number;
  /** Bytes kept free before each reply for what the receiver prepends (default 512). */
  headRoom?: number;
}

/**
 * Where a slot's state is: 0 when free, else the token of its lease, so that a release
 * of an earlier lease of the same slot (a double release) cannot free the current one.
 */
function stateIndex(slot: number): number {
  return HEADER_INTS + slot;
}

function dataStart(slots: number): number {
  // The slots' bytes begin 8-aligned after the header and the states.
  return Math.ceil(((HEADER_INTS + slots) * 4) / 8) * 8;
}

export class ReplyArena {
  private readonly ints: Int32Array;
  private readonly slots: number;
  private readonly slotSize: number;
  private readonly headRoom: number;
  private readonly start: number;
  /** Where the search for a free slot begins: the one after the last lent. */
  private cursor = 0;

  constructor(options: ReplyArenaOptions = {}) {
    this.slots = options.slots ?? 32;
    this.slotSize = options.slotSize ?? 256 * 1024;
    this.headRoom = options.headRoom ?? 512;
    if (this.headRoom >= this.slotSize) throw new Error('the head room must be smaller than a slot');
    this.start = dataStart(this.slots);
    const memory = new SharedArrayBuffer(this.start + this.slots * this.slotSize);
    this.ints = new Int32Array(memory, 0, HEADER_INTS + this.slots);
    this.ints[HEADER_MAGIC] = MAGIC;
    this.ints[HEADER_SLOTS] = this.slots;
    this.ints[HEADER_SLOT_SIZE] = this.slotSize;
    this.ints[HEADER_HEAD_ROOM] = this.headRoom;
    this.ints[HEADER_NEXT_TOKEN] = 1;
  }

  /** `size` bytes in a free slot, after its head room; undefined if none is free or it would not fit. */
  lease(size: number): Buffer | undefined {
    if (size > this.slotSize - this.headRoom) return undefined;
    const token = this.nextToken();
    for (let tried = 0; tried < this.slots; tried++) {
      const slot = (this.cursor + tried) % this.slots;
      // Only this thread lends, but another frees: a slot is taken only if free as it is now.
      if (Atomics.compareExchange(this.ints, stateIndex(slot), 0, token) !== 0) continue;
      this.cursor = (slot + 1) % this.slots;
      return Buffer.from(this.ints.buffer, this.start + slot * this.slotSize + this.headRoom, size);
    }
    return undefined;
  }

  /** How many slots are lent now (for tests and diagnostics). */
  lent(): number {
    let count = 0;
    for (let slot = 0; slot < this.slots; slot++) if (Atomics.load(this.ints, stateIndex(slot)) !== 0) count++;
    return count;
  }

  private nextToken(): number {
    const token = this.ints[HEADER_NEXT_TOKEN]!;
    // Tokens stay positive and never 0 (free), wrapping long before they could repeat in use.
    this.ints[HEADER_NEXT_TOKEN] = token >= 0x3fffffff ? 1 : token + 1;
    return token;
  }
}

/** The arena a view lies in, read from the shared memory's header; undefined for any other bytes. */
function locate(bytes: Uint8Array): { ints: Int32Array; index: number; roomBefore: number } | undefined {
  // Not `instanceof`: memory that crossed a port may come from another realm's constructor.
  const memory = bytes.buffer;
  if (!isSharedArrayBuffer(memory) || memory.byteLength < HEADER_INTS * 4) return undefined;
  const header = new Int32Array(memory, 0, HEADER_INTS);
  if (header[HEADER_MAGIC] !== MAGIC) return undefined;
  const slots = header[HEADER_SLOTS]!;
  const slotSize = header[HEADER_SLOT_SIZE]!;
  const headRoom = header[HEADER_HEAD_ROOM]!;
  const offset = bytes.byteOffset - dataStart(slots);
  const slot = Math.floor(offset / slotSize);
  // Only a view that starts where a lease starts is one: anything else is not ours to free.
  if (offset < 0 || slot >= slots || offset - slot * slotSize !== headRoom) return undefined;
  return { ints: new Int32Array(memory, 0, HEADER_INTS + slots), index: stateIndex(slot), roomBefore: headRoom };
}

/**
 * For the thread that ends up holding lent bytes: a function that gives their slot back
 * (at most once, and never a later lease of the same slot), or undefined if the bytes
 * were not lent.
 */
export function claimLent(bytes: unknown): (() => void) | undefined {
  // Several pieces (SerializedMembers): whichever of them were lent, given back together.
  if (Array.isArray(bytes)) {
    const releases = bytes.map(claimLent).filter((release) => release !== undefined);
    return releases.length === 0 ? undefined : () => releases.forEach((release) => release());
  }
  if (!isUint8Array(bytes)) return undefined;
  const found = locate(bytes);
  if (!found) return undefined;
  const token = Atomics.load(found.ints, found.index);
  if (token === 0) return undefined;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    Atomics.compareExchange(found.ints, found.index, token, 0);
  };
}

/** Gives back the slot of lent bytes nobody will read (a dropped reply); other bytes are left alone. */
export function releaseLent(bytes: unknown): void {
  claimLent(bytes)?.();
}

/** How many bytes before lent bytes belong to their lease and may be written; 0 for other bytes. */
export function roomBefore(bytes: Uint8Array): number {
  return locate(bytes)?.roomBefore ?? 0;
}

let threadArena: ReplyArena | undefined;

/** Lets this thread's replies lease slots (a service thread whose replies cross a PortBus). */
export function enableReplyArena(options?: ReplyArenaOptions): ReplyArena {
  threadArena ??= new ReplyArena(options);
  return threadArena;
}

/**
 * A buffer of `size` bytes for a reply: lent from this thread's arena when it has one and a
 * slot is free, else its own memory (filled by the caller either way).
 */
export function replyBytes(size: number): Buffer {
  return threadArena?.lease(size) ?? Buffer.allocUnsafeSlow(size);
}

/**
 * Text for a reply as UTF-8 bytes (replyBytes). Why: a string crosses to the answering
 * thread by structured clone, a copy on that thread's heap, and a large one lands in its
 * old generation at once, where only a full collection frees it; bytes are moved or lent.
 */
export function replyText(text: string): Buffer {
  const out = replyBytes(Buffer.byteLength(text));
  out.write(text, 0);
  return out;
}
