/**
 * The organization settings decider (PATCH /realm). Its own stream holds only the
 * changes; the name starts as `OrganizationCreated` gave it, and the users and groups a
 * group-setting may name come in with the context. Pure: the acting user, the users and
 * the groups are given.
 *
 * Who may change what is Zulip's: administrators, and only owners for the settings on who
 * may join or invite and for spectator access (REALM_SETTINGS' `ownerOnly`). A request is
 * checked whole before anything changes, so a refused one changes nothing.
 */
import { ACTIVE_USERS,
  applyRealmChanges,
  badRequest,
  NO_CHANNEL,
  REALM_SETTINGS,
  REALM_SETTING_NAMES,
  realmSettingsOf,
  type Actor,
  type Fact,
  type FactOf,
  type GroupSettingUpdate,
  type GroupSettingValue,
  type RealmSettingName,
  type RealmSettings,
  type RealmSettingValue,
  type UpdateRealmParams,
} from '@teamchat/contracts';
import { codePointLength, directMembersOf, isAdministrator, isOwner, parseGroupSetting, sameGroupSetting, type GroupDirectory } from '@teamchat/policies';
import type { RegisteredUser } from './organization';

export interface RealmSettingsState {
  /** Every change so far, latest value per setting. */
  changes: Readonly<Record<string, RealmSettingValue>>;
}

export const initialRealmSettings = (): RealmSettingsState => ({ changes: {} });

export function evolveRealmSettings(state: RealmSettingsState, fact: Fact): RealmSettingsState {
  return fact.type === 'RealmSettingsChanged' ? { changes: { ...state.changes, ...fact.changes } } : state;
}

export interface RealmContext {
  /** The organization's name as created (changes of it are in the state). */
  organizationName: string;
  users: ReadonlyMap<number, RegisteredUser>;
  groups: GroupDirectory;
  /**
   * The channels a channel-valued setting names, as accounts' directory knows them (the
   * handler looks up only those the request names); absent or missing: no such channel.
   */
  channels?: ReadonlyMap<number, { invite_only: boolean; is_archived: boolean }>;
}

export const currentSettings = (state: RealmSettingsState, ctx: Pick<RealmContext, 'organizationName'>): RealmSettings =>
  applyRealmChanges(realmSettingsOf(ctx.organizationName), state.changes);

/** The value a parameter asks for, in stored form; refused naming the setting when it does not fit. */
function parseValue(name: RealmSettingName, raw: unknown, current: RealmSettingValue, ctx: RealmContext): RealmSettingValue {
  const spec = REALM_SETTINGS[name].type;
  const invalid = () => badRequest(`Invalid ${name}: ${JSON.stringify(raw)}`);
  switch (spec.kind) {
    case 'text': {
      if (typeof raw !== 'string') throw invalid();
      const value = raw.trim();
      if (spec.nonEmpty && value.length === 0) throw badRequest(`Organization ${name} can't be empty.`);
      if (codePointLength(value) > spec.maxLength) throw badRequest(`${name} is too long (limit: ${spec.maxLength} characters)`);
      return value;
    }
    case 'boolean':
      if (typeof raw !== 'boolean') throw invalid();
      return raw;
    case 'count':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) throw invalid();
      return raw;
    case 'choice':
      if (typeof raw !== 'number' || !spec.values.includes(raw)) throw invalid();
      return raw;
    case 'limit':
      if (raw === 'unlimited') return null;
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw <= 0) throw invalid();
      return raw;
    case 'channel': {
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < NO_CHANNEL) throw invalid();
      if (raw === NO_CHANNEL) return raw;
      const channel = ctx.channels?.get(raw);
      // An archived channel cannot receive messages, so it is no channel to send to.
      if (!channel || channel.is_archived) throw badRequest('Invalid channel ID');
      if (spec.private && !channel.invite_only) throw badRequest('Moderation request channel must be private.');
      return raw;
    }
    case 'group': {
      const update = raw as GroupSettingUpdate;
      const parse = (value: GroupSettingValue) => {
        const parsed = parseGroupSetting(name, value, spec.rules, ctx.groups);
        for (const id of directMembersOf(parsed)) {
          const user = ctx.users.get(id);
          if (!user || !user.is_active) throw badRequest(`Invalid user ID ${id} in '${name}'`);
        }
        return parsed;
      };
      // The client's view must still hold, or its change would undo someone else's.
      if (update.old !== undefined && !sameGroupSetting(parse(update.old), current as GroupSettingValue)) {
        throw badRequest(`'old' value for ${name} does not match expected value.`);
      }
      return parse(update.new);
    }
  }
}

const sameValue = (a: RealmSettingValue, b: RealmSettingValue) =>
  typeof a === 'object' && a !== null && typeof b === 'object' && b !== null ? sameGroupSetting(a, b) : a === b;

export function decideUpdateRealm(state: RealmSettingsState, ctx: RealmContext, cmd: { actor: Actor; params: UpdateRealmParams }): FactOf<'RealmSettingsChanged'>[] {
  const actor = ctx.users.get(cmd.actor.user_id);
  if (!actor || !actor.is_active || !isAdministrator(actor.role)) throw badRequest('Must be an organization administrator');
  const requested = REALM_SETTING_NAMES.filter((name) => cmd.params[name] !== undefined);
  const ownerOnly = requested.find((name) => 'ownerOnly' in REALM_SETTINGS[name] && REALM_SETTINGS[name].ownerOnly);
  if (ownerOnly !== undefined && !isOwner(actor.role)) throw badRequest('Must be an organization owner');
  const current = currentSettings(state, ctx);
  const changes: Record<string, RealmSettingValue> = {};
  for (const name of requested) {
    const value = parseValue(name, cmd.params[name], current[name], ctx);
    if (!sameValue(value, current[name])) changes[name] = value;
  }
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'RealmSettingsChanged', changes, actor_id: actor.user_id, audience: ACTIVE_USERS }];
}
