/**
 * Default channels: the channels new members join (the registration's
 * realm_default_streams, kept by default_streams events), one added from a list of the
 * organization's channels (POST /default_streams) and each removed from its row (DELETE
 * /default_streams). Administrators only, as the server checks; a refusal (a private
 * channel, say) is said beside the control and the choice stays.
 */
import { useState } from 'preact/hooks';
import type { ClientStore } from '../store';
import { moreAdminApi } from './admin-api';
import { knownChannels } from './admin-invites';
import { RowError, SubmitRow, useAction, useRowActions } from './kit';

export function AdminDefaultChannels({ store }: { store: ClientStore }) {
  const defaults = new Set(((store.state.realm_default_streams ?? []) as number[]).filter((id) => typeof id === 'number'));
  const channels = knownChannels(store);
  const candidates = channels.filter((c) => !defaults.has(c.stream_id));
  const [chosen, setChosen] = useState('');
  const add = useAction();
  const rows = useRowActions();
  const listed = [...defaults].map((id) => ({ id, name: store.channel(id)?.name ?? channels.find((c) => c.stream_id === id)?.name ?? `channel ${id}` })).sort((a, b) => a.name.localeCompare(b.name));
  const chosenName = candidates.find((c) => String(c.stream_id) === chosen)?.name;
  return (
    <div>
      <h3 id="default-add-heading">Add a default channel</h3>
      <p class="muted">New members join the default channels, and invitations offer them first.</p>
      <form
        class="admin-form"
        aria-labelledby="default-add-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await add.run(() => moreAdminApi.addDefaultChannel(Number(chosen)), `#${chosenName} was not made a default channel`, `#${chosenName} is now a default channel.`)) setChosen('');
        }}
      >
        <label class="field">
          <span>Channel to add</span>
          <select value={chosen} aria-describedby="default-outcome" onChange={(e) => setChosen(e.currentTarget.value)}>
            <option value="">Choose a channel</option>
            {candidates.map((c) => (
              <option key={c.stream_id} value={String(c.stream_id)}>
                #{c.name}
              </option>
            ))}
          </select>
        </label>
        <SubmitRow label="Add default channel" action={add} disabled={chosenName === undefined} outcomeId="default-outcome" />
      </form>
      <h3 id="default-list-heading">Default channels</h3>
      {listed.length === 0 && <p class="muted">No default channels: new members join none.</p>}
      <ul class="admin-list" aria-labelledby="default-list-heading">
        {listed.map((c) => (
          <li key={c.id} class="default-channel" data-stream-id={c.id}>
            <div class="info">
              <strong>#{c.name}</strong>
              <RowError text={rows.errorOf(String(c.id))} />
            </div>
            <button type="button" class="danger-button" disabled={rows.busy === String(c.id)} aria-label={`Remove #${c.name} from the default channels`} onClick={() => void rows.run(String(c.id), () => moreAdminApi.removeDefaultChannel(c.id), 'Not removed')}>
              Remove
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
