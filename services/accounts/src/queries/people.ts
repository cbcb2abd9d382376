/**
 * Users and bots as clients read them (GET /users, GET /users/{id}, GET /bots, POST
 * /register's realm_users and realm_bots), each for one viewer: who may see a real email
 * address follows the organization's email visibility setting.
 */
import { avatarUrlOf, badRequest, cachedGravatarUrls, type PersonObject } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import { dummyEmail, isAdministrator, maySeeRealEmail, ORGANIZATION_POLICY } from '@teamchat/policies';
import type { AccountsReadModel } from '../projections/credentials';
import { userProfile } from './profile';

const avatarUrls = cachedGravatarUrls();

/**
 * Who may see a user's real address: the organization's email_address_visibility and the
 * user's own setting must both allow it (a user can only restrict further).
 */
export interface EmailVisibility {
  realm: number;
  /** Users' own settings where they changed them (absent: everyone). */
  own: ReadonlyMap<number, number>;
}

export interface PersonOptions {
  client_gravatar: boolean;
  /** The organization's host, for the addresses shown instead of hidden ones. */
  host: string;
  /** Absent: the defaults (everyone sees every address). */
  emailVisibility?: EmailVisibility;
}

/** The visibility settings as they stand, from the organization's settings and each user's own. */
export async function emailVisibilityOf(
  deps: {
    realmSettings: { current(): Promise<{ email_address_visibility: number }> };
    userSettings(userId: number): Promise<Record<string, unknown>>;
    /** Every user's own setting at once, where they set one (else each user's settings are read). */
    emailVisibilities?: () => Promise<ReadonlyMap<number, number>>;
  },
  userIds: readonly number[],
): Promise<EmailVisibility> {
  const realm = (await deps.realmSettings.current()).email_address_visibility;
  if (deps.emailVisibilities) return { realm, own: await deps.emailVisibilities() };
  const own = new Map<number, number>();
  for (const id of userIds) {
    const value = (await deps.userSettings(id)).email_address_visibility;
    if (typeof value === 'number') own.set(id, value);
  }
  return { realm, own };
}

export function maySeeEmailOf(viewer: Pick<UserDoc, '_id' | 'role'>, user: Pick<UserDoc, '_id' | 'is_bot'>, visibility: EmailVisibility | undefined): boolean {
  const v = { user_id: viewer._id, role: viewer.role };
  const s = { user_id: user._id, is_bot: user.is_bot };
  const realm = visibility?.realm ?? ORGANIZATION_POLICY.emailAddressVisibility;
  return maySeeRealEmail(v, s, realm) && maySeeRealEmail(v, s, visibility?.own.get(user._id) ?? 1);
}

export function personObject(viewer: Pick<UserDoc, '_id' | 'role'>, user: UserDoc, options: PersonOptions): PersonObject {
  const visible = maySeeEmailOf(viewer, user, options.emailVisibility);
  const profile = userProfile(user);
  return {
    ...profile,
    email: visible ? user.email : dummyEmail(user._id, options.host),
    delivery_email: visible ? user.email : null,
    // With client_gravatar the client computes Gravatar URLs itself, as Zulip expects; an uploaded one it cannot.
    avatar_url: options.client_gravatar && user.avatar?.avatar_source !== 'U' ? null : profile.avatar_url,
    is_billing_admin: false,
  };
}

/** A user's custom profile field values as `profile_data` gives them: field id → {value}. */
export const profileDataOf = (values: Readonly<Record<string, string>> | undefined) =>
  Object.fromEntries(Object.entries(values ?? {}).map(([id, value]) => [id, { value }]));

/**
 * personObject as UTF-8 JSON, without its closing brace (register adds `profile_data`),
 * kept per user document and per form: whether the viewer sees the real address, and
 * client_gravatar. At 10,000 users register's realm_users is about 6 MB: building and
 * serializing every person object cost a third of a registration, and keeping them as
 * text then cost another 20 ms of the main thread, to join, measure and encode 7 MB of
 * text per registration, where bytes are only copied (realmUsersMembers).
 */
const personJsonHeads = new WeakMap<UserDoc, (Buffer | undefined)[]>();

export function personJsonHead(viewer: Pick<UserDoc, '_id' | 'role'>, user: UserDoc, options: PersonOptions): Buffer {
  const visible = maySeeEmailOf(viewer, user, options.emailVisibility);
  const form = (visible ? 1 : 0) + (options.client_gravatar ? 2 : 0);
  let heads = personJsonHeads.get(user);
  if (!heads) personJsonHeads.set(user, (heads = []));
  let head = heads[form];
  if (head === undefined) {
    // The host is the server's own, the same for every viewer.
    const json = JSON.stringify(personObject(viewer, user, options));
    heads[form] = head = Buffer.from(json.slice(0, -1));
  }
  return head;
}

/** `42`, a real address, or the dummy `user42@host` that viewers who may not see it are shown. */
export async function userByIdOrEmail(directory: Pick<Directory, 'userById' | 'userByEmail'>, idOrEmail: string, host: string): Promise<UserDoc> {
  const key = idOrEmail.trim();
  let user: UserDoc | undefined;
  if (/^\d{1,15}$/.test(key)) user = await directory.userById(Number(key));
  else {
    user = await directory.userByEmail(key);
    const dummy = /^user(\d{1,15})@(.+)$/i.exec(key);
    if (!user && dummy && dummy[2]!.toLowerCase() === host.toLowerCase()) user = await directory.userById(Number(dummy[1]));
  }
  if (!user) throw badRequest('No such user');
  return user;
}

export interface BotQueryDeps {
  directory: Pick<Directory, 'channelById'>;
  accounts: AccountsReadModel;
  apiKeyOf(user: UserDoc): Promise<string>;
}

/** A bot with its key: only for its owner and administrators. */
export async function botObject(deps: BotQueryDeps, bot: UserDoc) {
  const settings = await deps.accounts.botSettings.get(bot._id);
  // Channels are named as they are called now, not when they were chosen.
  const channelName = async (id: number | null | undefined, recorded: string | null | undefined) =>
    id === null || id === undefined ? null : ((await deps.directory.channelById(id))?.name ?? recorded ?? null);
  return {
    user_id: bot._id,
    email: bot.email,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active,
    owner_id: bot.bot_owner_id,
    api_key: await deps.apiKeyOf(bot),
    avatar_url: bot.avatar ? avatarUrlOf(bot.email, bot.avatar) : avatarUrls(bot.email),
    default_sending_stream: await channelName(settings?.default_sending_stream_id, settings?.default_sending_stream),
    default_events_register_stream: await channelName(settings?.default_events_register_stream_id, settings?.default_events_register_stream),
    default_all_public_streams: settings?.default_all_public_streams ?? false,
    services: settings?.services ?? [],
  };
}

/** The bots `viewer` administers: every bot for administrators, their own for others (as in Zulip). */
export const botsOf = (viewer: Pick<UserDoc, '_id' | 'role'>, users: UserDoc[]): UserDoc[] =>
  users.filter((u) => u.is_bot && (isAdministrator(viewer.role) || u.bot_owner_id === viewer._id)).sort((a, b) => a._id - b._id);
