import { describe, expect, it } from '@jest/globals';
import { channelNarrowPath, channelSlug, encodeHashComponent, renderMessage, topicNarrowPath } from '../src';
import { makeContext } from './context';

const ctx = makeContext();

describe('channel and topic links', () => {
  it('links a channel', () => {
    const result = renderMessage('see #**general**', ctx);
    expect(result.html).toBe(
      '<p>see <a class="stream" data-stream-id="1" href="/#narrow/channel/1-general">#general</a></p>',
    );
    // Channel links are navigation, not links to count for has:link.
    expect(result.hasLink).toBe(false);
  });

  it('links a topic', () => {
    const result = renderMessage('#**general>lunch**', ctx);
    expect(result.html).toBe(
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-general/topic/lunch">#general &gt; lunch</a></p>',
    );
  });

  it('encodes channel and topic names the way Zulip does', () => {
    const result = renderMessage('#**design team>a.b (c) & ü**', ctx);
    expect(result.html).toBe(
      '<p><a class="stream-topic" data-stream-id="7" href="/#narrow/channel/7-design-team/topic/a.2Eb.20.28c.29.20.26.20.C3.BC">' +
        '#design team &gt; a.b (c) &amp; ü</a></p>',
    );
  });

  it('links the empty topic under its display name', () => {
    expect(renderMessage('#**general>**', ctx).html).toBe(
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-general/topic/">#general &gt; <em>general chat</em></a></p>',
    );
    expect(renderMessage('#**general>**', makeContext({ emptyTopicDisplayName: 'chit <chat>' })).html).toContain(
      '<em>chit &lt;chat&gt;</em>',
    );
  });

  it('links a message in a topic', () => {
    expect(renderMessage('#**general>lunch@123**', ctx).html).toBe(
      '<p><a class="message-link" href="/#narrow/channel/1-general/topic/lunch/near/123">#general &gt; lunch @ 💬</a></p>',
    );
  });

  it('leaves an unknown channel as ordinary Markdown', () => {
    expect(renderMessage('#**nowhere**', ctx).html).toBe('<p>#<strong>nowhere</strong></p>');
    expect(renderMessage('#**nowhere>lunch**', ctx).html).toBe('<p>#<strong>nowhere&gt;lunch</strong></p>');
  });

  it('escapes topic names', () => {
    const html = renderMessage('#**general><script>alert(1)</script>**', ctx).html;
    expect(html).toContain('#general &gt; &lt;script&gt;alert(1)&lt;/script&gt;</a>');
    expect(html).not.toContain('<script>');
  });

  it('does not link inside code or after a link bracket', () => {
    expect(renderMessage('`#**general**`', ctx).html).toBe('<p><code>#**general**</code></p>');
    expect(renderMessage('[#**general**](https://example.com)', ctx).html).not.toContain('class="stream"');
  });

  it('resolves channels only through the context', () => {
    expect(renderMessage('#**general**', makeContext({ channelByName: () => undefined })).html).toBe(
      '<p>#<strong>general</strong></p>',
    );
  });
});

describe('narrow URL encoding', () => {
  it('matches Zulip hash_util_encode', () => {
    expect(encodeHashComponent('lunch')).toBe('lunch');
    expect(encodeHashComponent('a b')).toBe('a.20b');
    expect(encodeHashComponent('v1.2')).toBe('v1.2E2');
    expect(encodeHashComponent("it's (fun)!*")).toBe('it.27s.20.28fun.29.21.2A');
    expect(encodeHashComponent('a/b%c')).toBe('a.2Fb.25c');
    expect(encodeHashComponent('日本')).toBe('.E6.97.A5.E6.9C.AC');
    expect(encodeHashComponent('-_~')).toBe('-_~');
  });

  it('never throws on malformed strings', () => {
    expect(encodeHashComponent('a\uD800b')).toBe('a.EF.BF.BDb');
  });

  it('builds channel slugs and narrow paths', () => {
    expect(channelSlug(7, 'design team')).toBe('7-design-team');
    expect(channelNarrowPath(1, 'general')).toBe('/#narrow/channel/1-general');
    expect(topicNarrowPath(1, 'general', 'a b')).toBe('/#narrow/channel/1-general/topic/a.20b');
  });
});
