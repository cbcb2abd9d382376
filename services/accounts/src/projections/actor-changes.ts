/**
 * What the gateways must forget at once: the facts that change who a credential names,
 * published as accounts.actor_changed (see the gateway's credentials cache).
 */
import type { ActorChanged } from '@teamchat/contracts';
import type { AppendObserver, FactHandlers } from '@teamchat/platform';

/**
 * The facts that change who a user is to the gateway, which caches it: each is published
 * as ActorChanged. A new role or name changes the cached actor; a deactivation, a new
 * address or a regenerated key must stop the old credential at once.
 */
export const ACTOR_CHANGES = new Set([
  'UserDeactivated',
  'UserReactivated',
  'UserRoleChanged',
  'UserFullNameChanged',
  'UserEmailChanged',
  'BotApiKeyRegenerated',
  'UserApiKeyRegenerated',
  // A logout, and a new password (which ends the user's other web sessions).
  'SessionEnded',
  'UserPasswordSet',
]);

/**
 * Published twice. When this service appends such a fact, at once, before the command's
 * reply: the bus carries one publisher's messages in order, so every gateway has the
 * notice before the acknowledgement can reach anyone (in the embedded mode the reply may
 * leave before the projector runs, which is why the projector's notice alone came too
 * late). And when the projector applies it, for facts appended elsewhere (another
 * instance, an operator tool); a second notice for one fact only forgets again.
 */
export function actorChanges(publish: (changed: ActorChanged) => void): FactHandlers {
  const changed = (fact: { user_id: number }, stored: { position: number }) => publish({ user_id: fact.user_id, position: stored.position });
  return Object.fromEntries([...ACTOR_CHANGES].map((type) => [type, changed]));
}

export function actorChangesAppended(publish: (changed: ActorChanged) => void): AppendObserver {
  return (_stream, facts, result) => {
    facts.forEach((fact, i) => {
      if (!ACTOR_CHANGES.has(fact.type)) return;
      const { user_id } = fact.data as { user_id: number };
      try {
        publish({ user_id, position: result.positions[i]! });
      } catch {
        // The bus is closing: the fact is stored and its command succeeded. The gateways'
        // entries expire, and the projector publishes again once it applies the fact.
      }
    });
  };
}
