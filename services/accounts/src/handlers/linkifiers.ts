/**
 * Linkifiers' command handlers and bus endpoints: who hears of a change (the active
 * users) is looked up first, then each command decides on the `realm_linkifiers` stream.
 */
import { linkifiersEndpoints as api, streams, wantsState, type AccountsState, type Actor, type Fact, type StateParams } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import {
  decideAddLinkifier,
  decideRemoveLinkifier,
  decideReorderLinkifiers,
  decideUpdateLinkifier,
  type LinkifierInput,
  type LinkifiersState,
} from '../domain/linkifiers';
import type { LinkifiersReadModel } from '../projections/linkifiers';

type Serve = ReturnType<typeof contractServer>;

export interface LinkifierDeps {
  directory: Pick<Directory, 'activeUsers'>;
  linkifiers: AggregateRepository<LinkifiersState>;
  model: LinkifiersReadModel;
}

async function change<R>(deps: LinkifierDeps, decide: (state: LinkifiersState) => { facts: Fact[]; result: R }) {
  const { result, append } = await deps.linkifiers.execute(streams.linkifiers, decide);
  return { result, position: append?.positions.at(-1) };
}

export function addLinkifier(deps: LinkifierDeps, actor: Actor, input: LinkifierInput) {
  return change(deps, (state) => {
    const { facts, id } = decideAddLinkifier(state, { actor, ...input });
    return { facts, result: id };
  });
}

/** Register's sections: the list, and the same list as the tuples clients before Zulip 4.0 read. */
export async function linkifiersState(model: LinkifiersReadModel, params: StateParams): Promise<Pick<AccountsState, 'realm_linkifiers' | 'realm_filters'>> {
  const want = (type: string) => wantsState(params, type);
  if (!want('realm_linkifiers') && !want('realm_filters')) return {};
  const linkifiers = await model.linkifiers();
  return {
    ...(want('realm_linkifiers') ? { realm_linkifiers: linkifiers } : {}),
    ...(want('realm_filters') ? { realm_filters: linkifiers.map((l): [string, string, number] => [l.pattern, l.url_template, l.id]) } : {}),
  };
}

export function linkifierEndpoints(serve: Serve, deps: LinkifierDeps): Promise<BusSubscription>[] {
  return [
    serve(api.getLinkifiers, async () => ({ value: { linkifiers: await deps.model.linkifiers() } })),
    serve(api.addLinkifier, async (params, { actor }) => {
      const { result: id, position } = await addLinkifier(deps, actor, params);
      return { value: { id }, position };
    }),
    serve(api.updateLinkifier, async ({ filter_id, ...input }, { actor }) => {
      const { position } = await change(deps, (state) => ({
        facts: decideUpdateLinkifier(state, { actor, linkifier_id: filter_id, ...input }),
        result: undefined,
      }));
      return { value: {}, position };
    }),
    serve(api.removeLinkifier, async ({ filter_id }, { actor }) => {
      const { position } = await change(deps, (state) => ({
        facts: decideRemoveLinkifier(state, { actor, linkifier_id: filter_id }),
        result: undefined,
      }));
      return { value: {}, position };
    }),
    serve(api.reorderLinkifiers, async ({ ordered_linkifier_ids }, { actor }) => {
      const { position } = await change(deps, (state) => ({
        facts: decideReorderLinkifiers(state, { actor, ordered_linkifier_ids }),
        result: undefined,
      }));
      return { value: {}, position };
    }),
  ];
}
