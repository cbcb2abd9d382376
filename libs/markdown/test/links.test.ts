import { describe, expect, it } from '@jest/globals';
import { renderMessage } from '../src';
import { makeContext } from './context';

const ctx = makeContext();
const html = (source: string): string => renderMessage(source, ctx).html;
const link = (href: string, text = href): string =>
  `<a href="${href}" target="_blank" rel="noopener noreferrer" title="${href}">${text}</a>`;

describe('links', () => {
  it('decorates Markdown links and bare URLs', () => {
    expect(html('[hello](https://github.com)')).toBe(`<p>${link('https://github.com', 'hello')}</p>`);
    expect(html('see https://github.com/zulip.')).toBe(`<p>see ${link('https://github.com/zulip')}.</p>`);
    expect(html('<https://example.com/x>')).toBe(`<p>${link('https://example.com/x')}</p>`);
  });

  it('keeps an explicit link title', () => {
    expect(html('[x](https://example.com "My title")')).toBe(
      '<p><a href="https://example.com" title="My title" target="_blank" rel="noopener noreferrer">x</a></p>',
    );
  });

  it('shows the URL for an empty link label', () => {
    expect(html('[](https://github.com) [  ](https://github.com)')).toBe(
      `<p>${link('https://github.com')} ${link('https://github.com')}</p>`,
    );
  });

  it('allows mailto, tel, sms and relative links', () => {
    expect(html('[m](mailto:a@example.com)')).toBe(`<p>${link('mailto:a@example.com', 'm')}</p>`);
    expect(html('a@example.com')).toBe(`<p>${link('mailto:a@example.com', 'a@example.com')}</p>`);
    expect(html('[call](tel:+14155551234)')).toBe(`<p>${link('tel:+14155551234', 'call')}</p>`);
    expect(html('[s](sms:+14155551234)')).toBe(`<p>${link('sms:+14155551234', 's')}</p>`);
    expect(html('[doc](/help/x)')).toBe(`<p>${link('/help/x', 'doc')}</p>`);
  });

  it('makes links into this server relative; #narrow links open in place', () => {
    expect(html('[foo](http://127.0.0.1:9991/#narrow/channel/1-general)')).toBe(
      '<p><a href="#narrow/channel/1-general">foo</a></p>',
    );
    expect(html('http://127.0.0.1:9991/#narrow/channel/1-general')).toBe(
      '<p><a href="#narrow/channel/1-general">http://127.0.0.1:9991/#narrow/channel/1-general</a></p>',
    );
    expect(html('[f](http://127.0.0.1:9991/user_uploads/2/ab/f.pdf)')).toBe(
      `<p>${link('/user_uploads/2/ab/f.pdf', 'f')}</p>`,
    );
    expect(html('http://127.0.0.1:9991/https://example.com')).toBe(
      `<p>${link('http://127.0.0.1:9991/https://example.com')}</p>`,
    );
  });

  it('treats the realm URL with a trailing slash the same', () => {
    const result = renderMessage('[foo](http://127.0.0.1:9991/#narrow/x)', makeContext({ realmUrl: 'http://127.0.0.1:9991/' }));
    expect(result.html).toBe('<p><a href="#narrow/x">foo</a></p>');
  });

  it('turns image syntax into a plain link to the image', () => {
    expect(html('![logo](https://example.com/logo.png)')).toBe(
      `<p>${link('https://example.com/logo.png', 'logo')}</p>`,
    );
    expect(html('![](https://example.com/logo.png)')).toBe(`<p>${link('https://example.com/logo.png')}</p>`);
  });

  it('does not link inside code', () => {
    expect(html('`https://example.com [x](https://e.com)`')).toBe(
      '<p><code>https://example.com [x](https://e.com)</code></p>',
    );
  });
});

