/**
 * Facts as the store may hold them, brought to their current shape. The store keeps every
 * fact as it was written; when a fact's schema grows, facts written before keep their old
 * shape, and this is the one place that knows how each old shape reads today. Readers
 * (projections, the fan-out, aggregates) see only current shapes, through `factOf`.
 *
 * An upcast is cheap and pure: every fact a projector reads passes through here.
 */
import { defaultChannelGroupSettings } from './channel';
import { CHANNEL_GROUP_SETTINGS } from './channel-settings';
import type { Fact } from './facts';

type Data = Record<string, unknown> & { type: string };

/** The fact a stored record's data holds, in its current shape. */
export function upcast(data: unknown): Fact {
  const fact = data as Data;
  const upgrade = upgrades[fact.type];
  return (upgrade ? upgrade(fact) : fact) as Fact;
}

const upgrades: Record<string, (fact: Data) => Data> = {
  ChannelCreated: (fact) => {
    // Channels created before group-settings existed hold Zulip's defaults, and before
    // facts carried their audience nobody was told of them.
    const missing = CHANNEL_GROUP_SETTINGS.filter((name) => fact[name] === undefined);
    if (missing.length === 0 && fact.audience_user_ids !== undefined) return fact;
    const defaults = defaultChannelGroupSettings((fact.creator_id as number | null | undefined) ?? null);
    const upgraded: Data = { ...fact, audience_user_ids: fact.audience_user_ids ?? [] };
    for (const name of missing) upgraded[name] = defaults[name];
    return upgraded;
  },
  MessageEdited: (fact) => {
    // Moves recorded before access could be lost by moving revoked nobody's.
    const move = fact.move as Record<string, unknown> | null;
    if (!move || move.revoked_user_ids !== undefined) return fact;
    return { ...fact, move: { ...move, revoked_user_ids: [] } };
  },
};
