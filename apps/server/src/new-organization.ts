/**
 * What a new organization starts with, as Zulip's realm creation gives it: two public
 * channels that are default for new users (`general`, where the notification bot also
 * announces new channels, and `sandbox`), the owner subscribed to both, and a welcome
 * message from the notification bot in `general`. Done over the bus with the same internal
 * commands the development seed uses, so that every part is a fact of its owning service.
 */
import { endpoints } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';

export const DEFAULT_CHANNELS = [
  { name: 'general', description: 'Conversations for the whole team.' },
  { name: 'sandbox', description: 'A place to try things out. :test_tube:' },
] as const;

export const WELCOME_TOPIC = 'welcome';

export function welcomeText(organization: string): string {
  return [
    `Welcome to **${organization}**!`,
    '',
    '#**general** is for conversations that concern everyone, and #**sandbox** is the place to try things out. ' +
      'Everyone who joins is subscribed to both.',
    '',
    'Invite your team (POST /invites, or from a Zulip app), and start a topic here to say hello.',
  ].join('\n');
}

/** Creates the default channels and the welcome; the position of the last write. */
export async function setUpNewOrganization(bus: Bus, org: { name: string; owner_id: number; after?: number | undefined }): Promise<{ channel_ids: number[]; position: number | undefined }> {
  let after = org.after;
  const at = () => (after !== undefined ? { after } : {});
  const channel_ids: number[] = [];
  for (const channel of DEFAULT_CHANNELS) {
    const reply = await callContract(bus, endpoints.channels.createChannel, { params: { ...channel, is_default: true, subscribers: [org.owner_id] }, ...at() });
    after = reply.position ?? after;
    channel_ids.push(reply.value.channel_id);
  }
  const general = channel_ids[0]!;
  after = (await callContract(bus, endpoints.accounts.setNewChannelAnnouncementsChannel, { params: { channel_id: general }, ...at() })).position ?? after;
  const welcome = await callContract(bus, endpoints.messaging.sendSystemBotChannelMessage, {
    params: { bot: 'notification', channel_id: general, topic: WELCOME_TOPIC, content: welcomeText(org.name) },
    ...at(),
  });
  return { channel_ids, position: welcome.position ?? after };
}
