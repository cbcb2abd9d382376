import { describe, expect, it } from '@jest/globals';
import { emojiByName, renderMessage, serverEmojiData, serverEmojiDataUrl } from '@teamchat/markdown';
import { makeContext } from './context';

const ctx = makeContext();
const codeToNames = (): Record<string, string[]> => JSON.parse(serverEmojiData().json).code_to_names;

describe('the server emoji data (server_emoji_data_url)', () => {
  it("is Zulip's format: one member, code_to_names, code → names with the canonical name first", () => {
    const data = JSON.parse(serverEmojiData().json);
    expect(Object.keys(data)).toEqual(['code_to_names']);
    expect(codeToNames()['1f600']).toEqual(expect.arrayContaining(['grinning', 'happy']));
    expect(codeToNames()['1f600']![0]).toBe('grinning');
    expect(codeToNames()['1f44d']![0]).toBe('+1');
    expect(codeToNames()['1f44d']).toEqual(expect.arrayContaining(['thumbsup', 'thumbs_up']));
  });

  it('names exactly what the renderer renders: every name renders as its code, under the canonical name', () => {
    const all = codeToNames();
    expect(Object.keys(all).length).toBeGreaterThan(1800);
    for (const [code, names] of Object.entries(all)) {
      for (const name of names) expect(emojiByName(name)).toEqual({ name: names[0], code });
    }
    const html = renderMessage(':grinning: :happy:', ctx).html;
    expect(html).toContain('class="emoji emoji-1f600"');
    expect(html.match(/emoji-1f600/g)).toHaveLength(2);
  });

  it('writes codes as Zulip does: lower-case hex, dash-separated, no FE0F, no skin-tone components', () => {
    const codes = Object.keys(codeToNames());
    for (const code of codes) expect(code).toMatch(/^[0-9a-f]{4,5}(-[0-9a-f]{4,5})*$/);
    expect(codes.some((code) => code.split('-').includes('fe0f'))).toBe(false);
    expect(codes).toContain('2764');
    expect(codes).not.toContain('1f3fb');
  });

  it('is versioned by a hash of its contents, in an absolute URL at the organization', () => {
    const { hash, json, path } = serverEmojiData();
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(path).toBe(`/static/generated/emoji/emoji_api.${hash}.json`);
    expect(serverEmojiData().json).toBe(json);
    expect(serverEmojiDataUrl('https://chat.example.com')).toBe(`https://chat.example.com${path}`);
    expect(serverEmojiDataUrl('https://chat.example.com/')).toBe(`https://chat.example.com${path}`);
  });
});
