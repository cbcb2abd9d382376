import { describe, expect, it } from '@jest/globals';
import { renderMessage } from '../src';
import { makeContext } from './context';

const ctx = makeContext();
const html = (source: string): string => renderMessage(source, ctx).html;

describe('code blocks', () => {
  it('renders a fenced block with its language display name', () => {
    expect(html('```python\nprint("<hi>") & more\n```')).toBe(
      '<div class="codehilite" data-code-language="Python"><pre><span></span><code>print(&quot;&lt;hi&gt;&quot;) &amp; more\n</code></pre></div>',
    );
  });

  it('keeps an unknown language name as given', () => {
    expect(html('``` inventedlanguage\ndef speak(self):\n    x = 1\n```')).toBe(
      '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>def speak(self):\n    x = 1\n</code></pre></div>',
    );
  });

  it('accepts Zulip language decorations and aliases', () => {
    expect(html('~~~~.python \nx = 1\n~~~~')).toContain('data-code-language="Python"');
    expect(html('```{.js}\nx\n```')).toContain('data-code-language="JavaScript"');
    expect(html('```py2\nx\n```')).toContain('data-code-language="Python 2.x"');
    expect(html('```TS\nx\n```')).toContain('data-code-language="TypeScript"');
  });

  it('omits the language when there is none or it is not a language name', () => {
    expect(html('~~~\nx = 1\n~~~')).toBe('<div class="codehilite"><pre><span></span><code>x = 1\n</code></pre></div>');
    expect(html('~~~ "><script>\nx\n~~~')).toBe('<div class="codehilite"><pre><span></span><code>x\n</code></pre></div>');
  });

  it('renders indented code the same way', () => {
    expect(html('    def foo(): pass')).toBe(
      '<div class="codehilite"><pre><span></span><code>def foo(): pass\n</code></pre></div>',
    );
  });

  it('drops trailing whitespace and surrounding blank lines, as Pygments does', () => {
    expect(html('~~~~\n\ndef func():\n    y = 2\t\t\n\n    z = 3       \n\n~~~~')).toBe(
      '<div class="codehilite"><pre><span></span><code>def func():\n    y = 2\n\n    z = 3\n</code></pre></div>',
    );
  });

  it('escapes HTML in code, including entities', () => {
    expect(html('~~~\n<h1>stay normal</h1> &amp;\n~~~')).toBe(
      '<div class="codehilite"><pre><span></span><code>&lt;h1&gt;stay normal&lt;/h1&gt; &amp;amp;\n</code></pre></div>',
    );
    expect(html('`<&nbsp;>`')).toBe('<p><code>&lt;&amp;nbsp;&gt;</code></p>');
  });

  it('places code blocks between paragraphs', () => {
    expect(html('Hamlet once said\n~~~~\nx\n~~~~\nAnd all was good.')).toBe(
      '<p>Hamlet once said</p>\n<div class="codehilite"><pre><span></span><code>x\n</code></pre></div>\n<p>And all was good.</p>',
    );
  });
});

describe('quotes', () => {
  it('renders > quotes', () => {
    expect(html('> Hello World!\n\n> Hello Universe!')).toBe(
      '<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>',
    );
  });

  it('renders ```quote blocks, whose content is Markdown', () => {
    expect(html('Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~')).toBe(
      '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>',
    );
    expect(html('```quote\nText in\nmultiple lines.\n```\n\n> Text in a single line.')).toBe(
      '<blockquote>\n<p>Text in<br>\nmultiple lines.</p>\n</blockquote>\n<blockquote>\n<p>Text in a single line.</p>\n</blockquote>',
    );
  });

  it('keeps a code block inside a quote, even with the same fence', () => {
    expect(html('```quote\nlook:\n```js\nx\n```\nok\n```\nafter')).toBe(
      '<blockquote>\n<p>look:</p>\n<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code>x\n</code></pre></div>\n<p>ok</p>\n</blockquote>\n<p>after</p>',
    );
  });

  it('renders a list inside a quote', () => {
    expect(html('```quote\nSome text with a hanging list inside quote:\n* one\n* two\n```')).toBe(
      '<blockquote>\n<p>Some text with a hanging list inside quote:</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n</blockquote>',
    );
  });
});

describe('spoilers', () => {
  it('renders a spoiler with a header', () => {
    expect(html('```spoiler header\ncontent\n```\noutside spoiler\n')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>',
    );
  });

  it('renders a spoiler without a header', () => {
    expect(html('```spoiler\ncontent\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>',
    );
  });

  it('renders Markdown in the header and the body', () => {
    expect(html('```spoiler [Header](https://example.com) :smile:\n**bold** @**Alice Smith**\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n' +
        '<p><a href="https://example.com" target="_blank" rel="noopener noreferrer" title="https://example.com">Header</a> ' +
        '<span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p><strong>bold</strong> ' +
        '<span class="user-mention" data-user-id="12">@Alice Smith</span></p>\n</div></div>',
    );
  });

  it('escapes HTML in the header and body', () => {
    expect(html('```spoiler <script>alert(1)</script>\n<script>alert(1)</script>\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div></div>',
    );
  });

  it('nests inside a quote', () => {
    expect(html('~~~quote\n```spoiler header\ncontent\n```\noutside spoiler\n~~~\noutside quote')).toBe(
      '<blockquote>\n<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>\n' +
        '<p>outside spoiler</p>\n</blockquote>\n<p>outside quote</p>',
    );
  });

  it('keeps code with the same fence inside the spoiler', () => {
    expect(html('```spoiler code\n```python\nx = 1\n```\nafter code\n```\noutside')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>code</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n' +
        '<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = 1\n</code></pre></div>\n' +
        '<p>after code</p>\n</div></div>\n<p>outside</p>',
    );
  });

  it('runs to the end of the message when never closed', () => {
    expect(html('```spoiler s\nstill hidden')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>s</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>still hidden</p>\n</div></div>',
    );
  });

  it('works inside a list item', () => {
    expect(html('* item\n  ```spoiler s\n  inner\n  ```\n* two')).toBe(
      '<ul>\n<li>item<div class="spoiler-block"><div class="spoiler-header">\n<p>s</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>inner</p>\n</div></div>\n</li>\n<li>two</li>\n</ul>',
    );
  });
});
