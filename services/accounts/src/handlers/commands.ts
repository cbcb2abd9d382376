/** Command handlers: load the organization, decide, append. */
import { streams, type Actor, type ServerPermission } from '@teamchat/contracts';
import type { AggregateRepository, ServerConfig } from '@teamchat/platform';
import { newCredentials } from '../domain/credentials';
import { decideServerPermission } from '../domain/people';
import {
  decideCreateOrganization,
  decideCreateUser,
  decideDeactivateUser,
  type NewUser,
  type OrganizationState,
} from '../domain/organization';

export interface CommandDeps {
  organization: AggregateRepository<OrganizationState>;
  config: ServerConfig;
}

export async function createOrganization(deps: CommandDeps, params: { name: string; owner_email: string; owner_full_name: string }) {
  const { append } = await deps.organization.execute(streams.organization, (state) => ({
    facts: decideCreateOrganization(state, {
      name: params.name,
      host: deps.config.realmHost,
      owner: { email: params.owner_email, full_name: params.owner_full_name },
      credentials: newCredentials(deps.config.serverSecret),
      now: Date.now(),
    }),
    result: undefined,
  }));
  return append;
}

export async function createUser(deps: CommandDeps, actor: Actor | undefined, user: NewUser) {
  const { result, append } = await deps.organization.execute(streams.organization, (state) => {
    const facts = decideCreateUser(state, { actor, user, credentials: newCredentials(deps.config.serverSecret), now: Date.now() });
    return { facts, result: facts[0]!.user_id };
  });
  return { user_id: result, append };
}

/** Reactivation needs the user's groups: handlers/people.ts. */
export async function deactivateUser(deps: CommandDeps, actor: Actor, userId: number) {
  const { append } = await deps.organization.execute(streams.organization, (state) => ({
    facts: decideDeactivateUser(state, { actor, user_id: userId }),
    result: undefined,
  }));
  return append;
}

/** The operator's tool: a server-level permission given or taken (see decideServerPermission). */
export async function changeServerPermission(deps: CommandDeps, params: { email: string; permission: ServerPermission; granted: boolean }) {
  const { result, append } = await deps.organization.execute(streams.organization, (state) => {
    const facts = decideServerPermission(state, params);
    return { facts, result: { user_id: state.usersByEmail.get(params.email.trim().toLowerCase())!.user_id, changed: facts.length > 0 } };
  });
  return { value: result, position: append?.positions.at(-1) };
}
