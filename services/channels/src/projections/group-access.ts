/**
 * Reacts to changes of user groups' membership: when a group named in a private channel's
 * can_administer_channel_group or can_add_subscribers_group gains or loses members, the
 * channels service (which decides who sees a channel) stores who gained or lost sight of
 * it (domain/group-access.ts), and the events service tells them.
 *
 * It runs inside the channels projector, after the groups projection has applied the same
 * fact, so the channels, subscribers and groups it reads are exactly those of that moment.
 * Its facts are named after the group fact (stream and ids), so that a replay, a retry
 * after a crash, or a second channels instance appends nothing twice. Facts stored before
 * this reactor first ran are not reacted to: announcing them now would tell clients of
 * long-past states.
 */
import { storedFactData, streams, type ChannelView, type FactOf, type GroupMember } from '@teamchat/contracts';
import type { Directory, UserGroups } from '@teamchat/directory';
import type { GroupDirectory } from '@teamchat/policies';
import type { Collection, Doc, EventStore, FactHandlers, ReadModelStore, StoredFact } from '@teamchat/platform';
import { decideGroupAccess, decideRoleAccess, isPrivateAndLive, mayChangeAccess, type AccessContext, type GroupMembershipFact } from '../domain/group-access';
import type { ChannelMessages } from './channel-messages';

interface SinceDoc extends Doc {
  _id: 'since';
  /** Group facts at or below this position are not reacted to. */
  position: number;
}

export interface GroupAccessDeps {
  store: EventStore;
  directory: Directory;
  userGroups: Pick<UserGroups, 'snapshot'>;
  messages: Pick<ChannelMessages, 'firstMessageId'>;
}

export class GroupAccessReactor {
  private readonly state: Collection<SinceDoc>;
  private since = Number.POSITIVE_INFINITY;

  constructor(
    readModels: ReadModelStore,
    private readonly deps: GroupAccessDeps,
  ) {
    this.state = readModels.collection<SinceDoc>('channel_group_access');
  }

  /** Before the projector starts: from where to react (the store's head on the very first run). */
  async start(): Promise<void> {
    const doc = await this.state.get('since');
    if (doc) {
      this.since = doc.position;
      return;
    }
    this.since = await this.deps.store.headPosition();
    await this.state.put({ _id: 'since', position: this.since });
  }

  readonly handlers = {
    UserGroupMembersAdded: (fact, stored) => this.react(fact, stored),
    UserGroupMembersRemoved: (fact, stored) => this.react(fact, stored),
    UserGroupSubgroupsAdded: (fact, stored) => this.react(fact, stored),
    UserGroupSubgroupsRemoved: (fact, stored) => this.react(fact, stored),
    UserRoleChanged: (fact, stored) => this.reactToRole(fact, stored),
  } satisfies FactHandlers;

  private react(fact: GroupMembershipFact, stored: StoredFact): Promise<void> {
    return this.decideAndStore(stored, mayChangeAccess, (context) => decideGroupAccess(fact, ...context));
  }

  /** A role change across the administrator line shows or hides the private channels. */
  private reactToRole(fact: FactOf<'UserRoleChanged'>, stored: StoredFact): Promise<void> {
    return this.decideAndStore(stored, isPrivateAndLive, (context) => decideRoleAccess(fact, ...context));
  }

  /**
   * Reads the channels `candidate` selects with their subscribers, the users and the groups
   * as of the fact, lets `decide` say who gained or lost sight of them, and stores that.
   */
  private async decideAndStore(
    stored: StoredFact,
    candidate: (channel: ChannelView) => boolean,
    decide: (context: [AccessContext[], GroupMember[], GroupDirectory, number]) => FactOf<'ChannelAccessChanged'>[],
  ): Promise<void> {
    if (stored.position <= this.since) return;
    const { directory, userGroups, messages, store } = this.deps;
    const candidates = (await directory.allChannels()).filter(candidate);
    if (candidates.length === 0) return;
    const [users, groups] = await Promise.all([directory.activeUsers(), userGroups.snapshot()]);
    const channels: AccessContext[] = [];
    for (const channel of candidates) {
      const [subscriber_ids, first_message_id] = await Promise.all([directory.subscriberIds(channel.channel_id), messages.firstMessageId(channel.channel_id)]);
      channels.push({ channel, subscriber_ids, first_message_id });
    }
    const members = users.map((u) => ({ user_id: u._id, role: u.role, date_joined: u.date_joined }));
    // The fact's own commit time, not the clock: deciding again gives the same answer.
    const facts = decide([channels, members, groups, Math.floor(stored.created / 1000)]);
    if (facts.length === 0) return;
    await store.append(
      streams.channelAccess(stored.id),
      facts.map((data) => ({ id: `${stored.id}-access-${data.channel_id}`, type: data.type, data: storedFactData(data) })),
      'any',
    );
  }
}
