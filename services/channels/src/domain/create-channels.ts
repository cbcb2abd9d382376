/**
 * Creating channels: who may create what, checked once for the request, then one
 * ChannelCreated per channel, each with who may see it. Pure: the users, the rendered
 * descriptions and the clock come in with the command.
 */
import {
  badRequest,
  CHANNEL_GROUP_SETTINGS,
  channelFromCreated,
  defaultChannelGroupSettings,
  type ChannelGroupSettings,
  type ChannelView,
  type FactOf,
  type GroupMember,
  type TopicsPolicy,
} from '@teamchat/contracts';
import { isAdministrator, isGuest, isOwner, metadataAudience, orgAllows, ORGANIZATION_POLICY, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { checkWebPublic, normalizeDescription, parseChannelGroupSetting, parseMessageRetentionDays, validateChannelName } from './channel-values';
import { checkFolder, type FolderView } from './folders';
import { defaultChannels, insufficientPermission, seconds, type RegistryState } from './registry';

/** Settings a request gives every channel it creates. */
export interface ChannelCreation {
  invite_only: boolean;
  is_web_public: boolean;
  is_default: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  topics_policy?: TopicsPolicy;
  folder_id?: number | null;
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
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  /** The channel folders there are (for `folder_id`). */
  folders?: ReadonlyMap<number, FolderView>;
  /** The organization's settings (Zulip's defaults unless a test says otherwise). */
  policy?: OrganizationPolicy;
  now: number;
}

export function decideCreateChannels(state: RegistryState, cmd: CreateChannels): FactOf<'ChannelCreated'>[] {
  const { actor, settings } = cmd;
  const POLICY = cmd.policy ?? ORGANIZATION_POLICY;
  const now = seconds(cmd.now);
  // Checked first so that a guest cannot probe which (private) channel names exist.
  if (actor && isGuest(actor.role)) throw insufficientPermission();
  if (actor) {
    const canCreate = settings.invite_only ? POLICY.canCreatePrivateChannelGroup : POLICY.canCreatePublicChannelGroup;
    if (!orgAllows(canCreate, actor, now, cmd.groups)) throw insufficientPermission();
    if (settings.is_default && !isAdministrator(actor.role)) throw insufficientPermission();
  }
  if (settings.invite_only && settings.is_default) throw badRequest('A default channel cannot be private.');
  if (settings.is_web_public) {
    checkWebPublic(POLICY, actor, now, cmd.groups);
    if (settings.invite_only) throw badRequest('Invalid parameters');
  }
  const retention = parseMessageRetentionDays(settings.message_retention_days ?? 'realm_default');
  if (actor && retention !== null && !isOwner(actor.role)) throw badRequest('Must be an organization owner');
  const topicsPolicy = settings.topics_policy ?? 'inherit';
  if (actor && topicsPolicy !== 'inherit' && !orgAllows(POLICY.canSetTopicsPolicyGroup, actor, now, cmd.groups)) throw insufficientPermission();

  const folderId = checkFolder(cmd.folders, settings.folder_id ?? null);
  const activeUserIds = new Set(cmd.users.map((u) => u.user_id));
  const groupSettings = defaultChannelGroupSettings(actor?.user_id ?? null);
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const requested = settings.group_settings[name];
    if (requested !== undefined) groupSettings[name] = parseChannelGroupSetting(name, requested, actor, activeUserIds, now, cmd.groups, POLICY);
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
      is_web_public: settings.is_web_public,
      history_public_to_subscribers: historyPublic,
      is_default: settings.is_default,
      topics_policy: topicsPolicy,
      message_retention_days: retention,
      creator_id: actor?.user_id ?? null,
      date_created: now,
      folder_id: folderId,
      ...groupSettings,
      audience_user_ids: [],
    };
    const channel = channelFromCreated(fact);
    created.push(channel);
    fact.audience_user_ids = metadataAudience(channel, cmd.users, new Set(), now, cmd.groups);
    if (settings.is_default) fact.default_channels = defaultChannels(state, created, cmd.users);
    facts.push(fact);
  }
  return facts;
}
