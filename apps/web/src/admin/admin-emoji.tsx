/**
 * Custom emoji: the organization's (register's realm_emoji, kept by its events), an upload
 * form (POST /realm/emoji/{name}, multipart) and deactivation (DELETE) for administrators
 * and for the person who added one, as Zulip allows.
 */
import { useState } from 'preact/hooks';
import { adminApi, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { RowError, SubmitRow, useAction, useRowActions } from './kit';

interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
  author_id?: number | null;
}

export function AdminEmoji({ store, rights }: { store: ClientStore; rights: AdminRights }) {
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | undefined>();
  const [inputKey, setInputKey] = useState(0);
  const upload = useAction();
  const rows = useRowActions();
  const emoji = Object.values((store.state.realm_emoji ?? {}) as Record<string, RealmEmoji>)
    .filter((e) => !e.deactivated)
    .sort((a, b) => a.name.localeCompare(b.name));
  const submit = async () => {
    if (!file) return;
    const ok = await upload.run(() => adminApi.addEmoji(name.trim(), file), `:${name.trim()}: was not added`, `:${name.trim()}: added.`);
    if (ok) {
      setName('');
      setFile(undefined);
      setInputKey(inputKey + 1);
    }
  };
  return (
    <div>
      <h3 id="emoji-add-heading">Add a custom emoji</h3>
      <form
        class="admin-form"
        aria-labelledby="emoji-add-heading"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label class="field">
          <span>Emoji name (letters, digits, dashes and underscores)</span>
          <input type="text" value={name} aria-describedby="emoji-outcome" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Image file</span>
          <input key={inputKey} type="file" accept="image/png,image/gif,image/jpeg,image/webp" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
        </label>
        <SubmitRow label="Upload emoji" action={upload} disabled={!file || name.trim() === ''} outcomeId="emoji-outcome" />
      </form>
      <h3 id="emoji-list-heading">The organization’s emoji</h3>
      {emoji.length === 0 && <p class="muted">No custom emoji yet.</p>}
      <ul class="admin-list" aria-labelledby="emoji-list-heading">
        {emoji.map((e) => (
          <li key={e.id} class="emoji-row">
            <div class="info">
              <img class="emoji-preview" src={e.source_url} alt="" /> <strong>:{e.name}:</strong>
              {e.author_id ? <span class="muted"> added by {store.userName(e.author_id)}</span> : null}
              <RowError text={rows.errorOf(e.id)} />
            </div>
            {(rights.organization || e.author_id === store.self) && (
              <button type="button" class="danger-button" disabled={rows.busy === e.id} aria-label={`Remove :${e.name}:`} onClick={() => void rows.run(e.id, () => adminApi.removeEmoji(e.name), `:${e.name}: was not removed`)}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
