/**
 * Channels: create one (POST /users/me/subscriptions with its description and privacy),
 * and for each channel rename it and change its description (PATCH /streams/{id}),
 * archive it (DELETE /streams/{id}), and subscribe others (principals). Each control is
 * there only for those whose role allows it; each refusal is said on its row.
 */
import { useState } from 'preact/hooks';
import { channelApi, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { knownChannels } from './admin-invites';
import { Outcome, SubmitRow, useAction } from './kit';

export function AdminChannels({ store, rights }: { store: ClientStore; rights: AdminRights }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPrivate, setPrivate] = useState(false);
  const create = useAction();
  const submit = async () => {
    const ok = await create.run(() => channelApi.create(name.trim(), description.trim(), isPrivate), `#${name.trim()} was not created`, `#${name.trim()} created.`);
    if (ok) {
      setName('');
      setDescription('');
    }
  };
  const channels = knownChannels(store);
  return (
    <div>
      {rights.createChannel && (
        <>
          <h3 id="create-channel-heading">Create a channel</h3>
          <form
            class="admin-form"
            aria-labelledby="create-channel-heading"
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <label class="field">
              <span>Channel name</span>
              <input type="text" value={name} aria-describedby="create-channel-outcome" onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>Description</span>
              <input type="text" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            </label>
            <label class="check">
              <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.currentTarget.checked)} /> Private: only subscribers see it
            </label>
            <SubmitRow label="Create channel" action={create} disabled={name.trim() === ''} outcomeId="create-channel-outcome" />
          </form>
        </>
      )}
      {(rights.manageChannels || rights.subscribeOthers) && (
        <>
          <h3 id="manage-channels-heading">Channels</h3>
          <ul class="admin-list" aria-labelledby="manage-channels-heading">
            {channels.map((c) => (
              <ChannelRow key={c.stream_id} store={store} rights={rights} channel={c} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function ChannelRow({ store, rights, channel }: { store: ClientStore; rights: AdminRights; channel: { stream_id: number; name: string; description?: string } }) {
  const [name, setName] = useState(channel.name);
  const [description, setDescription] = useState(channel.description ?? '');
  const [person, setPerson] = useState('');
  const save = useAction();
  const archive = useAction();
  const subscribe = useAction();
  const people = [...store.users.values()].filter((u) => u.is_active !== false && !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const id = channel.stream_id;
  return (
    <li class="channel-admin">
      <details>
        <summary>
          <strong>#{channel.name}</strong> <span class="muted">{channel.description}</span>
        </summary>
        {rights.manageChannels && (
          <form
            class="admin-form"
            aria-label={`Rename or describe #${channel.name}`}
            onSubmit={(e) => {
              e.preventDefault();
              const change = { ...(name.trim() !== channel.name ? { new_name: name.trim() } : {}), ...(description !== (channel.description ?? '') ? { description } : {}) };
              if (Object.keys(change).length > 0) void save.run(() => channelApi.update(id, change), 'Not saved', 'Saved.');
            }}
          >
            <label class="field">
              <span>Name of #{channel.name}</span>
              <input type="text" value={name} aria-describedby={`channel-${id}-save`} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>Description of #{channel.name}</span>
              <input type="text" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            </label>
            <div class="actions-row">
              <button type="submit" disabled={save.busy}>
                Save #{channel.name}
              </button>
              <button type="button" class="danger-button" disabled={archive.busy} onClick={() => void archive.run(() => channelApi.archive(id), `#${channel.name} was not archived`, `#${channel.name} archived.`)}>
                Archive #{channel.name}
              </button>
            </div>
            <Outcome action={save} id={`channel-${id}-save`} />
            <Outcome action={archive} />
          </form>
        )}
        {rights.subscribeOthers && (
          <form
            class="admin-form"
            aria-label={`Subscribe someone to #${channel.name}`}
            onSubmit={(e) => {
              e.preventDefault();
              const userId = Number(person);
              if (userId) void subscribe.run(() => channelApi.subscribeOthers(channel.name, [userId]), 'Not subscribed', `${store.userName(userId)} is subscribed to #${channel.name}.`);
            }}
          >
            <label class="field inline">
              <span>Subscribe to #{channel.name}</span>
              <select value={person} onChange={(e) => setPerson(e.currentTarget.value)}>
                <option value="">Choose a person…</option>
                {people.map((u) => (
                  <option key={u.user_id} value={u.user_id}>
                    {u.full_name}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={subscribe.busy || person === ''}>
                Subscribe
              </button>
            </label>
            <Outcome action={subscribe} />
          </form>
        )}
      </details>
    </li>
  );
}
