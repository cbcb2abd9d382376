/**
 * A user's personal streams, as commands on them fold them: their topic visibility
 * policies (`user_topics-<user>`) and their flag changes (`message_flags-<user>`).
 */
import { VISIBILITY_POLICY, type Fact } from '@teamchat/contracts';

/** Each topic's policy, by `${channel_id}:${topic lower-cased}`; absent means inherit. */
export interface UserTopicsState {
  policies: Map<string, number>;
}

const topicKey = (channelId: number, topic: string) => `${channelId}:${topic.toLowerCase()}`;

export const initialUserTopics = (): UserTopicsState => ({ policies: new Map() });

/**
 * Sets the policy in the state's map in place rather than in a copy: copying made the
 * fold quadratic in the user's topics (the scale bench's reader, 975 followed topics: 72 ms
 * of the first send after a restart, which folds the stream). Safe because the repository
 * replaces its cached state with the result and hands it to nothing but the next decision
 * on the stream, which runs after this one (commands on a stream are queued).
 */
export function evolveUserTopics(state: UserTopicsState, fact: Fact): UserTopicsState {
  if (fact.type !== 'UserTopicUpdated') return state;
  state.policies.set(topicKey(fact.channel_id, fact.topic), fact.visibility_policy);
  return { policies: state.policies };
}

/** Topics are one whatever their case, as the read model keys them. */
export const visibilityPolicyOf = (state: UserTopicsState, channelId: number, topic: string): number =>
  state.policies.get(topicKey(channelId, topic)) ?? VISIBILITY_POLICY.inherit;

/**
 * The flags stream holds only changes: the flags a message starts with come with its
 * MessageSent, on the message's own stream, so the stream alone folds to nothing a
 * decision can use. Its commands read current flags from the read model instead, caught
 * up to the stream's last fact (see AggregateRepository.executeWith).
 */
export type FlagsStreamState = null;

export const initialFlagsStream = (): FlagsStreamState => null;

export const evolveFlagsStream = (state: FlagsStreamState): FlagsStreamState => state;
