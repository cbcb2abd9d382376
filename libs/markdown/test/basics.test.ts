import { describe, expect, it } from '@jest/globals';
import { isMeMessage, renderMarkdown, renderMessage } from '@teamchat/markdown';
import { makeContext } from './context';

const ctx = makeContext();
const html = (source: string): string => renderMessage(source, ctx).html;

describe('renderMarkdown (no organization data)', () => {
  it('renders Markdown as before', () => {
    expect(renderMarkdown('hello **world**')).toBe('<p>hello <strong>world</strong></p>');
    expect(renderMarkdown('Pixels *and* more')).toBe('<p>Pixels <em>and</em> more</p>');
    expect(renderMarkdown('')).toBe('');
  });

  it('applies the same safety rules', () => {
    expect(renderMarkdown('<script>x</script> [a](javascript:alert(1))')).toBe(
      '<p>&lt;script&gt;x&lt;/script&gt; [a](javascript:alert(1))</p>',
    );
    expect(renderMarkdown('https://example.com')).toBe(
      '<p><a href="https://example.com" target="_blank" rel="noopener noreferrer" title="https://example.com">https://example.com</a></p>',
    );
  });

  it('leaves mentions and channel links as written, but renders emoji', () => {
    expect(renderMarkdown('@**Alice Smith** #**general** :tada:')).toBe(
      '<p>@<strong>Alice Smith</strong> #<strong>general</strong> ' +
        '<span aria-label="tada" class="emoji emoji-1f389" role="img" title="tada">:tada:</span></p>',
    );
  });
});

describe('/me messages', () => {
  it('detects /me messages', () => {
    expect(isMeMessage('/me waves')).toBe(true);
    expect(isMeMessage('/me')).toBe(true);
    expect(isMeMessage('/meet')).toBe(false);
    expect(isMeMessage('hi /me waves')).toBe(false);
  });

  it('renders the text as written', () => {
    expect(html('/me waves')).toBe('<p>/me waves</p>');
  });
});

describe('Zulip Markdown dialect', () => {
  it('turns single newlines into line breaks', () => {
    expect(html('test\nbar')).toBe('<p>test<br>\nbar</p>');
  });

  it('disables underscore emphasis but keeps star emphasis', () => {
    expect(html('_foo_ __foo__ snake_case_name *em* **strong** ***both***')).toBe(
      '<p>_foo_ __foo__ snake_case_name <em>em</em> <strong>strong</strong> <em><strong>both</strong></em></p>',
    );
  });

  it('has no reference-style links', () => {
    expect(html('Hello [world]\n\n[world]: https://google.com')).toBe(
      '<p>Hello [world]</p>\n<p>[world]: <a href="https://google.com" target="_blank" rel="noopener noreferrer" title="https://google.com">https://google.com</a></p>',
    );
  });

  it('renders strikethrough, headings, lists and tables', () => {
    expect(html('I like ~~software~~ hardware')).toBe('<p>I like <del>software</del> hardware</p>');
    expect(html('# Hello world')).toBe('<h1>Hello world</h1>');
    expect(html('#Hello world')).toBe('<p>#Hello world</p>');
    expect(html('* One\n* Two')).toBe('<ul>\n<li>One</li>\n<li>Two</li>\n</ul>');
    expect(html('a | b\n--|--\n1 | 2')).toBe(
      '<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>',
    );
  });

  it('handles ampersands and entities like Zulip', () => {
    expect(html('& &amp; &amp;amp;')).toBe('<p>&amp; &amp; &amp;amp;</p>');
  });
});

describe('global times', () => {
  it('renders ISO times and Unix timestamps', () => {
    expect(html('<time:2017-06-05T22:30:00Z>')).toBe(
      '<p><time datetime="2017-06-05T22:30:00Z">2017-06-05T22:30:00Z</time></p>',
    );
    expect(html('Let us meet at <time:1496701800>.')).toBe(
      '<p>Let us meet at <time datetime="2017-06-05T22:30:00Z">1496701800</time>.</p>',
    );
    expect(html('<time:2017-12-31T05:30:00+05:30>')).toBe(
      '<p><time datetime="2017-12-31T00:00:00Z">2017-12-31T05:30:00+05:30</time></p>',
    );
  });

  it('reads times without a zone as UTC', () => {
    expect(html('<time:2017-12-31>')).toBe('<p><time datetime="2017-12-31T00:00:00Z">2017-12-31</time></p>');
    expect(html('<time:2017-06-05 22:30>')).toBe(
      '<p><time datetime="2017-06-05T22:30:00Z">2017-06-05 22:30</time></p>',
    );
  });

  it('marks unreadable times, escaping them', () => {
    expect(html('<time:**hello world**>')).toBe(
      '<p><span class="timestamp-error">Invalid time format: **hello world**</span></p>',
    );
    expect(html('<time:<alert(1)>>')).toBe(
      '<p><span class="timestamp-error">Invalid time format: &lt;alert(1)</span>&gt;</p>',
    );
  });

  it('is not processed inside code', () => {
    expect(html('`<time:1496701800>`')).toBe('<p><code>&lt;time:1496701800&gt;</code></p>');
  });
});

describe('purity', () => {
  it('gives the same result for the same input, with no state leaking between renders', () => {
    const first = renderMessage('@**Alice Smith** @**all** https://e.com/a.png', ctx);
    renderMessage('@**|13** @*support*', ctx);
    expect(renderMessage('@**Alice Smith** @**all** https://e.com/a.png', ctx)).toEqual(first);
    expect(renderMessage('plain', ctx)).toEqual({
      html: '<p>plain</p>',
      mentionedUserIds: [],
      mentionedGroupIds: [],
      wildcard: null,
      hasLink: false,
      hasImage: false,
      hasAttachment: false,
    });
  });
});
