/** Reading a picture's header from an upload's first bytes (http/image-header.ts). */
import { describe, expect, it } from '@jest/globals';
import { imageHeaderOf } from '../src/http/image-header';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const u16be = (n: number) => Buffer.from([n >> 8, n & 0xff]);

function pngOf(width: number, height: number): Buffer {
  const b = Buffer.from(PNG_1x1);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}
const gifOf = (width: number, height: number) => {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
};
/** A JPEG: SOI, an APPn segment of `appBytes`, then a baseline frame header. */
const jpegOf = (width: number, height: number, appBytes = 16) =>
  Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    Buffer.from([0xff, 0xe1]),
    u16be(appBytes + 2),
    Buffer.alloc(appBytes, 0x20),
    Buffer.from([0xff, 0xc0]),
    u16be(17),
    Buffer.from([8]),
    u16be(height),
    u16be(width),
    Buffer.alloc(12, 1),
  ]);
const riff = (chunk: string, payload: Buffer) => {
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(payload.length + 12, 4);
  head.write('WEBP', 8, 'latin1');
  head.write(chunk, 12, 'latin1');
  head.writeUInt32LE(payload.length, 16);
  return Buffer.concat([head, payload, Buffer.alloc(16)]);
};

describe('imageHeaderOf', () => {
  it('reads the size of PNG, GIF, JPEG and the three WebP forms', () => {
    expect(imageHeaderOf(PNG_1x1, 'image/png', true)).toEqual({ width: 1, height: 1 });
    expect(imageHeaderOf(pngOf(640, 480), 'image/png', true)).toEqual({ width: 640, height: 480 });
    expect(imageHeaderOf(gifOf(32, 16), 'image/gif', true)).toEqual({ width: 32, height: 16 });
    expect(imageHeaderOf(jpegOf(300, 200), 'image/jpeg', true)).toEqual({ width: 300, height: 200 });
    const vp8 = Buffer.concat([Buffer.from([0x10, 0, 0, 0x9d, 0x01, 0x2a]), Buffer.from([100, 0, 50, 0])]);
    expect(imageHeaderOf(riff('VP8 ', vp8), 'image/webp', true)).toEqual({ width: 100, height: 50 });
    const lossless = Buffer.alloc(5);
    lossless[0] = 0x2f;
    lossless.writeUInt32LE((99 & 0x3fff) | ((49 & 0x3fff) << 14), 1);
    expect(imageHeaderOf(riff('VP8L', lossless), 'image/webp', true)).toEqual({ width: 100, height: 50 });
    const extended = Buffer.alloc(10);
    extended.writeUIntLE(99, 4, 3);
    extended.writeUIntLE(49, 7, 3);
    expect(imageHeaderOf(riff('VP8X', extended), 'image/webp', true)).toEqual({ width: 100, height: 50 });
  });

  it('says a broken header is no picture: a signature and garbage, a zero size, a chunk out of place', () => {
    const garbage = Buffer.concat([PNG_1x1.subarray(0, 8), Buffer.from('not really a png at all')]);
    expect(imageHeaderOf(garbage, 'image/png', true)).toBeUndefined();
    expect(imageHeaderOf(pngOf(0, 10), 'image/png', true)).toBeUndefined();
    expect(imageHeaderOf(PNG_1x1.subarray(0, 20), 'image/png', true)).toBeUndefined();
    expect(imageHeaderOf(gifOf(0, 0), 'image/gif', true)).toBeUndefined();
    expect(imageHeaderOf(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]), 'image/jpeg', true)).toBeUndefined();
    expect(imageHeaderOf(Buffer.from([0xff, 0xd8, 0x00, 0x11, 0x22, 0x33]), 'image/jpeg', true)).toBeUndefined();
    expect(imageHeaderOf(riff('VP8 ', Buffer.alloc(10)), 'image/webp', true)).toBeUndefined();
    expect(imageHeaderOf(PNG_1x1, 'text/plain; charset=utf-8', true)).toBeUndefined();
  });

  it('takes a JPEG whose frame header lies past the head on its well-formed segments, without a size', () => {
    const long = jpegOf(300, 200, 9000);
    const head = long.subarray(0, 8193);
    expect(imageHeaderOf(head, 'image/jpeg', false)).toEqual({});
    // The same bytes as a whole file end before any frame: no picture.
    expect(imageHeaderOf(head, 'image/jpeg', true)).toBeUndefined();
    expect(imageHeaderOf(long, 'image/jpeg', true)).toEqual({ width: 300, height: 200 });
  });
});
