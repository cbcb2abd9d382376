import { describe, expect, it } from '@jest/globals';
import { checkLinkifierPattern, checkLinkifierUrlTemplate, CompiledLinkifiers, renderMessage, topicLinks } from '../src';
import { makeContext } from './context';

const issues = { id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' };
const repoIssues = { id: 2, pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', url_template: 'https://github.com/{org}/{repo}/issues/{id}' };
const link = (href: string, text: string): string => `<a href="${href}" target="_blank" rel="noopener noreferrer" title="${href}">${text}</a>`;
const html = (source: string, list = [issues]) => renderMessage(source, makeContext({ linkifiers: new CompiledLinkifiers(list) }));

describe('linkifier patterns', () => {
  it('accepts RE2 patterns and lists their named groups', () => {
    expect(checkLinkifierPattern(repoIssues.pattern)).toEqual({ ok: true, groups: ['org', 'repo', 'id'] });
  });

  it('refuses what RE2 cannot run in linear time, and invalid syntax', () => {
    for (const pattern of ['(a)\\1', '(?=a)b', '(?<!x)y', '(unclosed', 'a)|(b']) {
      const check = checkLinkifierPattern(pattern);
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.error).toMatch(/^Bad regular expression/);
    }
  });

  it('refuses the group names the wrapping uses', () => {
    expect(checkLinkifierPattern('(?P<linkifier_actual>x)').ok).toBe(false);
  });

  it('runs a pattern with nested repetition in linear time', () => {
    const evil = new CompiledLinkifiers([{ id: 1, pattern: '(?P<a>(x+x+)+y)', url_template: 'https://e.com/{a}' }]);
    const started = Date.now();
    expect(evil.matches('x'.repeat(50_000))).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reads URL templates as RFC 6570', () => {
    expect(checkLinkifierUrlTemplate('https://e.com/{id}/{+path}')).toEqual({ ok: true, variables: ['id', 'path'], makesWebUrl: true });
    expect(checkLinkifierUrlTemplate('javascript:{id}')).toEqual({ ok: true, variables: ['id'], makesWebUrl: false });
    expect(checkLinkifierUrlTemplate('https://e.com/{id').ok).toBe(false);
    expect(checkLinkifierUrlTemplate('https://e.com/id}').ok).toBe(false);
  });
});

describe('linkifiers in messages', () => {
  it('links whole-word matches with the expanded template', () => {
    expect(html('see #2468 and (#12)').html).toBe(
      `<p>see ${link('https://github.com/zulip/zulip/issues/2468', '#2468')} and (${link('https://github.com/zulip/zulip/issues/12', '#12')})</p>`,
    );
    expect(html('see #2468').hasLink).toBe(true);
  });

  it('finds matches separated by one character', () => {
    expect(html('#1 #2').html).toBe(`<p>${link('https://github.com/zulip/zulip/issues/1', '#1')} ${link('https://github.com/zulip/zulip/issues/2', '#2')}</p>`);
  });

  it('leaves matches inside words, code and links alone', () => {
    expect(html('a#1 #2x `#3` [#4](https://e.com)').html).toBe(
      `<p>a#1 #2x <code>#3</code> ${link('https://e.com', '#4')}</p>`,
    );
  });

  it('lets an earlier linkifier win an overlap', () => {
    expect(html('zulip/zulip#5', [repoIssues, issues]).html).toBe(`<p>${link('https://github.com/zulip/zulip/issues/5', 'zulip/zulip#5')}</p>`);
  });

  it('percent-encodes group values into the URL', () => {
    const list = [{ id: 1, pattern: 'T:(?P<name>\\S+)', url_template: 'https://e.com/t/{name}' }];
    expect(html('T:a"b<c', list).html).toBe(`<p>${link('https://e.com/t/a%22b%3Cc', 'T:a&quot;b&lt;c')}</p>`);
  });

  it('skips a stored linkifier whose pattern no longer compiles', () => {
    expect(new CompiledLinkifiers([{ id: 1, pattern: '(x', url_template: 'https://e.com' }]).isEmpty).toBe(true);
  });
});

describe('topic links', () => {
  const linkifiers = new CompiledLinkifiers([issues]);
  it('lists linkifier matches and web addresses in text order', () => {
    expect(topicLinks('fix #9 see https://e.com/x', linkifiers)).toEqual([
      { text: '#9', url: 'https://github.com/zulip/zulip/issues/9' },
      { text: 'https://e.com/x', url: 'https://e.com/x' },
    ]);
    expect(topicLinks('nothing here', linkifiers)).toEqual([]);
    expect(topicLinks('#1', undefined)).toEqual([]);
  });
});
