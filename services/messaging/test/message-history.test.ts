/** The message history, read receipt and highlighting rules. */
import { describe, expect, it } from '@jest/globals';
import { highlightHtml, highlightTopic, messageHistory, readReceiptUserIds, type CurrentMessage } from '../src/domain/message-history';

describe('message history', () => {
  const sent: CurrentMessage = { sender_id: 5, timestamp: 100, content: 'v1', rendered_content: '<p>v1</p>', channel_id: 10, topic: 't1', edit_history: [] };

  it('a message never edited has one version: as sent, by its sender, with its channel', () => {
    expect(messageHistory(sent, false)).toEqual([{ topic: 't1', content: 'v1', rendered_content: '<p>v1</p>', timestamp: 100, user_id: 5, stream: 10 }]);
  });

  it('walks the edits back from the current message: each version with the prev_* of what it replaced', () => {
    const current: CurrentMessage = {
      ...sent,
      content: 'v2',
      rendered_content: '<p>v2</p>',
      channel_id: 20,
      topic: '',
      edit_history: [
        // Newest first: a move to channel 20 and the empty topic, then a content edit.
        { user_id: 7, timestamp: 300, prev_stream: 10, stream: 20, prev_topic: 't1', topic: '' },
        { user_id: 5, timestamp: 200, prev_content: 'v1', prev_rendered_content: '<p>v1</p>' },
      ],
    };
    expect(messageHistory(current, false)).toEqual([
      { topic: 't1', content: 'v1', rendered_content: '<p>v1</p>', timestamp: 100, user_id: 5, stream: 10 },
      { topic: 't1', content: 'v2', rendered_content: '<p>v2</p>', timestamp: 200, user_id: 5, prev_content: 'v1', prev_rendered_content: '<p>v1</p>' },
      { topic: 'general chat', content: 'v2', rendered_content: '<p>v2</p>', timestamp: 300, user_id: 7, prev_topic: 't1', prev_stream: 10, stream: 20 },
    ]);
    expect(messageHistory(current, true)[2]!.topic).toBe('');
  });

  it('a direct message has no channel and the empty topic', () => {
    expect(messageHistory({ ...sent, channel_id: null, topic: null }, true)).toEqual([{ topic: '', content: 'v1', rendered_content: '<p>v1</p>', timestamp: 100, user_id: 5 }]);
  });
});

describe('read receipts', () => {
  const reader = (user_id: number, over: Partial<{ read: boolean; is_active: boolean; sends_read_receipts: boolean }> = {}) => ({
    user_id,
    read: true,
    is_active: true,
    sends_read_receipts: true,
    ...over,
  });
  it('names active readers who send receipts, never the sender, in id order', () => {
    expect(
      readReceiptUserIds(1, [reader(4), reader(1), reader(2, { read: false }), reader(3, { sends_read_receipts: false }), reader(5, { is_active: false }), reader(0)]),
    ).toEqual([0, 4]);
  });
});

describe('highlighting search terms', () => {
  const terms = { words: ['deploy'], phrases: ['release notes'] };
  it('marks whole words starting with a term, and phrases, only in text', () => {
    expect(highlightHtml('<p>Deploying the <a href="/deploy">release  notes</a> &amp; deploy</p>', terms)).toBe(
      '<p><span class="highlight">Deploying</span> the <a href="/deploy"><span class="highlight">release  notes</span></a> &amp; <span class="highlight">deploy</span></p>',
    );
    expect(highlightHtml('<p>redeploy</p>', terms)).toBe('<p>redeploy</p>');
    expect(highlightHtml('<p>x</p>', { words: [], phrases: [] })).toBe('<p>x</p>');
  });
  it('never splits a character reference, and escapes the topic', () => {
    expect(highlightHtml('<p>&amp; amp</p>', { words: ['amp'], phrases: [] })).toBe('<p>&amp; <span class="highlight">amp</span></p>');
    expect(highlightTopic('<deploy> & co', terms)).toBe('&lt;<span class="highlight">deploy</span>&gt; &amp; co');
    // A reference whose name is a term, and a term inside a tag, stay as they are.
    expect(highlightHtml('<p>&delta; delta</p>', { words: ['delta'], phrases: [] })).toBe('<p>&delta; <span class="highlight">delta</span></p>');
    expect(highlightHtml('<p><span title="deploy">x</span></p>', terms)).toBe('<p><span title="deploy">x</span></p>');
  });
  it('never lets a phrase span a tag or a character reference', () => {
    const phrase = { words: [], phrases: ['release notes'] };
    expect(highlightHtml('<p>release <em>notes</em></p>', phrase)).toBe('<p>release <em>notes</em></p>');
    expect(highlightHtml('<p>release &amp; notes</p>', phrase)).toBe('<p>release &amp; notes</p>');
    expect(highlightHtml('<p>release, notes</p>', phrase)).toBe('<p><span class="highlight">release, notes</span></p>');
  });
});

describe('highlighting search terms in scripts written without spaces', () => {
  it('marks the characters searched for wherever they are, as search finds them', () => {
    // The search for 会議 is the phrase of its two characters (see searchableText).
    const terms = { words: [], phrases: ['会 議'] };
    expect(highlightHtml('<p>今日は会議があります</p>', terms)).toBe('<p>今日は<span class="highlight">会議</span>があります</p>');
    expect(highlightHtml('<p>会 議</p>', terms)).toBe('<p><span class="highlight">会 議</span></p>');
    expect(highlightHtml('<p>会社</p>', terms)).toBe('<p>会社</p>');
    // A word after an ideograph starts there, and ends before the next one.
    expect(highlightHtml('<p>会deploying会</p>', { words: ['deploy'], phrases: [] })).toBe('<p>会<span class="highlight">deploying</span>会</p>');
    expect(highlightHtml('<p>𠀋x</p>', { words: ['𠀋'], phrases: [] })).toBe('<p><span class="highlight">𠀋</span>x</p>');
  });
});
