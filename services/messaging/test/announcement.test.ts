import { describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT } from '@teamchat/contracts';
import { announcementContent, announcementTarget, decideAnnouncement } from '../src/domain/announcement';

const channel = { channel_id: 9, name: 'launchpad', description: 'Rockets', invite_only: false, is_archived: false };
const general = { channel_id: 1, name: 'general', is_archived: false, subscriber_ids: [5, 1, 4] };

describe('new-channel announcements', () => {
  it('announces public channels in an announcements channel that is not archived, and nothing else', () => {
    expect(announcementTarget(channel, general)).toBe(general);
    expect(announcementTarget({ ...channel, invite_only: true }, general)).toBeNull();
    expect(announcementTarget({ ...channel, is_archived: true }, general)).toBeNull();
    expect(announcementTarget(channel, undefined)).toBeNull();
    expect(announcementTarget(channel, { ...general, is_archived: true })).toBeNull();
    expect(announcementTarget(undefined, general)).toBeNull();
  });

  it('links the channel, mentions its creator silently and quotes its description', () => {
    expect(announcementContent(channel, { user_id: 4, full_name: 'Mark Member' })).toBe(
      '#**launchpad** is a new channel, created by @_**Mark Member|4**.\n\n```quote\nRockets\n```',
    );
    expect(announcementContent({ ...channel, description: '  ' }, { user_id: 4, full_name: 'Mark Member' })).toBe(
      '#**launchpad** is a new channel, created by @_**Mark Member|4**.',
    );
  });

  it('is a message of the notification bot to the subscribers, in the "new channels" topic', () => {
    const fact = decideAnnouncement({ target: general, content: 'c', rendered_content: '<p>c</p>', recipient_id: 3, now: 1_700_000_000_999 });
    expect(fact).toMatchObject({
      sender_id: NOTIFICATION_BOT.user_id,
      sender_email: NOTIFICATION_BOT.email,
      recipient: { type: 'channel', channel_id: 1, channel_name: 'general', topic: 'new channels' },
      client: 'Internal',
      timestamp: 1_700_000_000,
      recipient_user_ids: [1, 4, 5],
      mentioned_user_ids: [],
      read_by_sender: false,
    });
  });
});
