/**
 * People's command handlers and reads: load what the deciders need (the organization's
 * stream, the channels a bot may default to, group memberships), decide, append. Password
 * hashing and key derivation happen here, outside the deciders.
 */
import { ApiError, badRequest, cachedGravatarUrls, endpoints, streams, type Actor, type Fact, type ParamsOf, type ProfileDataItem, type RealmSettings } from '@teamchat/contracts';
import type { Directory, UserDoc, UserGroups } from '@teamchat/directory';
import type { AggregateRepository, AppendResult, ServerConfig } from '@teamchat/platform';
import { emailDomainOf, maySeeRealEmail } from '@teamchat/policies';
import { loginAddress } from '../domain/authentication';
import { deriveApiKey, newCredentials } from '../domain/credentials';
import { checkFullName, decideCreateUser, decideReactivateUser, type OrganizationState } from '../domain/organization';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordMatches } from '../domain/passwords';
import {
  decideCreateBot,
  decideDeactivateBot,
  decideDeactivateOwnAccount,
  decideRegenerateBotKey,
  decideUpdateBot,
  decideUpdateUser,
  type ChannelRef,
} from '../domain/people';
import type { AddressRules } from '../domain/invitations';
import type { AccountsReadModel } from '../projections/credentials';
import { botObject, botsOf, emailVisibilityOf, personObject, profileDataOf, userByIdOrEmail } from '../queries/people';

export interface PeopleDeps {
  organization: AggregateRepository<OrganizationState>;
  directory: Directory;
  accounts: AccountsReadModel;
  userGroups: Pick<UserGroups, 'snapshot'>;
  config: ServerConfig;
  /** The organization's settings (email visibility). */
  realmSettings: { current(): Promise<RealmSettings> };
  /** A user's own settings as they changed them (email visibility). */
  userSettings(userId: number): Promise<Record<string, unknown>>;
  /** Every user's own email_address_visibility where they set one. */
  emailVisibilities?: () => Promise<ReadonlyMap<number, number>>;
  /** Every user's custom profile field values: user id → field id → value. */
  profileValues(): Promise<Map<number, Record<string, string>>>;
  /** The organization's rules for a new address (allowed domains, disposable providers): POST /users applies them. */
  addressRules(): Promise<AddressRules>;
  /**
   * PATCH /users/{id}'s profile_data, through the custom profile fields' decider: `check`
   * refuses what it would refuse without storing anything, `apply` stores it.
   */
  profileData: {
    check(actor: Actor, userId: number, items: ProfileDataItem[]): Promise<void>;
    apply(actor: Actor, userId: number, items: ProfileDataItem[]): Promise<number | undefined>;
  };
}

type Params<K extends keyof typeof endpoints.accounts> = ParamsOf<(typeof endpoints.accounts)[K]>;

const avatarUrls = cachedGravatarUrls();
const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);
const apiKeyOf = (deps: PeopleDeps) => async (user: UserDoc) => {
  const credential = await deps.accounts.credentialOf(user._id);
  if (!credential) throw new ApiError('INTERNAL_SERVER_ERROR', 'User has no credentials', 500);
  return deriveApiKey(deps.config.serverSecret, credential.api_key_salt);
};

async function viewerOf(deps: PeopleDeps, actor: Actor): Promise<UserDoc> {
  const me = await deps.directory.userById(actor.user_id);
  if (!me) throw badRequest('Authentication required');
  return me;
}

function decide(deps: PeopleDeps, run: (state: OrganizationState) => Fact[]) {
  return deps.organization.execute(streams.organization, (state) => ({ facts: run(state), result: undefined }));
}

// --- Reads -----------------------------------------------------------------------------

/** `profile_data` as GET /users gives it: field id → {value}. */

export async function listUsers(deps: PeopleDeps, actor: Actor, params: Params<'listUsers'>) {
  const me = await viewerOf(deps, actor);
  const users = (await deps.directory.allUsers()).sort((a, b) => a._id - b._id);
  const emailVisibility = await emailVisibilityOf(deps, users.map((u) => u._id));
  const options = { client_gravatar: params.client_gravatar ?? true, host: emailDomainOf(deps.config.realmHost), emailVisibility };
  const values = params.include_custom_profile_fields ? await deps.profileValues() : undefined;
  return { members: users.map((user) => ({ ...personObject(me, user, options), ...(values ? { profile_data: profileDataOf(values.get(user._id)) } : {}) })) };
}

export async function getUser(deps: PeopleDeps, actor: Actor, params: Params<'getUser'>) {
  const me = await viewerOf(deps, actor);
  const user = await userByIdOrEmail(deps.directory, params.user_id_or_email, emailDomainOf(deps.config.realmHost));
  const emailVisibility = await emailVisibilityOf(deps, [user._id]);
  const options = { client_gravatar: params.client_gravatar ?? true, host: emailDomainOf(deps.config.realmHost), emailVisibility };
  const values = params.include_custom_profile_fields ? await deps.profileValues() : undefined;
  return { user: { ...personObject(me, user, options), ...(values ? { profile_data: profileDataOf(values.get(user._id)) } : {}) } };
}

