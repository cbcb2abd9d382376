/**
 * The administration screen (`#admin/<section>`): one section at a time, and only the
 * sections the person's role and the organization's permission settings allow, read from
 * the registration and kept current by its events (a role changed by someone else shows
 * or hides sections at once). The server still decides every request.
 */
import { adminRights, type AdminRights } from '../channel-api';
import type { ClientStore } from '../store';
import { AdminChannels } from './admin-channels';
import { AdminEmoji } from './admin-emoji';
import { AdminInvites } from './admin-invites';
import { AdminOrganization } from './admin-org';
import { AdminDefaultChannels } from './admin-default-channels';
import { AdminLinkifiers } from './admin-linkifiers';
import { AdminProfileFields } from './admin-profile-fields';
import { AdminPlaygrounds } from './admin-tools';
import { AdminUsers } from './admin-users';

interface Section {
  key: string;
  label: string;
  allowed: (rights: AdminRights) => boolean;
  view: (store: ClientStore, rights: AdminRights) => preact.JSX.Element;
}

const SECTIONS: Section[] = [
  { key: 'organization', label: 'Organization', allowed: (r) => r.organization || r.domains, view: (store, rights) => <AdminOrganization store={store} rights={rights} /> },
  { key: 'invitations', label: 'Invitations', allowed: (r) => r.invite || r.inviteLink, view: (store, rights) => <AdminInvites store={store} rights={rights} /> },
  { key: 'channels', label: 'Channels', allowed: (r) => r.createChannel || r.manageChannels || r.subscribeOthers, view: (store, rights) => <AdminChannels store={store} rights={rights} /> },
  { key: 'default-channels', label: 'Default channels', allowed: (r) => r.manageChannels, view: (store) => <AdminDefaultChannels store={store} /> },
  { key: 'users', label: 'Users', allowed: (r) => r.users, view: (store, rights) => <AdminUsers store={store} rights={rights} /> },
  { key: 'profile-fields', label: 'Profile fields', allowed: (r) => r.organization, view: (store) => <AdminProfileFields store={store} /> },
  { key: 'emoji', label: 'Custom emoji', allowed: (r) => r.emoji, view: (store, rights) => <AdminEmoji store={store} rights={rights} /> },
  { key: 'linkifiers', label: 'Linkifiers', allowed: (r) => r.linkifiers, view: (store) => <AdminLinkifiers store={store} /> },
  { key: 'playgrounds', label: 'Code playgrounds', allowed: (r) => r.playgrounds, view: (store) => <AdminPlaygrounds store={store} /> },
];

export function AdminScreen({ store, section }: { store: ClientStore; section: string }) {
  const rights = adminRights(store);
  const sections = SECTIONS.filter((s) => s.allowed(rights));
  if (sections.length === 0)
    return (
      <section class="screen admin" aria-labelledby="admin-heading">
        <h2 id="admin-heading">Administration</h2>
        <p>Your role does not allow changing the organization’s settings.</p>
      </section>
    );
  const current = sections.find((s) => s.key === section) ?? sections[0]!;
  return (
    <section class="screen admin" aria-labelledby="admin-heading">
      <h2 id="admin-heading">Administration</h2>
      <nav class="admin-nav" aria-label="Administration sections">
        <ul>
          {sections.map((s) => (
            <li key={s.key}>
              <a href={`#admin/${s.key}`} aria-current={s.key === current.key ? 'page' : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {section !== '' && section !== current.key && <p class="note">That section is not open to your role: here is {current.label.toLowerCase()} instead.</p>}
      <div key={current.key}>{current.view(store, rights)}</div>
    </section>
  );
}
