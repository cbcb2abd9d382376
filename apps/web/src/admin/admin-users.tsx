/**
 * Users: each person's role and full name (PATCH /users/{id}), a bot's owner (PATCH
 * /bots/{id}), deactivation (DELETE /users/{id}) and reactivation (POST
 * /users/{id}/reactivate), one row each (admin-user-row.tsx). The server still decides (an
 * administrator changing an owner's role is refused, said on that person's row).
 */
import { useState } from 'preact/hooks';
import { roleOf, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { UserRow, type Person } from './admin-user-row';
import { useRowActions } from './kit';

const SHOWN = 100;

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
  // Who may own a bot: the organization's active people (not bots).
  const owners = everyone.filter((u) => !u.is_bot && u.is_active !== false).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <div>
      <h3 id="users-heading">Users</h3>
      <label class="field">
        <span>Filter users</span>
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="Name or email" />
      </label>
      <ul class="admin-list" aria-labelledby="users-heading">
        {matching.slice(0, SHOWN).map((u) => (
          <UserRow key={u.user_id} store={store} rights={rights} rows={rows} person={u} owners={owners} own={own} />
        ))}
      </ul>
      {matching.length > SHOWN && <p class="muted">and {matching.length - SHOWN} more: filter to find them.</p>}
      {matching.length === 0 && <p class="muted">Nobody matches “{filter}”.</p>}
    </div>
  );
}
