/**
 * Who may do what with a channel, as messaging asks it: one function, given the channel,
 * the actor's role and whether they are subscribed, answers every question messaging
 * puts. The questions differ on purpose (each matches what Zulip answers at that place),
 * so each caller picks the answer to its own question rather than a shared "may see".
 */
import { ROLE } from '@teamchat/contracts';

/** What the rules read of a channel. */
export interface ChannelAccessView {
  invite_only: boolean;
  history_public_to_subscribers: boolean;
}

/** The actor as the rules see them, with respect to this channel. */
export interface ChannelAccessActor {
  role: number;
  subscribed: boolean;
}

export interface ChannelAccess {
  /**
   * The channel may be named and known to exist (a narrow's channel operator, a `with:`
   * link's conversation, marking a topic as read): any public channel, guests included,
   * and private ones the actor is subscribed to. Otherwise it reads as unknown.
   */
  seeMetadata: boolean;
  /**
   * Its messages may be read from channel history, not only those the actor received:
   * only where history is shared with subscribers, and then for subscribers, or for
   * anyone but guests in a public channel.
   */
  readHistory: boolean;
  /**
   * Messages may be moved into it (before the channel's own posting permission is
   * checked): subscribers, or anyone but guests in a public channel; history sharing
   * does not matter.
   */
  postOrMoveInto: boolean;
  /** The actor may set topic visibility policies in it: subscribers, or whoever may read its history. */
  setTopicVisibility: boolean;
}

const NONE: ChannelAccess = { seeMetadata: false, readHistory: false, postOrMoveInto: false, setTopicVisibility: false };

/** A channel that does not exist answers no to everything. */
export function channelAccess(channel: ChannelAccessView | undefined, actor: ChannelAccessActor): ChannelAccess {
  if (!channel) return NONE;
  const { subscribed } = actor;
  const publicToMembers = !channel.invite_only && actor.role !== ROLE.guest;
  const readHistory = channel.history_public_to_subscribers && (subscribed || publicToMembers);
  return {
    seeMetadata: !channel.invite_only || subscribed,
    readHistory,
    postOrMoveInto: subscribed || publicToMembers,
    setTopicVisibility: subscribed || readHistory,
  };
}

/**
 * Who loses messages moved into a channel: into a private one, whoever holds them but is
 * not subscribed there, since they could not see them; into a public one, nobody.
 */
export function revokedByMove(destination: Pick<ChannelAccessView, 'invite_only'>, holderIds: number[], subscriberIds: number[]): number[] {
  if (!destination.invite_only) return [];
  const subscribers = new Set(subscriberIds);
  return [...new Set(holderIds)].filter((id) => !subscribers.has(id));
}