export async function listBots(deps: PeopleDeps, actor: Actor) {
  const me = await viewerOf(deps, actor);
  // As Zulip's GET /bots: the caller's own active bots.
  const mine = botsOf({ ...me, role: 400 }, await deps.directory.allUsers()).filter((bot) => bot.is_active);
  return { bots: await Promise.all(mine.map((bot) => botObject({ ...deps, apiKeyOf: apiKeyOf(deps) }, bot))) };
}

// --- Users -----------------------------------------------------------------------------

function checkPassword(password: string): void {
  if (password.length > MAX_PASSWORD_LENGTH) throw badRequest('Password is too long');
}

export async function createUserAccount(deps: PeopleDeps, actor: Actor, params: Params<'createUserAccount'>) {
  // Refuse before hashing: a refused request costs no scrypt.
  const { state } = await deps.organization.load(streams.organization);
  const rules = await deps.addressRules();
  decideCreateUser(state, { actor, user: { email: params.email, full_name: checkFullName(params.full_name), role: 400 }, credentials: newCredentials(deps.config.serverSecret), now: Date.now(), rules });
  if (params.password !== undefined) checkPassword(params.password);
  const password_hash = params.password ? await hashPassword(params.password) : undefined;
  const { result, append } = await deps.organization.execute(streams.organization, (current) => {
    const facts = decideCreateUser(current, {
      actor,
      user: { email: params.email, full_name: checkFullName(params.full_name), role: 400 },
      credentials: newCredentials(deps.config.serverSecret),
      now: Date.now(),
      rules,
      ...(password_hash ? { password_hash } : {}),
    });
    return { facts, result: facts[0].user_id };
  });
  return { value: { user_id: result }, position: positionOf(append) };
}

export async function updateUser(deps: PeopleDeps, actor: Actor, params: Params<'updateUser'>) {
  const target = await userByIdOrEmail(deps.directory, params.user_id_or_email, emailDomainOf(deps.config.realmHost));
  // A new address is told to those who may see the real one: the organization's and the user's own setting.
  const realm = params.new_email !== undefined ? await deps.realmSettings.current() : undefined;
  const own = params.new_email !== undefined ? Number((await deps.userSettings(target._id)).email_address_visibility ?? 1) : 1;
  const mayEmail = (viewer: { user_id: number; role: number }, subject: { user_id: number; is_bot: boolean }) =>
    realm !== undefined && maySeeRealEmail(viewer, subject, realm.email_address_visibility) && maySeeRealEmail(viewer, subject, own);
  const command = () => ({
    actor,
    user_id: target._id,
    ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
    ...(params.role !== undefined ? { role: params.role } : {}),
    ...(params.new_email !== undefined ? { new_email: params.new_email, maySeeRealEmail: mayEmail } : {}),
  });
  // The whole request is checked before anything is stored: the user's changes on the
  // organization's stream, the values against their fields' types on the fields' stream.
  const { state } = await deps.organization.load(streams.organization);
  decideUpdateUser(state, command());
  if (params.profile_data?.length) await deps.profileData.check(actor, target._id, params.profile_data);
  const { append } = await decide(deps, (current) => decideUpdateUser(current, command()));
  let position = positionOf(append);
  if (params.profile_data?.length) position = (await deps.profileData.apply(actor, target._id, params.profile_data)) ?? position;
  return { value: {}, position };
}

export async function deactivateOwnUser(deps: PeopleDeps, actor: Actor) {
  const { append } = await decide(deps, (state) => decideDeactivateOwnAccount(state, { actor }));
  return { value: {}, position: positionOf(append) };
}

/** Reactivation tells clients which groups the user is a direct member of again. */
export async function reactivateUser(deps: PeopleDeps, actor: Actor, userId: number) {
  const groups = await deps.userGroups.snapshot();
  const groupIds = groups
    .all()
    .filter((g) => !g.deactivated && g.members.includes(userId))
    .map((g) => g._id);
  const { append } = await decide(deps, (state) => decideReactivateUser(state, { actor, user_id: userId, group_ids: groupIds }));
  return { value: {}, position: positionOf(append) };
}

// --- Password login --------------------------------------------------------------------

const authenticationFailed = () => new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);

/**
 * POST /fetch_api_key. Every attempt hashes once, whether or not the account exists or has
 * a password, so that the answer's time says nothing about it. Only the right password
 * learns that the account is deactivated.
 */
export async function fetchApiKey(deps: PeopleDeps, params: Params<'fetchApiKey'>) {
  const address = loginAddress(params.username.trim());
  // The password is still hashed for a system bot's address: the refusal takes as long as any.
  const user = params.password.length <= MAX_PASSWORD_LENGTH && address !== undefined ? await deps.directory.userByEmail(address) : undefined;
  const stored = user && (await deps.accounts.passwords.get(user._id));
  const matches = await passwordMatches(params.password, stored?.password_hash);
  if (!user || !matches) throw authenticationFailed();
  if (!user.is_active) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
  return { api_key: await apiKeyOf(deps)(user), email: user.email, user_id: user._id };
}

