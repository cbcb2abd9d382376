/**
 * The accounts service: organization, users, API keys and the key-exchange endpoints.
 * Wires its projections and bus endpoints; the decisions live in domain/.
 */
import { actorChanged, badRequest, endpoints, orgStreams, streams, wantsState, type Actor, type ActorChanged, type ProfileDataItem } from '@teamchat/contracts';
import { AnnouncementsChannel, Directory, RealmEmojiBook, RealmSettingsProjection, UserGroups } from '@teamchat/directory';
import { evolveRealmEmoji, initialRealmEmoji } from './domain/realm-emoji';
import { addRealmEmoji, deactivateRealmEmoji, realmEmojiState, type RealmEmojiDeps } from './handlers/realm-emoji';
import {
  AggregateRepository,
  combineHandlers,
  contractServer,
  createMailOutbox,
  ObservedEventStore,
  Projector,
  type AppendResult,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { decideAnnouncementsChannel } from './domain/announcements';
import { evolveOrganization, initialOrganization } from './domain/organization';
import { changeServerPermission, createOrganization, createUser, deactivateUser } from './handlers/commands';
import { AccountsReadModel } from './projections/credentials';
import { authenticate, devFetchApiKey, jwtFetchApiKey, keyFor } from './queries/authentication';
import { userProfile } from './queries/profile';
import { evolveUserGroups, initialUserGroups } from './domain/user-groups';
import { createUserGroup, deactivateUserGroup, updateMembers, updateSubgroups, updateUserGroup } from './handlers/user-groups';
import { groupMembers, groupSubgroups, userGroupObjects } from './queries/user-groups';
import { channelSettingGroupIds } from './queries/channel-groups';
import { accountsState, realmUsersMembers } from './queries/register-state';
import { serverSettings } from './queries/server-settings';
import { evolveBotStorage, initialBotStorage } from './domain/bot-storage';
import { evolvePlaygrounds, initialPlaygrounds } from './domain/playgrounds';
import { evolveUserData, initialUserData } from './domain/user-data';
import * as tools from './handlers/tools';
import { createVideoCall, videoCallProviderOf } from './handlers/video-calls';
import { ToolsReadModel } from './projections/tools';
import { getBotStorage, getDrafts, getSavedSnippets, toolsState } from './queries/tools';
import {
  createBot,
  createUserAccount,
  deactivateBot,
  deactivateOwnUser,
  fetchApiKey,
  getUser,
  listBots,
  listUsers,
  reactivateUser,
  regenerateBotApiKey,
  updateBot,
  updateUser,
} from './handlers/people';
import { evolveRealmSettings, initialRealmSettings } from './domain/realm-settings';
import { evolveUserStatus, initialUserStatus } from './domain/user-status';
import { decideUpdateProfileData, evolveProfileFields, initialProfileFields } from './domain/profile-fields';
import { updateProfileData, updateRealm } from './handlers/org';
import { OrgReadModel } from './projections/org';
import { realmSettingGroupIds, withOrgState } from './queries/org';
import { orgEndpoints } from './handlers/org-endpoints';
import { evolveLinkifiers, initialLinkifiers } from './domain/linkifiers';
import { linkifierEndpoints, linkifiersState } from './handlers/linkifiers';
import { LinkifiersReadModel } from './projections/linkifiers';
import { evolveNavigationViews, initialNavigationViews } from './domain/navigation-views';
import { navigationViewEndpoints, navigationViewsState } from './handlers/navigation-views';
import { NavigationViewsReadModel } from './projections/navigation-views';
import { evolveDevices, initialDevices } from './domain/devices';
import { deviceEndpoints, devicesState } from './handlers/devices';
import { DevicesReadModel } from './projections/devices';
import { evolvePushTokens, initialPushTokens } from './domain/push-tokens';
import { pushTokenEndpoints } from './handlers/push-tokens';
import { PushTokensReadModel } from './projections/push-tokens';
import { evolveRealmUserDefaults, initialRealmUserDefaults } from './domain/realm-user-defaults';
import { applyRealmUserDefaults, realmUserDefaultsEndpoints, realmUserDefaultsState } from './handlers/navigation-views';
import { RealmUserDefaultsReadModel } from './projections/realm-user-defaults';
import { confirmEmailChange, updateSettings } from './handlers/settings';
import { evolveInvitations, initialInvitations } from './domain/invitations';
import { evolveRealmDomains, initialRealmDomains } from './domain/realm-domains';
import * as invites from './handlers/invitations';
import { passwordLinkEndpoints } from './handlers/password-links';
import { evolveSessions, initialSessions } from './domain/sessions';
import * as webSessions from './handlers/sessions';
import { SessionsReadModel } from './projections/sessions';

import { RealmDomainsReadModel } from './projections/realm-domains';
import { evolveAvatar, initialAvatar } from './domain/avatar';
import { avatarEndpoints } from './handlers/avatar';
import { actorChanges, actorChangesAppended } from './projections/actor-changes';

export async function startAccountsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, config, readModels } = deps;
  const publishActorChange = (changed: ActorChanged) => bus.publish(actorChanged.subject, changed);
  // Commands append through this one; the projector reads the store itself.
  const store = new ObservedEventStore(deps.store, actorChangesAppended(publishActorChange));
  const directory = new Directory(readModels);
  const accounts = new AccountsReadModel(readModels);
  const userGroups = new UserGroups(readModels);
  const toolsModel = new ToolsReadModel(readModels);
  const announcements = new AnnouncementsChannel(readModels);
  const realmSettings = new RealmSettingsProjection(readModels);
  const org = new OrgReadModel(readModels);
  const linkifiersModel = new LinkifiersReadModel(readModels);
  const navigationViewsModel = new NavigationViewsReadModel(readModels);
  const devicesModel = new DevicesReadModel(readModels);
  const pushTokensModel = new PushTokensReadModel(readModels);
  const realmUserDefaultsModel = new RealmUserDefaultsReadModel(readModels);
  const realmEmojiBook = new RealmEmojiBook(readModels);
  const realmDomainsModel = new RealmDomainsReadModel(readModels);
  const sessionsModel = new SessionsReadModel(readModels);
  const projector = new Projector({
    name: 'accounts',
    store: deps.store,
    readModels,
    log,
    handlers: combineHandlers(
      directory.handlers,
      accounts.handlers,
      userGroups.handlers,
      toolsModel.handlers,
      announcements.handlers,
      realmSettings.handlers,
      org.handlers,
      linkifiersModel.handlers,
      navigationViewsModel.handlers,
      devicesModel.handlers,
      pushTokensModel.handlers,
      realmUserDefaultsModel.handlers,
      realmEmojiBook.handlers,
      realmDomainsModel.handlers,
      sessionsModel.handlers,
      actorChanges(publishActorChange),
    ),
  });
  await projector.start();
  // Mail is queued by the handlers after their facts and delivered from here, with retries.
  const mailOutbox = createMailOutbox(config.mail, readModels, deps.mailer, log);
  mailOutbox.start();

  const organization = new AggregateRepository(store, { initial: initialOrganization, evolve: evolveOrganization });
  const commandDeps = { organization, config };
  const groupDeps = {
    organization,
    userGroups: new AggregateRepository(store, { initial: initialUserGroups, evolve: evolveUserGroups }),
    // Groups the organization's settings name may not be deactivated either, as in Zulip.
    channelSettingGroupIds: async () => new Set([...channelSettingGroupIds(await directory.allChannels()), ...realmSettingGroupIds(await realmSettings.current())]),
    policy: () => realmSettings.policy(),
  };
  const authDeps = { directory, accounts, config };
  const toolsDeps = {
    directory,
    userData: new AggregateRepository(store, { initial: initialUserData, evolve: evolveUserData }),
    botStorage: new AggregateRepository(store, { initial: initialBotStorage, evolve: evolveBotStorage }),
    playgrounds: new AggregateRepository(store, { initial: initialPlaygrounds, evolve: evolvePlaygrounds }),
    botStorageLimit: config.tools.botStorageLimit,
  };
  const settingsDeps = {
    organization,
    userData: toolsDeps.userData,
    directory,
    accounts,
    userGroups,
    realmSettings,
    mail: mailOutbox,
    log,
    config,
  };
  const videoCalls = videoCallProviderOf(config.tools);
  const realmUserDefaultsDeps = {
    directory,
    defaults: new AggregateRepository(store, { initial: initialRealmUserDefaults, evolve: evolveRealmUserDefaults }),
    userData: toolsDeps.userData,
    model: realmUserDefaultsModel,
  };
  const emojiDeps: RealmEmojiDeps = {
    directory,
    userGroups,
    realmSettings,
    realmEmoji: new AggregateRepository(store, { initial: initialRealmEmoji, evolve: evolveRealmEmoji }),
    book: realmEmojiBook,
    maxEmojiFileSizeMib: config.uploads.maxEmojiFileSizeMib,
  };
  const profileFields = new AggregateRepository(store, { initial: initialProfileFields, evolve: evolveProfileFields });
  const orgCommandDeps = {
    organization,
    realmSettings: new AggregateRepository(store, { initial: initialRealmSettings, evolve: evolveRealmSettings }),
    userStatus: new AggregateRepository(store, { initial: initialUserStatus, evolve: evolveUserStatus }),
    profileFields,
    groups: () => userGroups.snapshot(),
    organizationName: async () => (await accounts.organization.get('organization'))?.name ?? '',
    channel: async (id: number) => {
      const doc = await directory.channelById(id);
      return doc && { invite_only: doc.invite_only, is_archived: doc.is_archived };
    },
    realmEmoji: () => realmEmojiBook.all(),
  };
  const userSettings = async (userId: number) => (await toolsModel.userDataOf(userId)).settings;
  const emailVisibilities = () => toolsModel.emailVisibilities();
  const peopleDeps = {
    organization,
    directory,
    accounts,
    userGroups,
    config,
    realmSettings,
    userSettings,
    emailVisibilities,
    profileValues: () => org.allValues(),
    addressRules: () => invites.addressRules(inviteDeps),
    profileData: {
      check: async (actor: Actor, userId: number, items: ProfileDataItem[]) => {
        const { state } = await profileFields.load(orgStreams.customProfileFields);
        decideUpdateProfileData(state, { users: (await organization.load(streams.organization)).state.usersById }, { actor, user_id: userId, items });
      },
      apply: (actor: Actor, userId: number, items: ProfileDataItem[]) => updateProfileData(orgCommandDeps, actor, userId, items),
    },
  };
  const inviteDeps: invites.InvitationDeps = {
    organization,
    invitations: new AggregateRepository(store, { initial: initialInvitations, evolve: evolveInvitations }),
    realmDomains: new AggregateRepository(store, { initial: initialRealmDomains, evolve: evolveRealmDomains }),
    userGroups: groupDeps.userGroups,
    groups: userGroups,
    directory,
    realmSettings,
    channelSettingGroupIds: groupDeps.channelSettingGroupIds,
    mail: mailOutbox,
    bus,
    config,
    log,
    defaultValidityMinutes: config.invitations.validityMinutes,
    dailyLimit: config.invitations.dailyLimit,
  };
  const sessionDeps: webSessions.SessionDeps = {
    directory,
    accounts,
    sessions: new AggregateRepository(store, { initial: initialSessions, evolve: evolveSessions }),
    model: sessionsModel,
    config,
  };
  const serve = contractServer({ bus, log, readModels: projector, deactivated: (id) => directory.isDeactivated(id) });
  const api = endpoints.accounts;
  const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);

  const subscriptions: BusSubscription[] = await Promise.all([
    serve(api.authenticate, async (params) => ({
      value: { actor: await authenticate(authDeps, params.email, params.api_key, params.client) },
      // The position the answer holds for, so that the gateway can cache it (ActorChanged).
      position: projector.checkpoint,
    })),
    serve(api.devFetchApiKey, async (params) => ({ value: await devFetchApiKey(authDeps, params.username) })),
    serve(api.logIn, (params) => webSessions.logIn(sessionDeps, params)),
    serve(api.devLogIn, (params) => webSessions.devLogIn(sessionDeps, params)),
    serve(api.devUsers, async () => ({ value: await webSessions.devUsers(sessionDeps) })),
    serve(api.authenticateSession, async (params) => ({
      value: await webSessions.authenticateSession(sessionDeps, params),
      // As accounts.authenticate: the position the answer holds for, so that the gateway may cache it.
      position: projector.checkpoint,
    })),
    serve(api.endSession, async (params, { actor }) => ({ value: {}, position: await webSessions.endSession(sessionDeps, actor, params.session_hash) })),
    serve(api.jwtFetchApiKey, async (params) => ({
      value: await jwtFetchApiKey(authDeps, params.token, params.include_profile ?? false),
    })),
    serve(api.createOrganization, async (params, { actor }) => {
      if (actor) throw badRequest('Organizations are created with the command-line tool');
      const position = positionOf(await createOrganization(commandDeps, params));
      await projector.waitFor(position);
      const owner = await directory.userByEmail(params.owner_email);
      if (!owner) throw new Error('owner missing after organization creation');
      // The command-line tool prints this key: the operator's only way in.
      return { value: { user_id: owner._id, email: owner.email, api_key: await keyFor(authDeps, owner) }, position };
    }),
    serve(api.changeServerPermission, async (params, { actor }) => {
      if (actor) throw badRequest('Server-level permissions are given with the command-line tool');
      return changeServerPermission(commandDeps, params);
    }),
    serve(api.createUser, async (params, { actor }) => {
      const { user_id, append } = await createUser(commandDeps, actor, params);
      return { value: { user_id }, position: positionOf(append) };
    }),
    serve(api.deactivateUser, async (params, { actor }) => ({
      value: {},
      position: positionOf(await deactivateUser(commandDeps, actor, params.user_id)),
    })),
    serve(api.reactivateUser, (params, { actor }) => reactivateUser(peopleDeps, actor, params.user_id)),
    serve(api.listUsers, async (params, { actor }) => ({ value: await listUsers(peopleDeps, actor, params) })),
    serve(api.getUser, async (params, { actor }) => ({ value: await getUser(peopleDeps, actor, params) })),
    serve(api.createUserAccount, async (params, { actor }) => {
      const created = await createUserAccount(peopleDeps, actor, params);
      // The organization's defaults for new users become the new user's own settings.
      const position = await applyRealmUserDefaults(realmUserDefaultsDeps, created.value.user_id);
      return position === undefined ? created : { ...created, position };
    }),
    serve(api.updateUser, (params, { actor }) => updateUser(peopleDeps, actor, params)),
    serve(api.deactivateOwnUser, (_params, { actor }) => deactivateOwnUser(peopleDeps, actor)),
    serve(api.fetchApiKey, async (params) => ({ value: await fetchApiKey(peopleDeps, params) })),
    serve(api.createBot, (params, { actor }) => createBot(peopleDeps, actor, params)),
    serve(api.listBots, async (_params, { actor }) => ({ value: await listBots(peopleDeps, actor) })),
    serve(api.updateBot, (params, { actor }) => updateBot(peopleDeps, actor, params)),
    serve(api.deactivateBot, (params, { actor }) => deactivateBot(peopleDeps, actor, params.bot_id)),
    serve(api.regenerateBotApiKey, (params, { actor }) => regenerateBotApiKey(peopleDeps, actor, params.bot_id)),
    serve(api.getOrganization, async () => {
      const org = await accounts.organization.get('organization');
      return { value: { exists: org !== undefined, name: org?.name ?? null } };
    }),
    serve(api.getOwnUser, async (_params, { actor }) => {
      const user = await directory.userById(actor.user_id);
      if (!user) throw badRequest('Authentication required');
      return { value: userProfile(user) };
    }),
    serve(api.registerState, async (params, { actor }) => {
      const stateDeps = {
        directory,
        accounts,
        userGroups,
        announcements,
        realmSettings,
        userSettings,
        emailVisibilities,
        realmUri: config.realmUri,
        realmHost: config.realmHost,
        uploads: config.uploads,
        apiKeyOf: (user: Parameters<typeof keyFor>[1]) => keyFor(authDeps, user),
      };
      // The position is what POST /register's queue leaves out: events the state already holds.
      const { value, position } = await projector.snapshot(async () => {
        const state = await accountsState(stateDeps, actor.user_id, params);
        const own = await toolsState(toolsModel, actor.user_id, params, { hasMeetingToken: videoCalls?.needsUserToken === false });
        if (wantsState(params, 'realm_domains')) Object.assign(own, { realm_domains: await realmDomainsModel.domains() });
        // Every setting: the user's changes over Zulip's defaults.
        const user_settings = state.user_settings && { ...state.user_settings, ...(await toolsModel.userDataOf(actor.user_id)).settings };
        const linkifiers = await linkifiersState(linkifiersModel, params);
        const navigationViews = await navigationViewsState(navigationViewsModel, actor.user_id, params);
        const devices = await devicesState(devicesModel, actor.user_id, params);
        const userDefaults = await realmUserDefaultsState(realmUserDefaultsModel, params);
        const realm_emoji = wantsState(params, 'realm_emoji') ? { realm_emoji: await realmEmojiState(realmEmojiBook) } : {};
        const people = await realmUsersMembers(stateDeps, actor.user_id, params, wantsState(params, 'realm_user') ? await org.allValues() : new Map());
        const sections = await withOrgState(
          { ...state, ...own, ...linkifiers, ...navigationViews, ...devices, ...userDefaults, ...realm_emoji, ...(user_settings ? { user_settings } : {}) },
          { org, realmSettings },
          params,
        );
        return { sections, people };
      });
      // The users' list goes already serialized (realmUsersMembers), after the other members.
      return { value: { state: value.sections }, position, ...(value.people === undefined ? {} : { json: value.people }) };
    }),
    serve(api.addRealmEmoji, async (params, { actor }) => ({ value: {}, position: await addRealmEmoji(emojiDeps, actor, params.emoji_name, params.file) })),
    serve(api.getRealmEmoji, async () => ({ value: { emoji: await realmEmojiState(realmEmojiBook) } })),
    serve(api.deleteRealmEmoji, async (params, { actor }) => ({ value: {}, position: await deactivateRealmEmoji(emojiDeps, actor, params.emoji_name) })),
    serve(api.setNewChannelAnnouncementsChannel, async (params) => {
      const { append } = await organization.execute(streams.organization, (state) => ({ facts: decideAnnouncementsChannel(state, params.channel_id), result: undefined }));
      return { value: {}, position: positionOf(append) };
    }),
    serve(api.createUserGroup, async (params, { actor }) => {
      const { group_id, position } = await createUserGroup(groupDeps, actor, params);
      return { value: { group_id }, position };
    }),
    serve(api.updateUserGroup, async (params, { actor }) => ({ value: {}, position: await updateUserGroup(groupDeps, actor, params) })),
    serve(api.updateUserGroupMembers, async (params, { actor }) => ({ value: {}, position: await updateMembers(groupDeps, actor, params) })),
    serve(api.updateUserGroupSubgroups, async (params, { actor }) => ({ value: {}, position: await updateSubgroups(groupDeps, actor, params) })),
    serve(api.deactivateUserGroup, async (params, { actor }) => ({
      value: {},
      position: await deactivateUserGroup(groupDeps, actor, params.group_id),
    })),
    serve(api.listUserGroups, async (params) => ({
      value: { user_groups: userGroupObjects(await directory.allUsers(), await userGroups.snapshot(), params.include_deactivated_groups === true) },
    })),
    serve(api.getUserGroupMembers, async (params) => ({
      value: { members: groupMembers(await directory.allUsers(), await userGroups.snapshot(), params.group_id, params.direct_member_only === true) },
    })),
    serve(api.getUserGroupSubgroups, async (params) => ({
      value: { subgroups: groupSubgroups(await userGroups.snapshot(), params.group_id, params.direct_subgroup_only === true) },
    })),
    serve(api.getIsUserGroupMember, async (params) => {
      const user = await directory.userById(params.user_id);
      if (!user) throw badRequest('No such user');
      const members = groupMembers(await directory.allUsers(), await userGroups.snapshot(), params.group_id, params.direct_member_only === true);
      return { value: { is_user_group_member: members.includes(user._id) } };
    }),
    serve(api.getDrafts, async (_params, { actor }) => ({ value: await getDrafts(toolsModel, actor.user_id) })),
    serve(api.createDrafts, async (params, { actor }) => {
      const { ids, position } = await tools.createDrafts(toolsDeps, actor, params.drafts);
      return { value: { ids }, position };
    }),
    serve(api.editDraft, async (params, { actor }) => ({ value: {}, position: await tools.editDraft(toolsDeps, actor, params.draft_id, params.draft) })),
    serve(api.deleteDraft, async (params, { actor }) => ({ value: {}, position: await tools.deleteDraft(toolsDeps, actor, params.draft_id) })),
    serve(api.updateSettings, (params, { actor, session }) => updateSettings(settingsDeps, actor, params, session)),
    serve(api.confirmEmailChange, (params) => confirmEmailChange(settingsDeps, params.confirmation_key)),
    serve(api.getSavedSnippets, async (_params, { actor }) => ({ value: await getSavedSnippets(toolsModel, actor.user_id) })),
    serve(api.createSavedSnippet, async (params, { actor }) => {
      const { saved_snippet_id, position } = await tools.createSavedSnippet(toolsDeps, actor, params.title, params.content);
      return { value: { saved_snippet_id }, position };
    }),
    serve(api.editSavedSnippet, async (params, { actor }) => ({ value: {}, position: await tools.editSavedSnippet(toolsDeps, actor, params) })),
    serve(api.deleteSavedSnippet, async (params, { actor }) => ({
      value: {},
      position: await tools.deleteSavedSnippet(toolsDeps, actor, params.saved_snippet_id),
    })),
    serve(api.getAlertWords, async (_params, { actor }) => ({ value: { alert_words: [...(await toolsModel.userDataOf(actor.user_id)).alert_words] } })),
    serve(api.addAlertWords, async (params, { actor }) => {
      const { alert_words, position } = await tools.changeAlertWords(toolsDeps, actor, params.alert_words, 'add');
      return { value: { alert_words }, position };
    }),
    serve(api.removeAlertWords, async (params, { actor }) => {
      const { alert_words, position } = await tools.changeAlertWords(toolsDeps, actor, params.alert_words, 'remove');
      return { value: { alert_words }, position };
    }),
    serve(api.updateBotStorage, async (params, { actor }) => ({ value: {}, position: await tools.updateBotStorage(toolsDeps, actor, params.storage) })),
    serve(api.getBotStorage, async (params, { actor }) => ({ value: await getBotStorage(toolsModel, actor, params.keys) })),
    serve(api.removeBotStorage, async (params, { actor }) => ({ value: {}, position: await tools.removeBotStorage(toolsDeps, actor, params.keys) })),
    serve(api.addPlayground, async (params, { actor }) => {
      const { id, position } = await tools.addPlayground(toolsDeps, actor, params);
      return { value: { id }, position };
    }),
    serve(api.removePlayground, async (params, { actor }) => ({ value: {}, position: await tools.removePlayground(toolsDeps, actor, params.playground_id) })),
    serve(api.sendInvites, async (params, { actor }) => {
      const { email_delivery, position } = await invites.sendInvites(inviteDeps, actor, params);
      return { value: email_delivery ? { email_delivery } : {}, position };
    }),
    serve(api.listInvites, async (_params, { actor }) => ({ value: { invites: await invites.listInvites(inviteDeps, actor) } })),
    serve(api.revokeInvite, async (params, { actor }) => ({ value: {}, position: await invites.revokeInvite(inviteDeps, actor, params.invite_id, false) })),
    serve(api.resendInvite, async (params, { actor }) => {
      const { email_delivery, position } = await invites.resendInvite(inviteDeps, actor, params.invite_id);
      return { value: { email_delivery }, position };
    }),
    serve(api.mailOutbox, async (params) => ({ value: { mails: await mailOutbox.list(params) } })),
    serve(api.createMultiuseInvite, async (params, { actor }) => {
      const { invite_link, position } = await invites.createMultiuseInvite(inviteDeps, actor, { ...params, stream_ids: params.stream_ids ?? [] });
      return { value: { invite_link }, position };
    }),
    serve(api.revokeMultiuseInvite, async (params, { actor }) => ({ value: {}, position: await invites.revokeInvite(inviteDeps, actor, params.invite_id, true) })),
    serve(api.invitationStatus, async (params) => ({ value: await invites.statusOfKey(inviteDeps, params.key) })),
    serve(api.acceptInvitation, (params) => invites.acceptInvitation(inviteDeps, params)),
    serve(api.listRealmDomains, async () => ({ value: { domains: await realmDomainsModel.domains() } })),
    serve(api.addRealmDomain, async (params, { actor }) => {
      const { new_domain, position } = await invites.addRealmDomain(inviteDeps, actor, params);
      return { value: { new_domain }, position };
    }),
    serve(api.changeRealmDomain, async (params, { actor }) => ({ value: {}, position: await invites.changeRealmDomain(inviteDeps, actor, params) })),
    serve(api.removeRealmDomain, async (params, { actor }) => {
      const removed = await invites.removeRealmDomain(inviteDeps, actor, params.domain);
      let position = removed.position;
      // Removing the last domain lifts the restriction (a no-op when it is not set).
      if (removed.last) position = (await updateRealm(orgCommandDeps, actor, { emails_restricted_to_domains: false })) ?? position;
      return { value: {}, position };
    }),
    serve(api.createVideoCall, async () => ({ value: await createVideoCall(videoCalls) })),
    ...realmUserDefaultsEndpoints(serve, realmUserDefaultsDeps),
    ...avatarEndpoints(serve, {
      directory,
      realmSettings,
      avatars: new AggregateRepository(store, { initial: initialAvatar, evolve: evolveAvatar }),
      maxAvatarFileSizeMib: config.uploads.maxAvatarFileSizeMib,
    }),
    ...deviceEndpoints(serve, { devices: new AggregateRepository(store, { initial: initialDevices, evolve: evolveDevices }), model: devicesModel }),
    ...pushTokenEndpoints(serve, new AggregateRepository(store, { initial: initialPushTokens, evolve: evolvePushTokens })),
    ...navigationViewEndpoints(serve, {
      navigationViews: new AggregateRepository(store, { initial: initialNavigationViews, evolve: evolveNavigationViews }),
      model: navigationViewsModel,
    }),
    ...linkifierEndpoints(serve, {
      directory,
      linkifiers: new AggregateRepository(store, { initial: initialLinkifiers, evolve: evolveLinkifiers }),
      model: linkifiersModel,
    }),
    ...orgEndpoints(serve, { ...orgCommandDeps, org }),
    ...passwordLinkEndpoints(serve, { organization, realmName: async () => (await realmSettings.current()).name || ((await accounts.organization.get('organization'))?.name ?? ''), mail: mailOutbox, config, log }),
    serve(api.serverSettings, async (params) => {
      const org = await accounts.organization.get('organization');
      const settings = await realmSettings.current();
      const input = { realmUri: config.realmUri, settings, fallbackName: org?.name ?? '', dev: config.mode === 'development', jwt: config.jwtSecret !== undefined };
      return { value: serverSettings({ ...input, userAgent: params.user_agent }) };
    }),
  ]);

  const stopSweep = webSessions.sweepPeriodically(sessionDeps, log);

  return {
    async stop() {
      stopSweep();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await mailOutbox.stop();
      await projector.stop();
    },
  };
}
