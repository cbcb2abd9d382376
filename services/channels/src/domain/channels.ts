/**
 * Channel deciders. The registry stream allocates channel ids, keeps names unique and
 * holds every channel's settings, so a rename or a settings change is decided against
 * all channels at once; each channel's own stream holds its subscriptions (see
 * subscriptions.ts). Pure: the users, subscribers, rendered descriptions and the clock
 * come in with the command.
 */
import {
  badRequest,
  CHANNEL_GROUP_SETTING_RULES,
  CHANNEL_GROUP_SETTINGS,
  channelFromCreated,
  defaultChannelGroupSettings,
  LIMITS,
  SYSTEM_GROUP,
  type ChannelChange,
  type ChannelGroupSettingName,
  type ChannelGroupSettings,
  type ChannelView,
  type Fact,
  type FactOf,
  type GroupMember,
  type GroupSettingUpdate,
  type GroupSettingValue,
  type TopicsPolicy,
} from '@teamchat/contracts';
import {
  canAdministerChannel,
  codePointLength,
  directMembersOf,
  evolveChannelView,
  hasContentAccess,
  isAdministrator,
  isGuest,
  isOwner,
  metadataAudience,
  orgAllows,
  ORGANIZATION_POLICY as POLICY,
  parseGroupSetting,
  sameGroupSetting,
} from '@teamchat/policies';

export interface RegistryState {
  /** Channel id by lower-cased name. */
  byName: Map<string, number>;
  lastChannelId: number;
  channels: Map<number, ChannelView>;
}

export const initialRegistry = (): RegistryState => ({ byName: new Map(), lastChannelId: 0, channels: new Map() });

