/**
 * Changing a channel's settings, name or description, or unarchiving it: checked as one
 * proposed state where Zulip does, then one fact per change telling who sees the channel
 * before and after what they need. Pure: the users, subscribers, rendered description and
 * the clock come in with the command.
 */
import {
  badRequest,
  CHANNEL_GROUP_SETTINGS,
  type ChannelChange,
  type ChannelGroupSettingName,
  type Fact,
  type FactOf,
  type GroupMember,
  type GroupSettingUpdate,
  type TopicsPolicy,
} from '@teamchat/contracts';
import {
  evolveChannelView,
  hasContentAccess,
  isAdministrator,
  isOwner,
  metadataAudience,
  orgAllows,
  ORGANIZATION_POLICY,
  type GroupDirectory,
  type OrganizationPolicy,
  parseGroupSetting,
  sameGroupSetting,
} from '@teamchat/policies';
import { checkWebPublic, normalizeDescription, parseChannelGroupSetting, parseMessageRetentionDays, validateChannelName } from './channel-values';
import { checkFolder, type FolderView } from './folders';
import { checkAdministers, defaultChannels, insufficientPermission, seconds, type RegistryState } from './registry';

export type ChannelGroupSettingUpdates = Partial<Record<ChannelGroupSettingName, GroupSettingUpdate>>;

export interface ChannelChanges extends ChannelGroupSettingUpdates {
  description?: string;
  /** The new description rendered, when there is one. */
  rendered_description?: string;
  name?: string;
  invite_only?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  topics_policy?: TopicsPolicy;
  /** null: out of any folder. */
  folder_id?: number | null;
}

export interface UpdateChannel {
  actor: GroupMember;
  channel_id: number;
  /** Whether the actor is subscribed to the channel. */
  subscribed: boolean;
  changes: ChannelChanges;
  subscriber_ids: number[];
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  /** Whether some message is in a topic other than the empty one (for `empty_topic_only`). */
  has_named_topics: boolean;
  first_message_id: number | null;
  /** The channel folders there are (for `folder_id`). */
  folders?: ReadonlyMap<number, FolderView>;
  /** The organization's settings (Zulip's defaults unless a test says otherwise). */
  policy?: OrganizationPolicy;
  now: number;
}


export function decideUpdateChannel(state: RegistryState, cmd: UpdateChannel): Fact[] {
  const { actor, changes } = cmd;
  const POLICY = cmd.policy ?? ORGANIZATION_POLICY;
  const now = seconds(cmd.now);
  const current = checkAdministers(state.channels.get(cmd.channel_id), actor, cmd.subscribed, now, cmd.groups);
  const contentAccess = () => hasContentAccess(current, actor, cmd.subscribed, now, cmd.groups);
  const subscribers = new Set(cmd.subscriber_ids);
  const facts: Fact[] = [];
  let channel = current;

  /** Records one change, telling who sees the channel before and after what they need. */
  const change = (what: ChannelChange, withDefaults = false) => {
    const fact: FactOf<'ChannelUpdated'> = { type: 'ChannelUpdated', channel_id: channel.channel_id, name: channel.name, change: what, audience_user_ids: [] };
    const next = evolveChannelView(channel, fact);
    const before = new Set(metadataAudience(channel, cmd.users, subscribers, now, cmd.groups));
    const after = metadataAudience(next, cmd.users, subscribers, now, cmd.groups);
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
  const inviteOnly = changes.invite_only ?? current.invite_only;
  const isWebPublic = changes.is_web_public ?? current.is_web_public;
  const isDefault = changes.is_default ?? current.is_default;
  const historyPublic = changes.history_public_to_subscribers ?? (changes.invite_only !== undefined ? !changes.invite_only : current.history_public_to_subscribers);
  if ((isWebPublic && (!historyPublic || inviteOnly)) || (!inviteOnly && !historyPublic)) throw badRequest('Invalid parameters');
  if (inviteOnly && isDefault) throw badRequest('A default channel cannot be private.');
  if (changes.invite_only !== undefined) {
    // Also what keeps an administrator out of a private channel's permissions unless subscribed.
    if (!contentAccess()) throw badRequest('Channel content access is required.');
    const canCreate = changes.invite_only ? POLICY.canCreatePrivateChannelGroup : POLICY.canCreatePublicChannelGroup;
    if (!orgAllows(canCreate, actor, now, cmd.groups)) throw insufficientPermission();
  }
  if (changes.is_web_public && !current.is_web_public) checkWebPublic(POLICY, actor, now, cmd.groups);
  if (inviteOnly !== current.invite_only || historyPublic !== current.history_public_to_subscribers || isWebPublic !== current.is_web_public) {
    change({ property: 'invite_only', value: inviteOnly, history_public_to_subscribers: historyPublic, is_web_public: isWebPublic });
  }

  if (changes.is_default !== undefined) {
    if (!isAdministrator(actor.role)) throw badRequest('Must be an organization administrator');
    if (changes.is_default !== current.is_default) change({ property: 'is_default', value: changes.is_default }, true);
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
      audience_user_ids: metadataAudience(channel, cmd.users, subscribers, now, cmd.groups),
      channel,
      subscriber_ids: [...subscribers].sort((a, b) => a - b),
      first_message_id: cmd.first_message_id,
    });
  }

  if (changes.topics_policy !== undefined) {
    if (!orgAllows(POLICY.canSetTopicsPolicyGroup, actor, now, cmd.groups)) throw insufficientPermission();
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

  if (changes.name !== undefined) {
    const name = validateChannelName(changes.name);
    if (name === current.name) throw badRequest('Channel already has that name.');
    // Changing only the case keeps the name the channel already holds.
    const holder = state.byName.get(name.toLowerCase());
    if (holder !== undefined && holder !== current.channel_id) throw badRequest(`Channel '${name}' already exists`);
    change({ property: 'name', value: name });
  }

  if (changes.folder_id !== undefined) {
    const folderId = checkFolder(cmd.folders, changes.folder_id);
    if (folderId !== (current.folder_id ?? null)) change({ property: 'folder_id', value: folderId });
  }

  const activeUserIds = new Set(cmd.users.map((u) => u.user_id));
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const update = changes[name];
    if (update === undefined) continue;
    const value = parseChannelGroupSetting(name, update.new, actor, activeUserIds, now, cmd.groups, POLICY);
    // Refusing a change made against a value the client no longer sees avoids races.
    if (update.old !== undefined && !sameGroupSetting(parseGroupSetting(name, update.old, { allowEveryone: true }, cmd.groups), current[name])) {
      throw badRequest("'old' value does not match the expected value.");
    }
    if (sameGroupSetting(value, current[name])) continue;
    // Permissions need content access besides administration: an organization
    // administrator must be subscribed to a private channel to change them (spec, endpoint 4).
    if (!contentAccess()) throw badRequest('Channel content access is required.');
    change({ property: name, value });
  }
  return facts;
}
