/**
 * Facts as the store may hold them, brought to their current shape. The store keeps every
 * fact as it was written; when a fact's schema grows, facts written before keep their old
 * shape, and this is the one place that knows how each old shape reads today. Readers
 * (projections, the fan-out, aggregates) see only current shapes, through `factOf`.
 *
 * An upcast is cheap and pure: every fact a projector reads passes through here. It also
 * undoes the store's compact encoding of id lists (stored-ids.ts), so readers see lists.
 */
import { defaultChannelGroupSettings } from './channel';
import { CHANNEL_GROUP_SETTINGS } from './channel-settings';
import type { Fact, FactType } from './facts';
import { expandedFactData } from './stored-ids';

type Data = Record<string, unknown> & { type: string };

/** The fact a stored record's data holds, in its current shape. */
export function upcast(data: unknown): Fact {
  if (typeof data !== 'object' || data === null) return data as Fact;
  // Id lists stored as runs (stored-ids.ts) read as the lists they encode.
  const fact = expandedFactData(data as Data);
  const upgrade = upgrades.get(fact.type);
  return (upgrade ? upgrade(fact) : fact) as Fact;
}

const upgrades = new Map<string, (fact: Data) => Data>(Object.entries({
  ChannelCreated: (fact) => {
    // Channels created before group-settings existed hold Zulip's defaults, and before
    // facts carried their audience nobody was told of them.
    // Channels created before folders existed are in none.
    const missing = CHANNEL_GROUP_SETTINGS.filter((name) => fact[name] === undefined);
    if (missing.length === 0 && fact.audience_user_ids !== undefined && fact.folder_id !== undefined) return fact;
    const defaults = defaultChannelGroupSettings((fact.creator_id as number | null | undefined) ?? null);
    const upgraded: Data = { ...fact, audience_user_ids: fact.audience_user_ids ?? [], folder_id: fact.folder_id ?? null };
    for (const name of missing) upgraded[name] = defaults[name];
    return upgraded;
  },
  ChannelUpdated: (fact) => {
    // Changes to the default channels were recorded under the API's name for them.
    const change = fact.change as { property: string; value: unknown };
    return change.property === 'is_default_stream' ? { ...fact, change: { ...change, property: 'is_default' } } : fact;
  },
  MessageFlagsUpdated: (fact) => {
    // Where unread-again messages are was recorded in the API's words (stream, private).
    const details = fact.message_details as Record<string, Record<string, unknown> & { type: string }> | undefined;
    if (!details || !Object.values(details).some((d) => d.type === 'stream' || d.type === 'private')) return fact;
    const upgraded: Record<string, unknown> = {};
    for (const [id, detail] of Object.entries(details)) upgraded[id] = currentMessageDetail(detail);
    return { ...fact, message_details: upgraded };
  },
  MessageEdited: (fact) => {
    // Moves recorded before access could be lost by moving revoked nobody's.
    const move = fact.move as Record<string, unknown> | null;
    if (!move || move.revoked_user_ids !== undefined) return fact;
    return { ...fact, move: { ...move, revoked_user_ids: [] } };
  },
} satisfies { [T in FactType]?: (fact: Data) => Data }));

function currentMessageDetail(detail: Record<string, unknown> & { type: string }): Record<string, unknown> {
  const { type, stream_id, ...rest } = detail;
  if (type === 'stream') return { type: 'channel', channel_id: stream_id, ...rest };
  if (type === 'private') return { type: 'direct', ...rest };
  return detail;
}
