import { describe, expect, it } from '@jest/globals';
import { renderMessage } from '../src';
import { makeContext } from './context';

const ctx = makeContext();

describe('user mentions', () => {
  it('renders a mention by full name, case-insensitively, with the stored name', () => {
    const result = renderMessage('hi @**alice smith**!', ctx);
    expect(result.html).toBe('<p>hi <span class="user-mention" data-user-id="12">@Alice Smith</span>!</p>');
    expect(result.mentionedUserIds).toEqual([12]);
  });

  it('picks the user named by id with the Name|id syntax', () => {
    const result = renderMessage('@**Alice Smith|13**', ctx);
    expect(result.html).toBe('<p><span class="user-mention" data-user-id="13">@Alice Smith</span></p>');
    expect(result.mentionedUserIds).toEqual([13]);
  });

  it('accepts the id-only |id syntax', () => {
    const result = renderMessage('@**|12**', ctx);
    expect(result.html).toBe('<p><span class="user-mention" data-user-id="12">@Alice Smith</span></p>');
    expect(result.mentionedUserIds).toEqual([12]);
  });

  it('refuses Name|id when the id belongs to someone else', () => {
    const result = renderMessage('@**Alice Smith|20**', ctx);
    expect(result.html).not.toContain('user-mention');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('refuses Name|id for an unknown id', () => {
    const result = renderMessage('@**Alice Smith|999**', ctx);
    expect(result.html).toBe('<p>@<strong>Alice Smith|999</strong></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('renders a silent mention without @ and does not count it', () => {
    const result = renderMessage('@_**Alice Smith**', ctx);
    expect(result.html).toBe('<p><span class="user-mention silent" data-user-id="12">Alice Smith</span></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('renders a deactivated user silently and never notifies them', () => {
    const result = renderMessage('@**Gone Person**', ctx);
    expect(result.html).toBe('<p><span class="user-mention silent" data-user-id="30">Gone Person</span></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('leaves an unknown name as ordinary Markdown, like Zulip', () => {
    const result = renderMessage('Hey @**Nonexistent User**', ctx);
    expect(result.html).toBe('<p>Hey @<strong>Nonexistent User</strong></p>');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('escapes HTML in the mentioned name', () => {
    const result = renderMessage('@**Bob <b>Bold</b>**', ctx);
    expect(result.html).toBe('<p><span class="user-mention" data-user-id="20">@Bob &lt;b&gt;Bold&lt;/b&gt;</span></p>');
    expect(result.html).not.toContain('<b>');
    expect(result.mentionedUserIds).toEqual([20]);
  });

  it('escapes an unknown name containing HTML', () => {
    const result = renderMessage('@**<img src=x onerror=alert(1)>**', ctx);
    expect(result.html).toBe('<p>@<strong>&lt;img src=x onerror=alert(1)&gt;</strong></p>');
  });

  it('does not mention in the middle of a word or an e-mail address', () => {
    const result = renderMessage('mail@**Alice Smith** x', ctx);
    expect(result.html).not.toContain('user-mention');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('mentions after an opening bracket or quote', () => {
    const result = renderMessage('(@**Alice Smith**) "@**|13**"', ctx);
    expect(result.mentionedUserIds).toEqual([12, 13]);
  });

  it('lists each mentioned user once, in order of first mention', () => {
    const result = renderMessage('@**|13** @**Alice Smith** @**|13** @_**Bob <b>Bold</b>**', ctx);
    expect(result.mentionedUserIds).toEqual([13, 12]);
  });

  it('does not process mentions inside code spans or code blocks', () => {
    const result = renderMessage('`@**Alice Smith**`\n\n```\n@**Alice Smith** @*support* @**all**\n```\n\n    @**Alice Smith**', ctx);
    expect(result.html).toBe(
      '<p><code>@**Alice Smith**</code></p>\n' +
        '<div class="codehilite"><pre><span></span><code>@**Alice Smith** @*support* @**all**\n</code></pre></div>\n' +
        '<div class="codehilite"><pre><span></span><code>@**Alice Smith**\n</code></pre></div>',
    );
    expect(result.mentionedUserIds).toEqual([]);
    expect(result.mentionedGroupIds).toEqual([]);
    expect(result.wildcard).toBeNull();
  });

  it('needs a boundary before the @, even after emphasis markers', () => {
    expect(renderMessage('*@**Alice Smith***', ctx).mentionedUserIds).toEqual([]);
  });

  it('does not process a backslash-escaped mention', () => {
    const result = renderMessage('\\@**Alice Smith**', ctx);
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('finds mentions inside quotes, spoilers, lists and emphasis', () => {
    const result = renderMessage('> @**|12**\n\n```spoiler s\n@**|13**\n```\n\n* **hey** @**Bob <b>Bold</b>**', ctx);
    expect(result.mentionedUserIds).toEqual([12, 13, 20]);
  });
});

describe('wildcard mentions', () => {
  it.each(['all', 'everyone', 'channel', 'stream'])('@**%s** is a channel wildcard', (name) => {
    const result = renderMessage(`@**${name}** hello`, ctx);
    expect(result.html).toBe(
      `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span> hello</p>`,
    );
    expect(result.wildcard).toBe('channel');
    expect(result.mentionedUserIds).toEqual([]);
  });

  it('@**topic** is a topic wildcard', () => {
    const result = renderMessage('@**topic** lunch?', ctx);
    expect(result.html).toBe('<p><span class="topic-mention">@topic</span> lunch?</p>');
    expect(result.wildcard).toBe('topic');
  });

  it('a channel wildcard outranks a topic wildcard, in either order', () => {
    expect(renderMessage('@**topic** @**all**', ctx).wildcard).toBe('channel');
    expect(renderMessage('@**all** @**topic**', ctx).wildcard).toBe('channel');
  });

  it('silent wildcards render but do not count', () => {
    const result = renderMessage('@_**all** @_**topic**', ctx);
    expect(result.html).toBe(
      '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> ' +
        '<span class="topic-mention silent">topic</span></p>',
    );
    expect(result.wildcard).toBeNull();
  });

  it('is null when there is no wildcard', () => {
    expect(renderMessage('hello @**Alice Smith**', ctx).wildcard).toBeNull();
  });
});

describe('user group mentions', () => {
  it('renders a group mention and counts it', () => {
    const result = renderMessage('ping @*Support*', ctx);
    expect(result.html).toBe('<p>ping <span class="user-group-mention" data-user-group-id="3">@support</span></p>');
    expect(result.mentionedGroupIds).toEqual([3]);
  });

  it('renders a silent group mention without @ and does not count it', () => {
    const result = renderMessage('@_*support*', ctx);
    expect(result.html).toBe('<p><span class="user-group-mention silent" data-user-group-id="3">support</span></p>');
    expect(result.mentionedGroupIds).toEqual([]);
  });

  it('leaves an unknown group as ordinary Markdown', () => {
    const result = renderMessage('@*nobody*', ctx);
    expect(result.html).toBe('<p>@<em>nobody</em></p>');
    expect(result.mentionedGroupIds).toEqual([]);
  });

  it('escapes HTML in group names', () => {
    const result = renderMessage('@*design <team>*', ctx);
    expect(result.html).toBe(
      '<p><span class="user-group-mention" data-user-group-id="4">@design &lt;team&gt;</span></p>',
    );
  });

  it('does not count user mentions as group mentions or vice versa', () => {
    const result = renderMessage('@**Alice Smith** @*support*', ctx);
    expect(result.mentionedUserIds).toEqual([12]);
    expect(result.mentionedGroupIds).toEqual([3]);
  });
});