export function evolveRegistry(state: RegistryState, fact: Fact): RegistryState {
  switch (fact.type) {
    case 'ChannelCreated':
      return {
        byName: new Map(state.byName).set(fact.name.toLowerCase(), fact.channel_id),
        lastChannelId: Math.max(state.lastChannelId, fact.channel_id),
        channels: new Map(state.channels).set(fact.channel_id, channelFromCreated(fact)),
      };
    case 'ChannelUpdated':
    case 'ChannelArchived':
    case 'ChannelUnarchived': {
      const before = state.channels.get(fact.channel_id);
      if (!before) return state;
      const after = evolveChannelView(before, fact);
      const channels = new Map(state.channels).set(fact.channel_id, after);
      if (after.name === before.name) return { ...state, channels };
      const byName = new Map(state.byName);
      byName.delete(before.name.toLowerCase());
      byName.set(after.name.toLowerCase(), fact.channel_id);
      return { ...state, byName, channels };
    }
    default:
      return state;
  }
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const insufficientPermission = () => badRequest('Insufficient permission');

export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw badRequest('Channel name is required');
  if (codePointLength(name) > LIMITS.max_stream_name_length) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.max_stream_name_length} characters)`);
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest('Invalid character in channel name');
  return name;
}

/** Zulip keeps descriptions on one line: newlines become spaces (before rendering). */
export function normalizeDescription(raw: string): string {
  const description = raw.replace(/\r?\n/g, ' ');
  if (codePointLength(description) > LIMITS.max_stream_description_length) throw badRequest('Channel description too long');
  return description;
}

/** `realm_default` (null: the organization's setting), `unlimited` (-1) or a positive number of days. */
export function parseMessageRetentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  if (typeof value === 'number' && value > 0) return value;
  throw badRequest(`Bad value for 'message_retention_days': ${String(value)}`);
}

const DELETE_SETTINGS: ReadonlySet<ChannelGroupSettingName> = new Set(['can_delete_any_message_group', 'can_delete_own_message_group']);

/**
 * Checks a requested group-setting value: known groups, active direct members, and — as
 * Zulip — only users who may set the deletion policy may grant channel-level deletion.
 */
function parseChannelGroupSetting(
  name: ChannelGroupSettingName,
  value: GroupSettingValue,
  actor: GroupMember | undefined,
  activeUserIds: ReadonlySet<number>,
  nowSeconds: number,
): GroupSettingValue {
  const parsed = parseGroupSetting(name, value, CHANNEL_GROUP_SETTING_RULES[name]);
  const unknown = directMembersOf(parsed).find((id) => !activeUserIds.has(id));
  if (unknown !== undefined) throw badRequest(`Invalid user ID: ${unknown}`);
  if (actor && DELETE_SETTINGS.has(name) && parsed !== SYSTEM_GROUP.nobody && !orgAllows(POLICY.canSetDeleteMessagePolicyGroup, actor, nowSeconds)) {
    throw insufficientPermission();
  }
  return parsed;
}

/** The default channels after `changed` takes its new form, and who is told of them. */
function defaultChannels(state: RegistryState, changed: ChannelView[], users: GroupMember[]) {
  const channels = new Map(state.channels);
  for (const channel of changed) channels.set(channel.channel_id, channel);
  return {
    channel_ids: [...channels.values()].filter((c) => c.is_default && !c.is_archived).map((c) => c.channel_id).sort((a, b) => a - b),
    user_ids: users.filter((u) => !isGuest(u.role)).map((u) => u.user_id).sort((a, b) => a - b),
  };
}

// ---------------------------------------------------------------------------------------
// Creating channels
// ---------------------------------------------------------------------------------------

/** Settings a request gives every channel it creates. */
export interface ChannelCreation {
  invite_only: boolean;
  is_web_public: boolean;
  is_default: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  topics_policy?: TopicsPolicy;
  group_settings: Partial<ChannelGroupSettings>;
}

export interface NewChannel {
  name: string;
  /** Normalized (see normalizeDescription) and rendered by the caller. */
  description: string;
  rendered_description: string;
}

export interface CreateChannels {
  /** Absent for a trusted internal caller (seeding), which no permission binds. */
  actor?: GroupMember;
  channels: NewChannel[];
  settings: ChannelCreation;
  /** Every active user: for the audience and to check group members. */
  users: GroupMember[];
  now: number;
}

export function decideCreateChannels(state: RegistryState, cmd: CreateChannels): FactOf<'ChannelCreated'>[] {
  const { actor, settings } = cmd;
  const now = seconds(cmd.now);
  // Checked first so that a guest cannot probe which (private) channel names exist.
  if (actor && isGuest(actor.role)) throw insufficientPermission();
  if (actor) {
    const canCreate = settings.invite_only ? POLICY.canCreatePrivateChannelGroup : POLICY.canCreatePublicChannelGroup;
    if (!orgAllows(canCreate, actor, now)) throw insufficientPermission();
    if (settings.is_default && !isAdministrator(actor.role)) throw insufficientPermission();
  }
  if (settings.invite_only && settings.is_default) throw badRequest('A default channel cannot be private.');
  if (settings.is_web_public && !POLICY.webPublicChannelsEnabled) throw badRequest('Web-public channels are not enabled.');
  const retention = parseMessageRetentionDays(settings.message_retention_days ?? 'realm_default');
  if (actor && retention !== null && !isOwner(actor.role)) throw badRequest('Must be an organization owner');
  const topicsPolicy = settings.topics_policy ?? 'inherit';
  if (actor && topicsPolicy !== 'inherit' && !orgAllows(POLICY.canSetTopicsPolicyGroup, actor, now)) throw insufficientPermission();

  const activeUserIds = new Set(cmd.users.map((u) => u.user_id));
  const groupSettings = defaultChannelGroupSettings(actor?.user_id ?? null);
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const requested = settings.group_settings[name];
    if (requested !== undefined) groupSettings[name] = parseChannelGroupSetting(name, requested, actor, activeUserIds, now);
  }
  // Public channels always share their history; private ones keep it from later
  // subscribers unless asked, as Zulip does.
  const historyPublic = settings.invite_only ? (settings.history_public_to_subscribers ?? false) : true;

  const facts: FactOf<'ChannelCreated'>[] = [];
  const taken = new Set(state.byName.keys());
  let channelId = state.lastChannelId;
  const created: ChannelView[] = [];
  for (const spec of cmd.channels) {
    const name = validateChannelName(spec.name);
    if (taken.has(name.toLowerCase())) throw badRequest(`Channel '${name}' already exists`);
    taken.add(name.toLowerCase());
    const description = normalizeDescription(spec.description);
    const fact: FactOf<'ChannelCreated'> = {
      type: 'ChannelCreated',
      channel_id: ++channelId,
      name,
      description,
      rendered_description: spec.rendered_description,
      invite_only: settings.invite_only,
      is_web_public: false,
      history_public_to_subscribers: historyPublic,
      is_default: settings.is_default,
      topics_policy: topicsPolicy,
      message_retention_days: retention,
      creator_id: actor?.user_id ?? null,
      date_created: now,
      ...groupSettings,
      audience_user_ids: [],
    };
    const channel = channelFromCreated(fact);
    created.push(channel);
    fact.audience_user_ids = metadataAudience(channel, cmd.users, new Set(), now);
    if (settings.is_default) fact.default_channels = defaultChannels(state, created, cmd.users);
    facts.push(fact);
  }
  return facts;
}

// ---------------------------------------------------------------------------------------
// Changing a channel
// ---------------------------------------------------------------------------------------

/** The actor must administer the channel; others learn only whether it exists for them. */
function checkAdministers(channel: ChannelView | undefined, actor: GroupMember, subscribed: boolean, nowSeconds: number): ChannelView {
  if (channel && canAdministerChannel(channel, actor, nowSeconds)) return channel;
  if (channel && hasContentAccess(channel, actor, subscribed, nowSeconds)) {
    throw badRequest('You do not have permission to administer this channel.');
  }
  throw badRequest('Invalid channel ID');
}

export type ChannelGroupSettingUpdates = Partial<Record<ChannelGroupSettingName, GroupSettingUpdate>>;

export interface ChannelChanges extends ChannelGroupSettingUpdates {
  description?: string;
  /** The new description rendered, when there is one. */
  rendered_description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  topics_policy?: TopicsPolicy;
}

export interface UpdateChannel {
  actor: GroupMember;
  channel_id: number;
  /** Whether the actor is subscribed to the channel. */
  subscribed: boolean;
  changes: ChannelChanges;
  subscriber_ids: number[];
  users: GroupMember[];
  /** Whether some message is in a topic other than the empty one (for `empty_topic_only`). */
  has_named_topics: boolean;
  first_message_id: number | null;
  now: number;
}

/** Settings whose change needs content access, not only administration (as Zulip). */
const CONTENT_ACCESS_SETTINGS: ReadonlySet<ChannelGroupSettingName> = new Set(['can_add_subscribers_group']);

export function decideUpdateChannel(state: RegistryState, cmd: UpdateChannel): Fact[] {
  const { actor, changes } = cmd;
  const now = seconds(cmd.now);
  const current = checkAdministers(state.channels.get(cmd.channel_id), actor, cmd.subscribed, now);
  const contentAccess = () => hasContentAccess(current, actor, cmd.subscribed, now);
  const subscribers = new Set(cmd.subscriber_ids);
  const facts: Fact[] = [];
  let channel = current;

  /** Records one change, telling who sees the channel before and after what they need. */
  const change = (what: ChannelChange, withDefaults = false) => {
    const fact: FactOf<'ChannelUpdated'> = { type: 'ChannelUpdated', channel_id: channel.channel_id, name: channel.name, change: what, audience_user_ids: [] };
    const next = evolveChannelView(channel, fact);
    const before = new Set(metadataAudience(channel, cmd.users, subscribers, now));
    const after = metadataAudience(next, cmd.users, subscribers, now);
    const afterSet = new Set(after);
    fact.audience_user_ids = after.filter((id) => before.has(id));
    const shown = after.filter((id) => !before.has(id));
    if (shown.length) {
      fact.shown = { user_ids: shown, channel: next, subscriber_ids: [...subscribers].sort((a, b) => a - b), first_message_id: cmd.first_message_id };
    }
    const hidden = [...before].filter((id) => !afterSet.has(id)).sort((a, b) => a - b);
    if (hidden.length) fact.hidden_user_ids = hidden;
    if (withDefaults) fact.default_channels = defaultChannels(state, [next], cmd.users);
    facts.push(fact);
    channel = next;
  };

  // Privacy, checked as one proposed state, as Zulip does.
  const isPrivate = changes.is_private ?? current.invite_only;
  const isWebPublic = changes.is_web_public ?? current.is_web_public;
  const isDefault = changes.is_default_stream ?? current.is_default;
  const historyPublic = changes.history_public_to_subscribers ?? (changes.is_private !== undefined ? !changes.is_private : current.history_public_to_subscribers);
  if ((isWebPublic && (!historyPublic || isPrivate)) || (!isPrivate && !historyPublic)) throw badRequest('Invalid parameters');
  if (isPrivate && isDefault) throw badRequest('A default channel cannot be private.');
  if (changes.is_private !== undefined) {
    // Also what keeps an administrator out of a private channel's permissions unless subscribed.
    if (!contentAccess()) throw badRequest('Channel content access is required.');
    const canCreate = changes.is_private ? POLICY.canCreatePrivateChannelGroup : POLICY.canCreatePublicChannelGroup;
    if (!orgAllows(canCreate, actor, now)) throw insufficientPermission();
  }
  if (changes.is_web_public && !POLICY.webPublicChannelsEnabled) throw badRequest('Web-public channels are not enabled.');
  if (isPrivate !== current.invite_only || historyPublic !== current.history_public_to_subscribers || isWebPublic !== current.is_web_public) {
    change({ property: 'invite_only', value: isPrivate, history_public_to_subscribers: historyPublic, is_web_public: isWebPublic });
  }

  if (changes.is_default_stream !== undefined) {
    if (!isAdministrator(actor.role)) throw badRequest('Must be an organization administrator');
    if (changes.is_default_stream !== current.is_default) change({ property: 'is_default', value: changes.is_default_stream }, true);
  }

  if (changes.message_retention_days !== undefined) {
    if (!isOwner(actor.role)) throw badRequest('Must be an organization owner');
    const days = parseMessageRetentionDays(changes.message_retention_days);
    if (days !== current.message_retention_days) change({ property: 'message_retention_days', value: days });
  }

  if (changes.is_archived === true) throw badRequest('Only unarchiving is supported here: archive a channel with DELETE /streams/{stream_id}');
  if (changes.is_archived === false) {
    if (!current.is_archived) throw badRequest('Channel is not currently deactivated');
    if (current.invite_only && subscribers.size === 0) throw badRequest('Channel is private and has no subscribers');
    channel = { ...channel, is_archived: false };
    facts.push({
      type: 'ChannelUnarchived',
      channel_id: channel.channel_id,
      name: channel.name,
      audience_user_ids: metadataAudience(channel, cmd.users, subscribers, now),
      channel,
      subscriber_ids: [...subscribers].sort((a, b) => a - b),
      first_message_id: cmd.first_message_id,
    });
  }

  if (changes.topics_policy !== undefined) {
    if (!orgAllows(POLICY.canSetTopicsPolicyGroup, actor, now)) throw insufficientPermission();
    if (changes.topics_policy === 'empty_topic_only' && cmd.has_named_topics) {
      throw badRequest('Only channels whose messages are all in the general chat topic can allow only that topic.');
    }
    if (changes.topics_policy !== current.topics_policy) change({ property: 'topics_policy', value: changes.topics_policy });
  }

  if (changes.description !== undefined) {
    const description = normalizeDescription(changes.description);
    if (description !== current.description) {
      change({ property: 'description', value: description, rendered_description: changes.rendered_description ?? '' });
    }
  }

  if (changes.new_name !== undefined) {
    const name = validateChannelName(changes.new_name);
    if (name === current.name) throw badRequest('Channel already has that name.');
    // Changing only the case keeps the name the channel already holds.
    const holder = state.byName.get(name.toLowerCase());
    if (holder !== undefined && holder !== current.channel_id) throw badRequest(`Channel '${name}' already exists`);
    change({ property: 'name', value: name });
  }

  const activeUserIds = new Set(cmd.users.map((u) => u.user_id));
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const update = changes[name];
    if (update === undefined) continue;
    const value = parseChannelGroupSetting(name, update.new, actor, activeUserIds, now);
    // Refusing a change made against a value the client no longer sees avoids races.
    if (update.old !== undefined && !sameGroupSetting(parseGroupSetting(name, update.old, { allowEveryone: true }), current[name])) {
      throw badRequest("'old' value does not match the expected value.");
    }
    if (sameGroupSetting(value, current[name])) continue;
    if (CONTENT_ACCESS_SETTINGS.has(name) && !contentAccess()) throw badRequest('Channel content access is required.');
    change({ property: name, value });
  }
  return facts;
}

// ---------------------------------------------------------------------------------------
// Archiving
// ---------------------------------------------------------------------------------------

export interface ArchiveChannel {
  actor: GroupMember;
  channel_id: number;
  subscribed: boolean;
  subscriber_ids: number[];
  users: GroupMember[];
  now: number;
}

export function decideArchiveChannel(state: RegistryState, cmd: ArchiveChannel): FactOf<'ChannelArchived'>[] {
  const now = seconds(cmd.now);
  const channel = checkAdministers(state.channels.get(cmd.channel_id), cmd.actor, cmd.subscribed, now);
  if (channel.is_archived) throw badRequest('Channel is already deactivated');
  const fact: FactOf<'ChannelArchived'> = {
    type: 'ChannelArchived',
    channel_id: channel.channel_id,
    name: channel.name,
    // Everyone who saw it keeps seeing it, archived.
    audience_user_ids: metadataAudience(channel, cmd.users, new Set(cmd.subscriber_ids), now),
  };
  if (channel.is_default) fact.default_channels = defaultChannels(state, [evolveChannelView(channel, fact)], cmd.users);
  return [fact];
}
