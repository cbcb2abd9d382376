/**
 * Invitations: by email (POST /invites) or as a reusable link (POST /invites/multiuse),
 * each with a role and channels to join, and the pending ones listed (GET /invites, again
 * on every invites_changed event) with a way to revoke each.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminApi, ROLES, roleName, roleOf, type AdminRights, type Invitation } from '../channel-api';
import type { ClientStore } from '../store';
import { moreAdminApi } from './admin-api';
import { Outcome, RowDone, RowError, useAction, useRowActions } from './kit';

const EXPIRY: { minutes: number | null; label: string }[] = [
  { minutes: 24 * 60, label: '1 day' },
  { minutes: 10 * 24 * 60, label: '10 days' },
  { minutes: 30 * 24 * 60, label: '30 days' },
  { minutes: null, label: 'Never' },
];

const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The channels a person can pick for others to join: all they know of, not archived. */
export function knownChannels(store: ClientStore): { stream_id: number; name: string; is_archived?: boolean }[] {
  const byId = new Map<number, { stream_id: number; name: string; is_archived?: boolean }>();
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) for (const c of (store.state[key] ?? []) as { stream_id: number; name: string; is_archived?: boolean }[]) if (!c.is_archived) byId.set(c.stream_id, c);
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function AdminInvites({ store, rights }: { store: ClientStore; rights: AdminRights }) {
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState(400);
  const [expiry, setExpiry] = useState(1);
  const [channels, setChannels] = useState<Set<number>>(() => new Set(((store.state.realm_default_streams ?? []) as number[]).filter((id) => typeof id === 'number')));
  const [link, setLink] = useState('');
  const [invites, setInvites] = useState<Invitation[] | undefined>();
  const send = useAction();
  const list = useAction();
  const rows = useRowActions();
  const own = roleOf(store);

  const load = () => void list.run(async () => setInvites((await adminApi.invites()).invites), 'The invitations could not be listed');
  useEffect(() => {
    load();
    return store.onEvent((event) => {
      if (event.type === 'invites_changed') load();
    });
  }, [store]);

  const minutes = EXPIRY[expiry]!.minutes;
  const chosen = [...channels];
  const byEmail = async () => {
    const ok = await send.run(() => adminApi.invite(emails, role, chosen, minutes), 'No invitation sent', 'Invitations sent.');
    if (ok) setEmails('');
  };
  const byLink = async () => {
    setLink('');
    await send.run(async () => setLink((await adminApi.inviteLink(role, chosen, minutes)).invite_link), 'No link created', 'Link created: anyone with it may join until it expires or is revoked.');
  };
  const toggle = (id: number, on: boolean) => {
    const next = new Set(channels);
    if (on) next.add(id);
    else next.delete(id);
    setChannels(next);
  };

  return (
    <div>
      <h3 id="invite-heading">Invite people</h3>
      <form
        class="admin-form"
        aria-labelledby="invite-heading"
        onSubmit={(e) => {
          e.preventDefault();
          if (rights.invite) void byEmail();
        }}
      >
        {rights.invite && (
          <label class="field">
            <span>Email addresses (separated by commas or new lines)</span>
            <textarea rows={3} value={emails} aria-describedby="invite-outcome" onInput={(e) => setEmails(e.currentTarget.value)} />
          </label>
        )}
        <label class="field inline">
          <span>Join as</span>
          <select value={role} onChange={(e) => setRole(Number(e.currentTarget.value))}>
            {ROLES.filter((r) => r.value >= own).map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <label class="field inline">
          <span>Expires after</span>
          <select value={expiry} onChange={(e) => setExpiry(Number(e.currentTarget.value))}>
            {EXPIRY.map((x, i) => (
              <option key={x.label} value={i}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Channels to join</legend>
          {knownChannels(store).map((c) => (
            <label key={c.stream_id} class="check">
              <input type="checkbox" checked={channels.has(c.stream_id)} onChange={(e) => toggle(c.stream_id, e.currentTarget.checked)} /> #{c.name}
            </label>
          ))}
        </fieldset>
        <div class="actions-row">
          {rights.invite && (
            <button type="submit" disabled={send.busy || emails.trim() === ''}>
              Send invitations
            </button>
          )}
          {rights.inviteLink && (
            <button type="button" disabled={send.busy} onClick={() => void byLink()}>
              Create invitation link
            </button>
          )}
        </div>
        <Outcome action={send} id="invite-outcome" />
        {link && (
          <label class="field">
            <span>Invitation link</span>
            <input type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
          </label>
        )}
      </form>

      <h3 id="pending-heading">Pending invitations</h3>
      <Outcome action={list} />
      {invites && invites.length === 0 && <p class="muted">No invitation is pending.</p>}
      {invites && invites.length > 0 && (
        <ul class="admin-list" aria-labelledby="pending-heading">
          {invites.map((invite) => {
            const who = invite.is_multiuse ? `Reusable link ${invite.id}` : (invite.email ?? `Invitation ${invite.id}`);
            const key = `${invite.is_multiuse ? 'l' : 'e'}${invite.id}`;
            return (
              <li key={key} class="invite">
                <div class="info">
                  <strong>{who}</strong>
                  <p class="muted">
                    As {roleName(invite.invited_as).toLowerCase()}, by {store.userName(invite.invited_by_user_id)}; {invite.expiry_date === null ? (
                      'never expires'
                    ) : (
                      <>
                        expires <time dateTime={new Date(invite.expiry_date * 1000).toISOString()}>{dateFormat.format(new Date(invite.expiry_date * 1000))}</time>
                      </>
                    )}
                    {invite.stream_ids.length > 0 && `; joins ${invite.stream_ids.map((id) => `#${store.channel(id)?.name ?? id}`).join(', ')}`}
                  </p>
                  <RowError text={rows.errorOf(key)} />
                  <RowDone text={rows.doneOf(key)} />
                </div>
                {!invite.is_multiuse && (
                  <button type="button" disabled={rows.busy === key} aria-label={`Resend the invitation: ${who}`} onClick={() => void rows.run(key, () => moreAdminApi.resendInvite(invite.id), 'Not sent again', `Sent again to ${who}.`)}>
                    Resend
                  </button>
                )}
                <button type="button" class="danger-button" disabled={rows.busy === key} aria-label={`Revoke the invitation: ${who}`} onClick={() => void rows.run(key, () => adminApi.revoke(invite), 'Not revoked').then((ok) => ok && load())}>
                  Revoke
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
