import { MessageChannel } from 'node:worker_threads';
import { ReplyArena, claimLent, enableReplyArena, releaseLent, replyBytes, roomBefore } from '../src/kit/reply-arena';

describe('ReplyArena', () => {
  it('lends distinct slots of shared memory, each after its head room', () => {
    const arena = new ReplyArena({ slots: 3, slotSize: 1024, headRoom: 64 });
    const a = arena.lease(100)!;
    const b = arena.lease(960)!;
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(b.buffer).toBe(a.buffer);
    expect([a.length, b.length]).toEqual([100, 960]);
    expect(Math.abs(b.byteOffset - a.byteOffset)).toBeGreaterThanOrEqual(1024);
    expect(roomBefore(a)).toBe(64);
    expect(arena.lent()).toBe(2);
  });

  it('lends nothing too large for a slot, nor while every slot is lent', () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 1024, headRoom: 64 });
    expect(arena.lease(961)).toBeUndefined();
    expect(arena.lease(1)).toBeDefined();
    expect(arena.lease(1)).toBeDefined();
    expect(arena.lease(1)).toBeUndefined();
    expect(arena.lent()).toBe(2);
  });

  it('takes a slot back when its holder releases it, once', () => {
    const arena = new ReplyArena({ slots: 1, slotSize: 1024, headRoom: 64 });
    const first = arena.lease(10)!;
    const release = claimLent(first)!;
    expect(release).toBeInstanceOf(Function);
    release();
    expect(arena.lent()).toBe(0);
    const second = arena.lease(10)!;
    expect(second.byteOffset).toBe(first.byteOffset);
    // A second release of the first lease must not free the slot now lent again.
    release();
    expect(arena.lent()).toBe(1);
    releaseLent(second);
    expect(arena.lent()).toBe(0);
  });

  it('claims only the start of a lease in an arena', () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 1024, headRoom: 64 });
    const lent = arena.lease(100)!;
    expect(claimLent(lent.subarray(1))).toBeUndefined();
    expect(roomBefore(lent.subarray(1))).toBe(0);
    expect(claimLent(Buffer.from('{}'))).toBeUndefined();
    expect(claimLent(new Uint8Array(new SharedArrayBuffer(64)))).toBeUndefined();
    expect(claimLent('{}')).toBeUndefined();
    expect(claimLent(undefined)).toBeUndefined();
    expect(roomBefore(Buffer.allocUnsafeSlow(10))).toBe(0);
    releaseLent('{}'); // anything else is left alone
    expect(arena.lent()).toBe(1);
  });

  it('claims the lent ones among several pieces, and gives them back together', () => {
    const arena = new ReplyArena({ slots: 3, slotSize: 1024, headRoom: 64 });
    const [first, second] = [arena.lease(10)!, arena.lease(10)!];
    expect(claimLent([Buffer.from('{}'), Buffer.from('{"a":1}')])).toBeUndefined();
    const release = claimLent([first, Buffer.from('{}'), second])!;
    expect(arena.lent()).toBe(2);
    release();
    expect(arena.lent()).toBe(0);
    // Once only: a later lease of the same slots is not given back by it.
    arena.lease(10);
    release();
    expect(arena.lent()).toBe(1);
  });

  it('is released through a view that crossed a port: the memory is shared, not copied', async () => {
    const arena = new ReplyArena({ slots: 4, slotSize: 1024, headRoom: 64 });
    const lent = arena.lease(5)!;
    lent.write('hello');
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<Uint8Array>((resolve) => port2.once('message', (message: { json: Uint8Array }) => resolve(message.json)));
    port1.postMessage({ json: lent });
    const json = await received;
    port1.close();
    port2.close();
    expect(Buffer.from(json).toString()).toBe('hello');
    json[0] = 0x4a; // 'J', seen by the lender: one memory
    expect(lent.toString()).toBe('Jello');
    expect(roomBefore(json)).toBe(64);
    claimLent(json)!();
    expect(arena.lent()).toBe(0);
  });

  it('refuses a head room as large as a slot', () => {
    expect(() => new ReplyArena({ slots: 1, slotSize: 64, headRoom: 64 })).toThrow('head room');
  });
});

describe('replyBytes', () => {
  it('is memory of its own until the thread enables its arena, then lent', () => {
    const own = replyBytes(16);
    expect(own.buffer).toBeInstanceOf(ArrayBuffer);
    expect(own.byteOffset).toBe(0);
    expect(own.buffer.byteLength).toBe(16);
    const arena = enableReplyArena({ slots: 1, slotSize: 1024, headRoom: 64 });
    expect(enableReplyArena()).toBe(arena);
    const lent = replyBytes(16);
    expect(lent.buffer).toBeInstanceOf(SharedArrayBuffer);
    // The only slot is lent: the next reply has memory of its own, as before.
    expect(replyBytes(16).buffer).toBeInstanceOf(ArrayBuffer);
    releaseLent(lent);
    expect(arena.lent()).toBe(0);
  });
});
