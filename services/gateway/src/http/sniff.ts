/**
 * A file's type from its first bytes, never from the client's word: a client could call
 * an HTML page `image/png`. What is not recognized is text (valid UTF-8 without NUL
 * bytes) or opaque bytes; markup such as HTML or SVG is therefore only ever text/plain,
 * and the download headers (files.ts) keep browsers from second-guessing that.
 */

interface Signature {
  type: string;
  /** Bytes at `offset`; null matches any byte. */
  bytes: readonly (number | null)[];
  offset?: number;
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const SIGNATURES: readonly Signature[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: ascii('GIF87a') },
  { type: 'image/gif', bytes: ascii('GIF89a') },
  { type: 'image/webp', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WEBP')] },
  { type: 'application/pdf', bytes: ascii('%PDF-') },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'audio/mpeg', bytes: ascii('ID3') },
  { type: 'audio/ogg', bytes: ascii('OggS') },
  { type: 'audio/wav', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WAVE')] },
  { type: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { type: 'video/mp4', bytes: ascii('ftyp'), offset: 4 },
];

/** Image types a browser may show inline: raster formats only, no SVG (it can carry script). */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** How much of the start is checked for text. */
const TEXT_PROBE_BYTES = 8192;
/** The start of a file that sniffing reads: the text probe and one byte to tell whether more follows. */
export const SNIFF_HEAD_BYTES = TEXT_PROBE_BYTES + 1;

function matches(bytes: Buffer, signature: Signature): boolean {
  const offset = signature.offset ?? 0;
  if (bytes.length < offset + signature.bytes.length) return false;
  return signature.bytes.every((b, i) => b === null || bytes[offset + i] === b);
}

function looksLikeText(bytes: Buffer): boolean {
  const probe = bytes.subarray(0, TEXT_PROBE_BYTES);
  if (probe.includes(0)) return false;
  try {
    // A multi-byte character cut at the probe's end is not a reason to call it binary:
    // decoding as a stream leaves an incomplete last sequence pending instead of failing.
    new TextDecoder('utf-8', { fatal: true }).decode(probe, { stream: probe.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

export function sniffContentType(bytes: Buffer): string {
  for (const signature of SIGNATURES) if (matches(bytes, signature)) return signature.type;
  return looksLikeText(bytes) ? 'text/plain; charset=utf-8' : 'application/octet-stream';
}

/** The file extension for a custom emoji's image URL. */
export const EMOJI_EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