// --- Bots ------------------------------------------------------------------------------

/** The channels named as a bot's defaults, as the actor may see them (public, or subscribed). */
async function channelsNamed(deps: PeopleDeps, actor: Actor, names: (string | null | undefined)[]): Promise<(name: string) => ChannelRef | undefined> {
  const found = new Map<string, ChannelRef>();
  for (const name of names) {
    if (!name) continue;
    const channel = await deps.directory.channelByName(name);
    if (!channel || channel.is_archived) continue;
    if (channel.invite_only && !(await deps.directory.isSubscribed(channel._id, actor.user_id))) continue;
    found.set(name, { channel_id: channel._id, name: channel.name });
  }
  return (name) => found.get(name);
}

export async function createBot(deps: PeopleDeps, actor: Actor, params: Params<'createBot'>) {
  const channel = await channelsNamed(deps, actor, [params.default_sending_stream, params.default_events_register_stream]);
  const groups = await deps.userGroups.snapshot();
  const credentials = newCredentials(deps.config.serverSecret);
  const { result, append } = await deps.organization.execute(streams.organization, (state) => {
    const created = decideCreateBot(state, {
      actor,
      full_name: params.full_name,
      short_name: params.short_name,
      bot_type: params.bot_type ?? 1,
      ...(params.payload_url !== undefined ? { payload_url: params.payload_url } : {}),
      ...(params.interface_type !== undefined ? { interface_type: params.interface_type } : {}),
      ...(params.service_name !== undefined ? { service_name: params.service_name } : {}),
      ...(params.config_data !== undefined ? { config_data: params.config_data } : {}),
      ...(params.default_sending_stream !== undefined ? { default_sending_stream: params.default_sending_stream } : {}),
      ...(params.default_events_register_stream !== undefined ? { default_events_register_stream: params.default_events_register_stream } : {}),
      ...(params.default_all_public_streams !== undefined ? { default_all_public_streams: params.default_all_public_streams } : {}),
      host: emailDomainOf(deps.config.realmHost),
      credentials,
      now: Date.now(),
      channel,
      groups,
    });
    return { facts: [created], result: created };
  });
  const settings = result.bot_settings!;
  return {
    value: {
      user_id: result.user_id,
      api_key: deriveApiKey(deps.config.serverSecret, credentials.api_key_salt),
      avatar_url: avatarUrls(result.email),
      default_sending_stream: settings.default_sending_stream,
      default_events_register_stream: settings.default_events_register_stream,
      default_all_public_streams: settings.default_all_public_streams,
    },
    position: positionOf(append),
  };
}

export async function updateBot(deps: PeopleDeps, actor: Actor, params: Params<'updateBot'>) {
  const channel = await channelsNamed(deps, actor, [params.default_sending_stream, params.default_events_register_stream]);
  const { append } = await decide(deps, (state) =>
    decideUpdateBot(state, {
      actor,
      bot_id: params.bot_id,
      ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
      ...(params.bot_owner_id !== undefined ? { bot_owner_id: params.bot_owner_id } : {}),
      ...(params.default_sending_stream !== undefined ? { default_sending_stream: params.default_sending_stream } : {}),
      ...(params.default_events_register_stream !== undefined ? { default_events_register_stream: params.default_events_register_stream } : {}),
      ...(params.default_all_public_streams !== undefined ? { default_all_public_streams: params.default_all_public_streams } : {}),
      channel,
    }),
  );
  // The bot as it now stands, from the decided state.
  const { state } = await deps.organization.load(streams.organization);
  const bot = state.usersById.get(params.bot_id)!;
  const owner = bot.bot_owner_id === null ? undefined : state.usersById.get(bot.bot_owner_id);
  const settings = bot.bot_settings!;
  return {
    value: {
      full_name: bot.full_name,
      bot_owner: owner?.email ?? null,
      default_sending_stream: settings.default_sending_stream,
      default_events_register_stream: settings.default_events_register_stream,
      default_all_public_streams: settings.default_all_public_streams,
    },
    position: positionOf(append),
  };
}

export async function deactivateBot(deps: PeopleDeps, actor: Actor, botId: number) {
  const { append } = await decide(deps, (state) => decideDeactivateBot(state, { actor, bot_id: botId }));
  return { value: {}, position: positionOf(append) };
}

export async function regenerateBotApiKey(deps: PeopleDeps, actor: Actor, botId: number) {
  const credentials = newCredentials(deps.config.serverSecret);
  const { append } = await decide(deps, (state) => decideRegenerateBotKey(state, { actor, bot_id: botId, credentials }));
  return { value: { api_key: deriveApiKey(deps.config.serverSecret, credentials.api_key_salt) }, position: positionOf(append) };
}
