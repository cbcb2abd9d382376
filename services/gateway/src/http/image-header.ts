/**
 * Whether an upload's first bytes are the start of a picture of the type sniffing gave,
 * and its size where the header says it: the gateway decodes no image, but a file with
 * the right signature and a broken header is no image either. Only the head the gateway
 * keeps is read (http/sniff.ts), so a JPEG whose frame header lies beyond it (a large
 * EXIF block first) is taken on its well-formed segments, without a size.
 */

export interface ImageHeader {
  /** Pixels, where the header within the head gives them. */
  width?: number;
  height?: number;
}

const sized = (width: number, height: number): ImageHeader | undefined => (width > 0 && height > 0 ? { width, height } : undefined);

function png(b: Buffer): ImageHeader | undefined {
  // The signature, then the IHDR chunk of 13 bytes: width and height first.
  if (b.length < 24 || b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return sized(b.readUInt32BE(16), b.readUInt32BE(20));
}

function gif(b: Buffer): ImageHeader | undefined {
  // The logical screen's size after the six-byte signature, little-endian.
  if (b.length < 10) return undefined;
  return sized(b.readUInt16LE(6), b.readUInt16LE(8));
}

function webp(b: Buffer): ImageHeader | undefined {
  if (b.length < 30) return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // A key frame's start code, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return undefined;
    return sized(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return undefined;
    const bits = b.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return sized(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  return undefined;
}

/** Start-of-frame markers: C0-CF but C4 (Huffman tables), C8 (reserved) and CC (arithmetic coding). */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpeg(b: Buffer, complete: boolean): ImageHeader | undefined {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (length < 2) return undefined;
    if (isFrameHeader(marker)) return at + 9 <= b.length ? sized(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5)) : complete ? undefined : {};
    // The image data starts before any frame header: not a picture.
    if (marker === 0xda || marker === 0xd9) return undefined;
    at += 2 + length;
  }
  // Every segment so far is well formed and the file goes on past the head.
  return complete ? undefined : {};
}

/**
 * The picture's header, or undefined where `head` (all of the file when `complete`) is no
 * picture of `type`.
 */
export function imageHeaderOf(head: Buffer, type: string, complete: boolean): ImageHeader | undefined {
  switch (type) {
    case 'image/png':
      return png(head);
    case 'image/gif':
      return gif(head);
    case 'image/webp':
      return webp(head);
    case 'image/jpeg':
      return jpeg(head, complete);
    default:
      return undefined;
  }
}
