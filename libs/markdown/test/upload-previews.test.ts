import { describe, expect, it } from '@jest/globals';
import { renderMessage } from '../src';
import { makeContext } from './context';

const ctx = makeContext();
const html = (source: string): string => renderMessage(source, ctx).html;
const CAT = '/user_uploads/2/ab/abcdefghijklmnopqrstuvwx/cat.png';
const preview = (href: string, name: string) => `<div class="message_inline_image"><a href="${href}" title="${name}"><img src="${href}" alt="${name}"></a></div>`;

describe('upload previews', () => {
  it('follows a paragraph linking an uploaded image with its preview', () => {
    const out = html(`look [cat.png](${CAT}) here`);
    expect(out.endsWith(preview(CAT, 'cat.png'))).toBe(true);
    expect(out.startsWith('<p>look <a href="/user_uploads/')).toBe(true);
  });
  it('previews each image once, absolute links to this server too', () => {
    const out = html(`[a](${CAT}) [b](${CAT}) ${ctx.realmUrl}${CAT.replace('cat', 'dog')}`);
    expect(out.split('message_inline_image').length - 1).toBe(2);
  });
  it('gives no preview to other files, remote images or images in code', () => {
    expect(html('[f](/user_uploads/2/ab/abcdefghijklmnopqrstuvwx/f.pdf)')).not.toContain('message_inline_image');
    expect(html('https://elsewhere.example/cat.png')).not.toContain('message_inline_image');
    expect(html('`' + CAT + '`')).not.toContain('message_inline_image');
  });
  it('escapes what it writes', () => {
    const out = html('[x](/user_uploads/2/ab/abcdefghijklmnopqrstuvwx/%22onerror%3D.png)');
    expect(out).not.toMatch(/<img[^>]*"onerror/);
  });
});
