/**
 * Users: each person's role (PATCH /users/{id}), deactivation (DELETE /users/{id}) and
 * reactivation (POST /users/{id}/reactivate). The role list offers "Owner" only to owners,
 * as Zulip's; the server still decides (an administrator changing an owner's role is
 * refused, and the refusal is said on that person's row).
 */
import { useState } from 'preact/hooks';
import { adminApi, ROLES, roleOf, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { RowError, useRowActions } from './kit';

const SHOWN = 100;

interface Person {
  user_id: number;
  full_name: string;
  email: string;
  role?: number;
  is_active?: boolean;
  is_bot?: boolean;
}

export function AdminUsers({ store, rights }: { store: ClientStore; rights: AdminRights }) {
  const [filter, setFilter] = useState('');
  const rows = useRowActions();
  const wanted = filter.trim().toLowerCase();
  // The system bots (notification, welcome) are outside the organization: nothing here applies to them.
  const systemBots = new Set(((store.state.cross_realm_bots ?? []) as Person[]).map((u) => u.user_id));
  const everyone = ([...store.users.values()] as Person[]).filter((u) => !systemBots.has(u.user_id));
  const matching = everyone
    .filter((u) => !wanted || u.full_name.toLowerCase().includes(wanted) || u.email.toLowerCase().includes(wanted))
    .sort((a, b) => Number(b.is_active !== false) - Number(a.is_active !== false) || a.full_name.localeCompare(b.full_name));
  const own = roleOf(store);
  return (
    <div>
      <h3 id="users-heading">Users</h3>
      <label class="field">
        <span>Filter users</span>
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="Name or email" />
      </label>
      <ul class="admin-list" aria-labelledby="users-heading">
        {matching.slice(0, SHOWN).map((u) => {
          const active = u.is_active !== false;
          const key = String(u.user_id);
          const role = u.role ?? 400;
          return (
            <li key={u.user_id} class={`user-row${active ? '' : ' deactivated'}`} data-user-id={u.user_id}>
              <div class="info">
                <strong>{u.full_name}</strong>
                {u.user_id === store.self && <span class="muted"> (you)</span>}
                <p class="muted">
                  {u.email}
                  {u.is_bot ? ' · bot' : ''}
                  {active ? '' : ' · deactivated'}
                </p>
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
        })}
      </ul>
      {matching.length > SHOWN && <p class="muted">and {matching.length - SHOWN} more: filter to find them.</p>}
      {matching.length === 0 && <p class="muted">Nobody matches “{filter}”.</p>}
    </div>
  );
}
