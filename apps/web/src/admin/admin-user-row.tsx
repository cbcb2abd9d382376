/**
 * One person's row of the users section: their role (the list offers "Owner" only to
 * owners, as Zulip's), their full name (a form opened by "Rename"), their profile field
 * values and (owners) their email (admin-user-edits.tsx), a bot's owner, and
 * deactivation or reactivation. Each control shows only where the role may use it; the
 * server still decides, and its refusal is said on the row, the typed name kept.
 */
import { useState } from 'preact/hooks';
import { adminApi, ROLES, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { moreAdminApi } from './admin-api';
import { UserEmailEditor, UserProfileEditor } from './admin-user-edits';
import { Outcome, RowError, useAction, useRowActions } from './kit';

export interface Person {
  user_id: number;
  full_name: string;
  email: string;
  role?: number;
  is_active?: boolean;
  is_bot?: boolean;
  bot_owner_id?: number | null;
}

interface RowProps {
  store: ClientStore;
  rights: AdminRights;
  rows: ReturnType<typeof useRowActions>;
  person: Person;
  owners: Person[];
  own: number;
}

export function UserRow({ store, rights, rows, person: u, owners, own }: RowProps) {
  const [renaming, setRenaming] = useState(false);
  const [editingFields, setEditingFields] = useState(false);
  const [editingEmail, setEditingEmail] = useState(false);
  const [name, setName] = useState(u.full_name);
  const rename = useAction();
  const active = u.is_active !== false;
  const key = String(u.user_id);
  const role = u.role ?? 400;
  const nameOutcome = `user-${u.user_id}-name-outcome`;
  const hasFields = ((store.state.custom_profile_fields ?? []) as unknown[]).length > 0;
  return (
    <li class={`user-row${active ? '' : ' deactivated'}`} data-user-id={u.user_id}>
      <div class="info">
        <strong>{u.full_name}</strong>
        {u.user_id === store.self && <span class="muted"> (you)</span>}
        <p class="muted">
          {u.email}
          {u.is_bot ? ' · bot' : ''}
          {active ? '' : ' · deactivated'}
        </p>
        {renaming && (
          <form
            class="admin-form inline-edit"
            aria-label={`Rename ${u.full_name}`}
            onSubmit={async (e) => {
              e.preventDefault();
              if (await rename.run(() => moreAdminApi.setFullName(u.user_id, name.trim()), `${u.full_name} was not renamed`)) setRenaming(false);
            }}
          >
            <label class="field">
              <span>Full name of {u.full_name}</span>
              <input type="text" value={name} aria-describedby={nameOutcome} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <div class="actions-row">
              <button type="submit" disabled={rename.busy}>
                Save name
              </button>
              <button type="button" onClick={() => setRenaming(false)}>
                Cancel
              </button>
            </div>
            <Outcome action={rename} id={nameOutcome} />
          </form>
        )}
        {editingFields && <UserProfileEditor store={store} person={u} onClose={() => setEditingFields(false)} />}
        {editingEmail && <UserEmailEditor person={u} onClose={() => setEditingEmail(false)} />}
        <RowError text={rows.errorOf(key)} />
      </div>
      <div class="controls">
        {rights.users && !u.is_bot && active && (
          <label>
            <span class="visually-hidden">Role of {u.full_name}</span>
            <select value={role} disabled={rows.busy === key} onChange={(e) => void rows.run(key, () => adminApi.setRole(u.user_id, Number(e.currentTarget.value)), `${u.full_name}’s role was not changed`)}>
              {ROLES.filter((r) => own === 100 || r.value !== 100 || r.value === role).map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
        )}
        {rights.users && u.is_bot && active && (
          <label>
            <span class="visually-hidden">Owner of {u.full_name}</span>
            <select value={u.bot_owner_id ?? ''} disabled={rows.busy === key} onChange={(e) => void rows.run(key, () => moreAdminApi.setBotOwner(u.user_id, Number(e.currentTarget.value)), `${u.full_name}’s owner was not changed`)}>
              {(u.bot_owner_id === null || u.bot_owner_id === undefined) && <option value="">No owner</option>}
              {/* An owner no longer active is still shown as the owner, not silently replaced by the first name. */}
              {typeof u.bot_owner_id === 'number' && !owners.some((o) => o.user_id === u.bot_owner_id) && <option value={u.bot_owner_id}>{store.userName(u.bot_owner_id)}</option>}
              {owners.map((o) => (
                <option key={o.user_id} value={o.user_id}>
                  {o.full_name}
                </option>
              ))}
            </select>
          </label>
        )}
        {rights.users && active && !renaming && (
          <button
            type="button"
            aria-label={`Rename ${u.full_name}`}
            onClick={() => {
              setName(u.full_name);
              rename.clear();
              setRenaming(true);
            }}
          >
            Rename
          </button>
        )}
        {rights.users && active && !u.is_bot && hasFields && !editingFields && (
          <button type="button" aria-label={`Profile fields of ${u.full_name}`} onClick={() => setEditingFields(true)}>
            Profile fields
          </button>
        )}
        {rights.owner && active && !u.is_bot && !editingEmail && (
          <button type="button" aria-label={`Change email of ${u.full_name}`} onClick={() => setEditingEmail(true)}>
            Change email
          </button>
        )}
        {rights.users && u.user_id !== store.self && (
          <button
            type="button"
            class={active ? 'danger-button' : undefined}
            disabled={rows.busy === key}
            aria-label={`${active ? 'Deactivate' : 'Reactivate'} ${u.full_name}`}
            onClick={() => void rows.run(key, () => (active ? adminApi.deactivate(u.user_id) : adminApi.reactivate(u.user_id)), `${u.full_name} was not ${active ? 'deactivated' : 'reactivated'}`)}
          >
            {active ? 'Deactivate' : 'Reactivate'}
          </button>
        )}
      </div>
    </li>
  );
}
