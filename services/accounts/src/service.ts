/**
 * The accounts service: organization, users, API keys and the key-exchange endpoints.
 * Wires its projections and bus endpoints; the decisions live in domain/.
 */
import {
  ACTOR_CHANGED_SUBJECT,
  DevFetchApiKeyParams,
  JwtFetchApiKeyParams,
  NoParams,
  queueGroups,
  subjects,
  UserIdPathParams,
  ZULIP_FEATURE_LEVEL,
  ZULIP_VERSION,
  badRequest,
  type ActorChanged,
} from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import {
  AggregateRepository,
  combineHandlers,
  Projector,
  serveEndpoint,
  type AppendResult,
  type FactHandlers,
  type BusSubscription,
  type RunningService,
  type ServiceDeps,
} from '@teamchat/platform';
import { z } from 'zod';
import { evolveOrganization, initialOrganization } from './domain/organization';
import { createOrganization, createUser, setUserActive } from './handlers/commands';
import { AccountsReadModel } from './projections/credentials';
import { authenticate, devFetchApiKey, jwtFetchApiKey, keyFor } from './queries/authentication';
import { userProfile } from './queries/profile';

const AuthenticateParams = z.object({ email: z.string(), api_key: z.string(), client: z.string() });
const CreateOrganizationParams = z.object({ name: z.string(), owner_email: z.string(), owner_full_name: z.string() });
const CreateUserParams = z.object({
  email: z.string(),
  full_name: z.string(),
  role: z.number().int(),
  is_bot: z.boolean().optional(),
  bot_type: z.number().int().nullable().optional(),
  bot_owner_id: z.number().int().nullable().optional(),
});

/** The facts that change who a user is to the gateway, which caches it: each is published as ActorChanged. */
function actorChanges(publish: (changed: ActorChanged) => void): FactHandlers {
  const changed = (fact: { user_id: number }, stored: { position: number }) => publish({ user_id: fact.user_id, position: stored.position });
  return { UserDeactivated: changed, UserReactivated: changed };
}

export async function startAccountsService(deps: ServiceDeps): Promise<RunningService> {
  const { bus, log, config, store, readModels } = deps;
  const directory = new Directory(readModels);
  const accounts = new AccountsReadModel(readModels);
  const projector = new Projector({
    name: 'accounts',
    store,
    readModels,
    log,
    handlers: combineHandlers(
      directory.handlers,
      accounts.handlers,
      actorChanges((changed) => bus.publish(ACTOR_CHANGED_SUBJECT, changed)),
    ),
  });
  await projector.start();

  const organization = new AggregateRepository(store, { initial: initialOrganization, evolve: evolveOrganization });
  const commandDeps = { organization, config };
  const authDeps = { directory, accounts, config };
  const options = { queueGroup: queueGroups.accounts, log };

  /** After a write, answer only once our own read models show it. */
  const written = async (append: AppendResult | undefined) => {
    const position = append?.positions.at(-1);
    await projector.waitFor(position);
    return position;
  };

  const subscriptions: BusSubscription[] = await Promise.all([
    serveEndpoint(bus, subjects.accounts.authenticate, AuthenticateParams, async ({ params, after }) => {
      await projector.waitFor(after);
      // The position the answer holds for, so that the gateway can cache it (ActorChanged).
      const position = projector.checkpoint;
      return { value: { actor: await authenticate(authDeps, params.email, params.api_key, params.client) }, position };
    }, options),
    serveEndpoint(bus, subjects.accounts.devFetchApiKey, DevFetchApiKeyParams, async ({ params }) => ({
      value: await devFetchApiKey(authDeps, params.username),
    }), options),
    serveEndpoint(bus, subjects.accounts.jwtFetchApiKey, JwtFetchApiKeyParams, async ({ params }) => ({
      value: await jwtFetchApiKey(authDeps, params.token, params.include_profile ?? false),
    }), options),
    serveEndpoint(bus, subjects.accounts.createOrganization, CreateOrganizationParams, async ({ params, actor }) => {
      if (actor) throw badRequest('Organizations are created with the command-line tool');
      const position = await written(await createOrganization(commandDeps, params));
      const owner = await directory.userByEmail(params.owner_email);
      if (!owner) throw new Error('owner missing after organization creation');
      // The command-line tool prints this key: the operator's only way in.
      return { value: { user_id: owner._id, email: owner.email, api_key: await keyFor(authDeps, owner) }, position };
    }, options),
    serveEndpoint(bus, subjects.accounts.createUser, CreateUserParams, async ({ params, actor }) => {
      const { user_id, append } = await createUser(commandDeps, actor, params);
      return { value: { user_id }, position: await written(append) };
    }, options),
    serveEndpoint(bus, subjects.accounts.deactivateUser, UserIdPathParams, async ({ params, actor }) => {
      if (!actor) throw badRequest('Authentication required');
      return { value: {}, position: await written(await setUserActive(commandDeps, actor, params.user_id, false)) };
    }, options),
    serveEndpoint(bus, subjects.accounts.reactivateUser, UserIdPathParams, async ({ params, actor }) => {
      if (!actor) throw badRequest('Authentication required');
      return { value: {}, position: await written(await setUserActive(commandDeps, actor, params.user_id, true)) };
    }, options),
    serveEndpoint(bus, subjects.accounts.getOrganization, NoParams, async ({ after }) => {
      await projector.waitFor(after);
      const org = await accounts.organization.get('organization');
      return { value: { exists: org !== undefined, name: org?.name ?? null } };
    }, options),
    serveEndpoint(bus, subjects.accounts.getOwnUser, NoParams, async ({ actor, after }) => {
      await projector.waitFor(after);
      const user = actor && (await directory.userById(actor.user_id));
      if (!user) throw badRequest('Authentication required');
      return { value: userProfile(user) };
    }, options),
    serveEndpoint(bus, subjects.accounts.serverSettings, NoParams, async () => {
      const org = await accounts.organization.get('organization');
      return {
        value: {
          authentication_methods: { password: false, dev: config.mode === 'development', jwt: config.jwtSecret !== undefined },
          zulip_feature_level: ZULIP_FEATURE_LEVEL,
          zulip_version: ZULIP_VERSION,
          push_notifications_enabled: false,
          realm_uri: config.realmUri,
          realm_url: config.realmUri,
          realm_name: org?.name ?? '',
          require_email_format_usernames: true,
          email_auth_enabled: false,
        },
      };
    }, options),
  ]);

  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await projector.stop();
    },
  };
}