describe('HTML escaping and XSS', () => {
  it('escapes raw HTML', () => {
    expect(html('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(html('<img src=x onerror=alert(1)>')).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(html('<<script>script>evil()<</script>/script>')).toBe(
      '<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>',
    );
    expect(html('<h1>stay normal</h1> thanks')).toBe('<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>');
  });

  it('escapes raw HTML blocks', () => {
    expect(html('<div onclick="x()">\nhi\n</div>')).toBe(
      '<p>&lt;div onclick=&quot;x()&quot;&gt;<br>\nhi<br>\n&lt;/div&gt;</p>',
    );
  });

  it.each([
    '[x](javascript:alert(1))',
    '[x](JaVaScRiPt:alert(1))',
    '[x](&#106;avascript:alert(1))',
    '[x](javascript&colon;alert(1))',
    '[x](vbscript:msgbox(1))',
    '[x](data:text/html;base64,PHNjcmlwdD4=)',
    '![x](data:image/png;base64,AAAA)',
    '![x](javascript:alert(1))',
    '<javascript:alert(1)>',
    'javascript:alert(1)',
    '[foo](itms://itunes.com/apps/appname)',
    '[x](file:///etc/passwd)',
  ])('never produces a link for %s', (source) => {
    const result = renderMessage(source, ctx);
    expect(result.html).not.toMatch(/<a |<img /);
    expect(result.html.toLowerCase()).not.toContain('href');
    expect(result.hasLink).toBe(false);
  });

  it('escapes quotes in link URLs and titles', () => {
    const out = html('[x](https://example.com/"onmouseover="alert(1) "a\\"b")');
    expect(out).not.toContain('"onmouseover');
    expect(out).toContain('href="https://example.com/%22onmouseover=%22alert(1)"');
    expect(out).toContain('title="a&quot;b"');
  });

  it('escapes HTML in link text and code', () => {
    expect(html('[<b>x</b>](https://example.com)')).toBe(`<p>${link('https://example.com', '&lt;b&gt;x&lt;/b&gt;')}</p>`);
  });
});

describe('link, image and attachment flags', () => {
  it('are all false for plain text', () => {
    const result = renderMessage('just **text** @**Alice Smith** #**general** :smile:', ctx);
    expect([result.hasLink, result.hasImage, result.hasAttachment]).toEqual([false, false, false]);
  });

  it('hasLink for Markdown links, bare URLs and e-mail addresses', () => {
    expect(renderMessage('[x](https://example.com)', ctx).hasLink).toBe(true);
    expect(renderMessage('go to https://example.com', ctx).hasLink).toBe(true);
    expect(renderMessage('www.example.com', ctx).hasLink).toBe(true);
    expect(renderMessage('a@example.com', ctx).hasLink).toBe(true);
  });

  it('hasImage for links to image files and for image syntax', () => {
    for (const source of [
      'https://example.com/a.png',
      '[pic](https://example.com/a.JPG?size=2)',
      'https://example.com/a.jpeg#x',
      'https://example.com/a.gif',
      'https://example.com/a.webp',
      '![](https://example.com/photo)',
    ]) {
      const result = renderMessage(source, ctx);
      expect(result.hasImage).toBe(true);
      expect(result.hasLink).toBe(true);
    }
    expect(renderMessage('https://example.com/a.png.html', ctx).hasImage).toBe(false);
    expect(renderMessage('`https://example.com/a.png`', ctx).hasImage).toBe(false);
  });

  it('hasAttachment for uploaded files, relative or on this server', () => {
    const relative = renderMessage('[report.pdf](/user_uploads/2/ab/report.pdf)', ctx);
    expect([relative.hasLink, relative.hasAttachment, relative.hasImage]).toEqual([true, true, false]);
    const image = renderMessage('[cat.png](/user_uploads/2/cd/cat.png)', ctx);
    expect([image.hasAttachment, image.hasImage]).toEqual([true, true]);
    expect(renderMessage('http://127.0.0.1:9991/user_uploads/2/ab/x.txt', ctx).hasAttachment).toBe(true);
    expect(renderMessage('https://elsewhere.example/user_uploads/2/ab/x.txt', ctx).hasAttachment).toBe(false);
    expect(renderMessage('/user_uploads/2/ab/x.txt', ctx).hasAttachment).toBe(false);
  });
});
