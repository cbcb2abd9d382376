/**
 * What an administrator edits of another person below their row in the users section:
 * their custom profile field values (PATCH /users/{id} with profile_data; administrators
 * set every field, even one people may not edit themselves), and, for owners, their
 * address (PATCH /users/{id} with new_email). The address needs a server-level
 * permission the registration does not tell (Zulip's can_change_user_emails, given by the
 * operator's tool), so every owner is offered the form and the server decides; its
 * refusal is said under the form, what was typed kept.
 */
import { useState } from 'preact/hooks';
import { ProfileFieldsForm } from '../profile-settings';
import type { ClientStore } from '../store';
import { moreAdminApi } from './admin-api';
import { Outcome, useAction } from './kit';

interface Target {
  user_id: number;
  full_name: string;
  email: string;
}

export function UserProfileEditor({ store, person, onClose }: { store: ClientStore; person: Target; onClose: () => void }) {
  return (
    <div class="inline-edit user-profile-edit">
      <ProfileFieldsForm
        store={store}
        userId={person.user_id}
        idPrefix={`user-${person.user_id}-fields`}
        label={`Profile fields of ${person.full_name}`}
        whose={`of ${person.full_name}`}
        submitLabel="Save profile fields"
        allEditable
        send={(data) => moreAdminApi.setProfileData(person.user_id, data)}
      />
      <div class="actions-row">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}

export function UserEmailEditor({ person, onClose }: { person: Target; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const change = useAction();
  const outcomeId = `user-${person.user_id}-email-outcome`;
  return (
    <form
      class="admin-form inline-edit"
      aria-label={`Change the email of ${person.full_name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (await change.run(() => moreAdminApi.setEmail(person.user_id, email.trim()), `The email of ${person.full_name} was not changed`)) onClose();
      }}
    >
      <label class="field">
        <span>New email of {person.full_name}</span>
        <input type="email" value={email} autoComplete="off" aria-describedby={outcomeId} onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <p class="muted">They log in with the new address from then on. Changing addresses needs a permission that the server’s operator gives to owners.</p>
      <div class="actions-row">
        <button type="submit" disabled={change.busy || email.trim() === ''}>
          Change email
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      <Outcome action={change} id={outcomeId} />
    </form>
  );
}
