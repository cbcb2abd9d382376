/** Sniffing a file's type from its bytes, the download name header and the upload limits (http/sniff.ts, http/files.ts). */
import { describe, expect, it } from '@jest/globals';
import { endpoints } from '@teamchat/contracts';
import { contentDisposition, uploadLimitOf } from '../src/http/files';
import { sniffContentType } from '../src/http/sniff';

describe('sniffContentType', () => {
  const b = (...bytes: number[]) => Buffer.from(bytes);
  it('recognizes formats by their signatures', () => {
    expect(sniffContentType(b(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('image/png');
    expect(sniffContentType(b(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffContentType(Buffer.from('GIF89a...'))).toBe('image/gif');
    expect(sniffContentType(Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
    expect(sniffContentType(Buffer.from('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffContentType(Buffer.from('\u0000\u0000\u0000\u0018ftypmp42'))).toBe('video/mp4');
  });
  it('calls markup text, never an image or a page', () => {
    expect(sniffContentType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'))).toBe('text/plain; charset=utf-8');
    expect(sniffContentType(Buffer.from('<!doctype html><script>x</script>'))).toBe('text/plain; charset=utf-8');
    expect(sniffContentType(Buffer.from('héllo wörld'))).toBe('text/plain; charset=utf-8');
  });
  it('calls anything else opaque bytes', () => {
    expect(sniffContentType(b(0, 1, 2, 3))).toBe('application/octet-stream');
    expect(sniffContentType(b(0xc3, 0x28, 0x41))).toBe('application/octet-stream');
    expect(sniffContentType(b(0x89, 0x50))).toBe('application/octet-stream');
  });
  it('does not call text binary for a character cut at the probe’s end', () => {
    expect(sniffContentType(Buffer.from('é'.repeat(5000)))).toBe('text/plain; charset=utf-8');
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact name, with quotes and non-ASCII made harmless', () => {
    expect(contentDisposition('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(contentDisposition('a"b\\c é.txt')).toBe(`attachment; filename="a_b_c _.txt"; filename*=UTF-8''a%22b%5Cc%20%C3%A9.txt`);
  });
});

describe('uploadLimitOf', () => {
  const settings = { maxFileUploadSizeMib: 25, maxEmojiFileSizeMib: 3, maxAvatarFileSizeMib: 2 };
  it('gives each kind of upload its own limit and Zulip’s words for it', () => {
    expect(uploadLimitOf(endpoints.messaging.uploadFile, settings)).toEqual({
      maxBytes: 25 * 1024 * 1024,
      tooLarge: "File is larger than this server's configured maximum upload size (25 MiB).",
    });
    expect(uploadLimitOf(endpoints.accounts.addRealmEmoji, settings)).toEqual({ maxBytes: 3 * 1024 * 1024, tooLarge: 'Uploaded file is larger than the allowed limit of 3 MiB' });
    expect(uploadLimitOf(endpoints.accounts.setAvatar, settings)).toEqual({ maxBytes: 2 * 1024 * 1024, tooLarge: 'Uploaded file is larger than the allowed limit of 2 MiB' });
  });
});
