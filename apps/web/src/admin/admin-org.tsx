/**
 * The organization's settings the API exposes (PATCH /realm): its name and description,
 * a few policies (invitations required, sign-ups restricted to allowed domains, message
 * editing, who may invite, create channels and add emoji), and the allowed email domains
 * (POST/PATCH/DELETE /realm/domains). Values come from the registration and its realm
 * events; a refusal is said beside the control.
 */
import { useState } from 'preact/hooks';
import { adminApi, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { RowError, SubmitRow, useAction, useRowActions } from './kit';

/** `ownerOnly`: the server lets only owners change it; administrators are not offered it. */
const GROUP_POLICIES: { setting: string; label: string; ownerOnly?: boolean }[] = [
  { setting: 'can_invite_users_group', label: 'Who may invite people', ownerOnly: true },
  { setting: 'can_create_public_channel_group', label: 'Who may create public channels' },
  { setting: 'can_add_custom_emoji_group', label: 'Who may add custom emoji' },
];

const SYSTEM_CHOICES: { name: string; label: string }[] = [
  { name: 'role:administrators', label: 'Administrators' },
  { name: 'role:moderators', label: 'Moderators and administrators' },
  { name: 'role:members', label: 'Members, moderators and administrators' },
  { name: 'role:everyone', label: 'Everyone, guests too' },
];

const FLAGS: { setting: string; label: string; ownerOnly?: boolean }[] = [
  { setting: 'invite_required', label: 'Joining needs an invitation', ownerOnly: true },
  { setting: 'emails_restricted_to_domains', label: 'Only addresses in the allowed domains may join', ownerOnly: true },
  { setting: 'allow_message_editing', label: 'People may edit their messages' },
];

export function AdminOrganization({ store, rights }: { store: ClientStore; rights: AdminRights }) {
  const s = store.state;
  const [name, setName] = useState(String(s.realm_name ?? ''));
  const [description, setDescription] = useState(String(s.realm_description ?? ''));
  const profile = useAction();
  const policies = useRowActions();
  const groups = (s.realm_user_groups ?? []) as { id: number; name: string; is_system_group?: boolean }[];
  const choices = SYSTEM_CHOICES.map((c) => ({ ...c, id: groups.find((g) => g.name === c.name)?.id })).filter((c): c is typeof c & { id: number } => c.id !== undefined);
  return (
    <div>
      {rights.organization && (
        <>
          <h3 id="org-profile-heading">Profile</h3>
          <form
            class="admin-form"
            aria-labelledby="org-profile-heading"
            onSubmit={(e) => {
              e.preventDefault();
              const change = { ...(name !== s.realm_name ? { name } : {}), ...(description !== (s.realm_description ?? '') ? { description } : {}) };
              if (Object.keys(change).length > 0) void profile.run(() => adminApi.updateRealm(change), 'Not saved', 'Saved.');
            }}
          >
            <label class="field">
              <span>Organization name</span>
              <input type="text" value={name} aria-describedby="org-profile-outcome" onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>Organization description</span>
              <textarea rows={3} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            </label>
            <SubmitRow label="Save profile" action={profile} outcomeId="org-profile-outcome" />
          </form>
          <h3 id="org-policies-heading">Policies</h3>
          <div class="admin-form" role="group" aria-labelledby="org-policies-heading">
            {FLAGS.filter((f) => rights.owner || !f.ownerOnly).map(({ setting, label }) => (
              <div key={setting}>
                <label class="check">
                  <input type="checkbox" checked={s[`realm_${setting}`] === true} disabled={policies.busy === setting} onChange={(e) => void policies.run(setting, () => adminApi.updateRealm({ [setting]: e.currentTarget.checked }), 'Not changed')} /> {label}
                </label>
                <RowError text={policies.errorOf(setting)} />
              </div>
            ))}
            {choices.length > 0 &&
              GROUP_POLICIES.filter((p) => rights.owner || !p.ownerOnly).map(({ setting, label }) => {
                const value = s[`realm_${setting}`];
                const current = typeof value === 'number' && choices.some((c) => c.id === value) ? String(value) : 'custom';
                return (
                  <div key={setting}>
                    <label class="field inline">
                      <span>{label}</span>
                      <select value={current} disabled={policies.busy === setting} onChange={(e) => void policies.run(setting, () => adminApi.updateRealm({ [setting]: { new: Number(e.currentTarget.value) } }), 'Not changed')}>
                        {current === 'custom' && <option value="custom">A custom set of people</option>}
                        {choices.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.label}
                          </option>
                        ))}
                      </select>
                    </label>
                    <RowError text={policies.errorOf(setting)} />
                  </div>
                );
              })}
          </div>
        </>
      )}
      {rights.domains && <AllowedDomains store={store} />}
    </div>
  );
}

function AllowedDomains({ store }: { store: ClientStore }) {
  const [domain, setDomain] = useState('');
  const [subdomains, setSubdomains] = useState(false);
  const add = useAction();
  const rows = useRowActions();
  const domains = (store.state.realm_domains ?? []) as { domain: string; allow_subdomains: boolean }[];
  return (
    <>
      <h3 id="domains-heading">Allowed email domains</h3>
      <form
        class="admin-form"
        aria-labelledby="domains-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await add.run(() => adminApi.addDomain(domain.trim(), subdomains), `${domain.trim()} was not added`, `${domain.trim()} added.`)) setDomain('');
        }}
      >
        <label class="field">
          <span>Domain</span>
          <input type="text" value={domain} placeholder="example.com" aria-describedby="domain-outcome" onInput={(e) => setDomain(e.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={subdomains} onChange={(e) => setSubdomains(e.currentTarget.checked)} /> Its subdomains too
        </label>
        <SubmitRow label="Add domain" action={add} disabled={domain.trim() === ''} outcomeId="domain-outcome" />
      </form>
      {domains.length === 0 && <p class="muted">No allowed domains: any address may be invited.</p>}
      <ul class="admin-list" aria-labelledby="domains-heading">
        {domains.map((d) => (
          <li key={d.domain}>
            <div class="info">
              <strong>{d.domain}</strong>
              <RowError text={rows.errorOf(d.domain)} />
            </div>
            <div class="controls">
              <label class="check">
                <input type="checkbox" checked={d.allow_subdomains} disabled={rows.busy === d.domain} onChange={(e) => void rows.run(d.domain, () => adminApi.setDomain(d.domain, e.currentTarget.checked), 'Not changed')} /> Subdomains of {d.domain}
              </label>
              <button type="button" class="danger-button" disabled={rows.busy === d.domain} aria-label={`Remove ${d.domain}`} onClick={() => void rows.run(d.domain, () => adminApi.removeDomain(d.domain), 'Not removed')}>
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
