/**
 * Channel deciders. The registry stream allocates channel ids and keeps names unique;
 * each channel's own stream holds its subscriptions, so subscribing to one channel never
 * contends with another. Pure: the clock and the rendered description come in with the
 * command.
 */
import { badRequest, LIMITS, ROLE, type Actor, type Fact, type FactOf } from '@teamchat/contracts';

export interface RegistryState {
  /** Channel id by lower-cased name. */
  byName: Map<string, number>;
  lastChannelId: number;
}

export const initialRegistry = (): RegistryState => ({ byName: new Map(), lastChannelId: 0 });

export function evolveRegistry(state: RegistryState, fact: Fact): RegistryState {
  if (fact.type !== 'ChannelCreated') return state;
  return {
    byName: new Map(state.byName).set(fact.name.toLowerCase(), fact.channel_id),
    lastChannelId: Math.max(state.lastChannelId, fact.channel_id),
  };
}

export interface CreateChannel {
  actor: Actor | undefined;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  history_public_to_subscribers?: boolean;
  is_default: boolean;
  now: number;
}

export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw badRequest('Channel name is required');
  if ([...name].length > LIMITS.max_stream_name_length) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.max_stream_name_length} characters)`);
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest('Invalid character in channel name');
  return name;
}

export function decideCreateChannel(state: RegistryState, cmd: CreateChannel): FactOf<'ChannelCreated'>[] {
  // Checked first so that a guest cannot probe which (private) channel names exist.
  if (cmd.actor?.role === ROLE.guest) throw badRequest('Insufficient permission');
  const name = validateChannelName(cmd.name);
  if (state.byName.has(name.toLowerCase())) throw badRequest(`Channel '${name}' already exists`);
  if ([...cmd.description].length > LIMITS.max_stream_description_length) throw badRequest('Channel description too long');
  // Public channels always share their history; private ones keep it from later
  // subscribers unless asked, as Zulip does.
  const historyPublic = cmd.invite_only ? (cmd.history_public_to_subscribers ?? false) : true;
  return [
    {
      type: 'ChannelCreated',
      channel_id: state.lastChannelId + 1,
      name,
      description: cmd.description,
      rendered_description: cmd.rendered_description,
      invite_only: cmd.invite_only,
      is_web_public: false,
      history_public_to_subscribers: historyPublic,
      is_default: cmd.is_default,
      topics_policy: 'inherit',
      message_retention_days: null,
      creator_id: cmd.actor?.user_id ?? null,
      date_created: Math.floor(cmd.now / 1000),
    },
  ];
}

/** A channel's own stream: who is subscribed. */
export interface ChannelState {
  subscribers: Set<number>;
}

export const initialChannel = (): ChannelState => ({ subscribers: new Set() });

export function evolveChannel(state: ChannelState, fact: Fact): ChannelState {
  switch (fact.type) {
    case 'SubscriptionsAdded':
      return { subscribers: new Set([...state.subscribers, ...fact.user_ids]) };
    case 'SubscriptionsRemoved': {
      const subscribers = new Set(state.subscribers);
      for (const id of fact.user_ids) subscribers.delete(id);
      return { subscribers };
    }
    default:
      return state;
  }
}

export interface Subscribe {
  actor: Actor | undefined;
  channel_id: number;
  /** Whether the channel is private, from the registry (the channel stream may be empty). */
  invite_only: boolean;
  user_ids: number[];
}

export function decideSubscribe(state: ChannelState, cmd: Subscribe): Fact[] {
  if (cmd.actor) {
    const onlySelf = cmd.user_ids.every((id) => id === cmd.actor!.user_id);
    const isAdmin = cmd.actor.role <= ROLE.administrator;
    if (!isAdmin && (!onlySelf || cmd.invite_only || cmd.actor.role === ROLE.guest)) {
      throw badRequest('Insufficient permission');
    }
  }
  const added = [...new Set(cmd.user_ids)].filter((id) => !state.subscribers.has(id)).sort((a, b) => a - b);
  return added.length ? [{ type: 'SubscriptionsAdded', channel_id: cmd.channel_id, user_ids: added }] : [];
}
