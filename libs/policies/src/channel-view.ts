/**
 * How facts change a channel as every reader holds it: the one evolution the channel
 * registry and the directory share, so they never disagree about a channel.
 */
import type { ChannelView, Fact } from '@teamchat/contracts';

/** The channel after `fact`; facts about other things leave it as it was. */
export function evolveChannelView(channel: ChannelView, fact: Fact): ChannelView {
  switch (fact.type) {
    case 'ChannelUpdated': {
      const change = fact.change;
      switch (change.property) {
        case 'name':
          return { ...channel, name: change.value };
        case 'description':
          return { ...channel, description: change.value, rendered_description: change.rendered_description };
        case 'invite_only':
          return {
            ...channel,
            invite_only: change.value,
            history_public_to_subscribers: change.history_public_to_subscribers,
            is_web_public: change.is_web_public,
          };
        case 'is_default':
          return { ...channel, is_default: change.value };
        case 'message_retention_days':
          return { ...channel, message_retention_days: change.value };
        case 'topics_policy':
          return { ...channel, topics_policy: change.value };
        default:
          return { ...channel, [change.property]: change.value };
      }
    }
    case 'ChannelArchived':
      // Zulip removes an archived channel from the default channels.
      return { ...channel, is_archived: true, is_default: false };
    case 'ChannelUnarchived':
      return { ...channel, is_archived: false };
    default:
      return channel;
  }
}
