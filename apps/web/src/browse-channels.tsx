/**
 * Every channel the person may join or has left, beside those they are in: the
 * registration's subscriptions, unsubscribed and never_subscribed lists (the server
 * leaves out private channels they may not see), kept current by the reducer. Subscribe
 * and leave act at once; a refusal is said on the channel's row.
 */
import { useState } from 'preact/hooks';
import { describeError } from './api';
import { adminRights, channelApi } from './channel-api';
import { hrefOf } from './links';
import type { ClientStore } from './store';

interface Listed {
  stream_id: number;
  name: string;
  description?: string;
  invite_only?: boolean;
  subscriber_count?: number;
  is_archived?: boolean;
}

export function BrowseChannels({ store }: { store: ClientStore }) {
  const [filter, setFilter] = useState('');
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [busy, setBusy] = useState<number | undefined>();
  const subscribed = new Set(((store.state.subscriptions ?? []) as Listed[]).map((c) => c.stream_id));
  const byId = new Map<number, Listed>();
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) for (const c of (store.state[key] ?? []) as Listed[]) if (!c.is_archived) byId.set(c.stream_id, c);
  const wanted = filter.trim().toLowerCase();
  const channels = [...byId.values()].filter((c) => !wanted || c.name.toLowerCase().includes(wanted) || (c.description ?? '').toLowerCase().includes(wanted)).sort((a, b) => a.name.localeCompare(b.name));

  const act = async (channel: Listed, join: boolean) => {
    setBusy(channel.stream_id);
    setErrors((e) => ({ ...e, [channel.stream_id]: '' }));
    try {
      if (join) await channelApi.subscribe([channel.name]);
      else await channelApi.leave(channel.name);
    } catch (e) {
      setErrors((all) => ({ ...all, [channel.stream_id]: `${join ? 'Not subscribed' : 'Not left'}: ${describeError(e)}` }));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section class="screen browse" aria-labelledby="browse-heading">
      <div class="screen-head">
        <h2 id="browse-heading">All channels</h2>
        {adminRights(store).createChannel && (
          <a class="button-link" href="#admin/channels">
            Create a channel
          </a>
        )}
      </div>
      <label class="field">
        <span>Filter channels</span>
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="Name or description" />
      </label>
      <ul class="channel-list" aria-label="Channels">
        {channels.map((c) => {
          const isIn = subscribed.has(c.stream_id);
          return (
            <li key={c.stream_id} class={`channel-row${isIn ? ' subscribed' : ''}`}>
              <div class="channel-info">
                <a href={hrefOf({ kind: 'channel', streamId: c.stream_id })} class="channel-name">
                  {c.invite_only ? <span aria-label="private">🔒 </span> : null}#{c.name}
                </a>
                {c.description && <p class="muted description">{c.description}</p>}
                {c.subscriber_count !== undefined && (
                  <p class="muted count-note">
                    {c.subscriber_count} {c.subscriber_count === 1 ? 'subscriber' : 'subscribers'}
                    {isIn ? ' · you are subscribed' : ''}
                  </p>
                )}
                {errors[c.stream_id] && (
                  <p class="error" role="alert">
                    {errors[c.stream_id]}
                  </p>
                )}
              </div>
              <button type="button" class={isIn ? 'leave' : 'subscribe'} disabled={busy === c.stream_id} aria-label={`${isIn ? 'Leave' : 'Subscribe to'} #${c.name}`} onClick={() => void act(c, !isIn)}>
                {isIn ? 'Leave' : 'Subscribe'}
              </button>
            </li>
          );
        })}
      </ul>
      {channels.length === 0 && <p class="muted">{wanted ? `No channel matches “${filter}”.` : 'There are no channels you may join.'}</p>}
    </section>
  );
}
