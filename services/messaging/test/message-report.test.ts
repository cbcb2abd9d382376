/**
 * Reporting a message (POST /messages/{message_id}/report): the request's checks, the
 * report's content and topic, and the notification bot's message to the moderators.
 */
import { describe, expect, it } from '@jest/globals';
import { LIMITS, NOTIFICATION_BOT } from '@teamchat/contracts';
import {
  checkReportable,
  checkReportRequest,
  decideReport,
  MAX_REPORT_SNIPPET_LENGTH,
  reportContent,
  reportTopic,
  unusedFence,
  type ModerationChannel,
  type ReportedMessage,
} from '../src/domain/message-report';

const moderators: ModerationChannel = { channel_id: 7, name: 'moderation', is_archived: false, empty_topic_only: false, subscriber_ids: [3, 1, 3] };
const reporter = { user_id: 4, full_name: 'Mark Member' };
const channelMessage: ReportedMessage = {
  id: 120,
  sender_id: 5,
  sender_full_name: 'Sam Sender',
  recipient: { type: 'channel', channel_id: 2, channel_name: 'general', topic: 'lunch' },
  content: 'buy `cheap` stuff',
  timestamp: 1_700_000_000,
};
const direct: ReportedMessage = {
  ...channelMessage,
  recipient: {
    type: 'direct',
    users: [
      { id: 4, email: 'm@x', full_name: 'Mark Member', is_mirror_dummy: false },
      { id: 5, email: 's@x', full_name: 'Sam Sender', is_mirror_dummy: false },
    ],
  },
};
const request = (report_type: string, description = '') => ({ reporter, report_type, description });

describe('reporting a message: the request', () => {
  it.each(['spam', 'harassment', 'inappropriate', 'norms'])('accepts %s without a description', (type) => {
    expect(() => checkReportRequest(request(type), moderators)).not.toThrow();
  });

  it('requires a description for "other"', () => {
    expect(() => checkReportRequest(request('other', '  '), moderators)).toThrow('An explanation is required.');
    expect(() => checkReportRequest(request('other', 'rude'), moderators)).not.toThrow();
  });

  it('refuses an unknown type, an inherited property name included', () => {
    expect(() => checkReportRequest(request('boring'), moderators)).toThrow('Invalid report_type');
    expect(() => checkReportRequest(request('toString'), moderators)).toThrow('Invalid report_type');
  });

  it('refuses a description over 1000 characters (code points)', () => {
    expect(() => checkReportRequest(request('spam', '😀'.repeat(1000)), moderators)).not.toThrow();
    expect(() => checkReportRequest(request('spam', 'x'.repeat(1001)), moderators)).toThrow('description is too long (limit: 1000 characters)');
  });

  it('is refused when the organization has no moderation channel, or it was archived', () => {
    const off = 'Message reporting is not enabled in this organization.';
    expect(() => checkReportRequest(request('spam'), undefined)).toThrow(off);
    expect(() => checkReportRequest(request('spam'), { ...moderators, is_archived: true })).toThrow(off);
  });

  it("refuses one's own message", () => {
    expect(() => checkReportable(5, channelMessage)).toThrow('You cannot report your own message.');
    expect(() => checkReportable(4, channelMessage)).not.toThrow();
  });
});

describe('reporting a message: the report', () => {
  it('names both users silently, quotes the reason and description, and links the channel message in a spoiler', () => {
    expect(reportContent(channelMessage, request('spam', ' ads again '), 'https://chat.example')).toBe(
      [
        '@_**Mark Member|4** reported this message from @_**Sam Sender|5**, sent <time:2023-11-14T22:13:20Z>.',
        '```quote',
        '**Spam**. ads again',
        '```',
        '',
        '``` spoiler Reported message: #**general>lunch@120**',
        'buy `cheap` stuff',
        '```',
      ].join('\n'),
    );
  });

  it('names the other participants of a direct message and links the conversation', () => {
    const content = reportContent(direct, request('harassment'), 'https://chat.example');
    expect(content.split('\n')[0]).toBe('@_**Mark Member|4** reported this message from @_**Sam Sender|5**, sent <time:2023-11-14T22:13:20Z> to @_**Mark Member|4**.');
    expect(content).toContain('**Harassment**.\n');
    expect(content).toContain('[the original message](https://chat.example/#narrow/dm/4,5-dm/near/120)');
  });

  it('fences the quoted message so that it cannot close the spoiler, and truncates a long one', () => {
    expect(unusedFence('plain')).toBe('```');
    expect(unusedFence('a ```` b')).toBe('`````');
    const long = reportContent({ ...channelMessage, content: 'y'.repeat(LIMITS.max_message_length) }, request('spam'), '');
    expect(long).toContain(`${'y'.repeat(MAX_REPORT_SNIPPET_LENGTH)}\n[message truncated]`);
    expect([...long].length).toBeLessThanOrEqual(LIMITS.max_message_length);
  });

  it('goes in the "<sender> moderation" topic, or the empty topic where only that one is allowed', () => {
    expect(reportTopic(channelMessage, moderators)).toBe('Sam Sender moderation');
    expect(reportTopic(channelMessage, { ...moderators, empty_topic_only: true })).toBe('');
  });

  it("is the notification bot's message to the channel's subscribers", () => {
    const fact = decideReport({ reporter, message: channelMessage, channel: moderators, content: 'c', rendered_content: '<p>c</p>', recipient_id: 9, now: 1_700_000_500_000 });
    expect(fact).toMatchObject({
      type: 'MessageSent',
      sender_id: NOTIFICATION_BOT.user_id,
      recipient: { type: 'channel', channel_id: 7, channel_name: 'moderation', topic: 'Sam Sender moderation' },
      recipient_user_ids: [1, 3],
      mentioned_user_ids: [],
      timestamp: 1_700_000_500,
      read_by_sender: false,
    });
    expect(() => decideReport({ reporter: { user_id: 5, full_name: 'Sam' }, message: channelMessage, channel: moderators, content: 'c', rendered_content: '', recipient_id: 9, now: 0 })).toThrow(
      'You cannot report your own message.',
    );
  });
});
