/**
 * Values of the organization's custom profile fields: one's own in the settings' Profile
 * section (PATCH /users/me/profile_data), and anyone's from an administrator's users
 * section (PATCH /users/{id} with profile_data). One input per field by its type, saved
 * together; an emptied field is removed, as Zulip's null. For one's own, fields the
 * organization does not let people edit are shown read-only (administrators edit every
 * field). A refusal is said under the form and what was typed stays; the saved values
 * come back as realm_user events, as on every page of the person.
 */
import { useState } from 'preact/hooks';
import { describeError } from './api';
import { choicesOf, moreAdminApi, type ProfileField } from './admin/admin-api';
import { PeoplePicker } from './people-picker';
import type { ClientStore } from './store';

const USERS = 6;

/** A users field's value (a JSON list of ids, as stored) as ids. */
function idsOf(value: string): number[] {
  try {
    const ids = JSON.parse(value || '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
  } catch {
    return [];
  }
}

/** What is sent for a field: null for an emptied one (removed), ids for a users field. */
function wireValue(type: number, text: string): string | number[] | null {
  if (type === USERS) {
    const ids = idsOf(text);
    return ids.length === 0 ? null : ids;
  }
  return text.trim() === '' ? null : text.trim();
}

type ProfileDataItem = { id: number; value: string | number[] | null };

interface FormProps {
  store: ClientStore;
  /** Whose values. */
  userId: number;
  /** Prefix of the inputs' ids and of the outcome's (unique on the page). */
  idPrefix: string;
  /** The form's accessible name. */
  label: string;
  /** Added (not shown) to each field's name in its label, when the page may hold more than one such form. */
  whose?: string;
  submitLabel: string;
  /** Every field editable (an administrator editing someone), else those people may edit. */
  allEditable: boolean;
  send: (data: ProfileDataItem[]) => Promise<unknown>;
}

export function ProfileFieldsForm({ store, userId, idPrefix, label, whose = '', submitLabel, allEditable, send }: FormProps) {
  const fields = ((store.state.custom_profile_fields ?? []) as ProfileField[]).slice().sort((a, b) => a.order - b.order || a.id - b.id);
  const saved = (store.users.get(userId) as { profile_data?: Record<string, { value: unknown }> } | undefined)?.profile_data ?? {};
  const current = (id: number) => {
    const value = saved[String(id)]?.value;
    return typeof value === 'string' ? value : '';
  };
  const [values, setValues] = useState<Record<number, string>>({});
  const [state, setState] = useState<{ busy: boolean; error: string; saved: boolean }>({ busy: false, error: '', saved: false });
  if (fields.length === 0) return null;
  const editable = fields.filter((f) => allEditable || f.editable_by_user !== false);
  const outcomeId = `${idPrefix}-outcome`;
  const valueOf = (f: ProfileField) => values[f.id] ?? current(f.id);
  const save = async () => {
    const changed = editable.filter((f) => values[f.id] !== undefined && values[f.id] !== current(f.id));
    if (changed.length === 0) return;
    setState({ busy: true, error: '', saved: false });
    try {
      await send(changed.map((f) => ({ id: f.id, value: wireValue(f.type, values[f.id]!) })));
      setState({ busy: false, error: '', saved: true });
    } catch (e) {
      setState({ busy: false, error: `Not saved: ${describeError(e)}`, saved: false });
    }
  };
  const set = (id: number, value: string) => setValues((all) => ({ ...all, [id]: value }));
  return (
    <form
      class="settings-field profile-fields"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {fields.map((f) => {
        const id = `${idPrefix}-${f.id}`;
        const readOnly = !editable.includes(f);
        const common = { id, disabled: readOnly, 'aria-describedby': outcomeId };
        return (
          <div key={f.id} class="profile-field">
            <label for={id}>
              {f.name}
              {whose && <span class="visually-hidden"> {whose}</span>}
            </label>
            {f.type === 2 ? (
              <textarea {...common} rows={2} value={valueOf(f)} onInput={(e) => set(f.id, e.currentTarget.value)} />
            ) : f.type === 3 ? (
              <select {...common} value={valueOf(f)} onChange={(e) => set(f.id, e.currentTarget.value)}>
                <option value="">Not set</option>
                {choicesOf(f).map((c) => (
                  <option key={c.key} value={c.key}>
                    {c.text}
                  </option>
                ))}
              </select>
            ) : f.type === USERS ? (
              <PeoplePicker store={store} id={id} label={whose ? `${f.name} ${whose}` : f.name} ids={idsOf(valueOf(f))} disabled={readOnly} describedBy={outcomeId} onChange={(ids) => set(f.id, JSON.stringify(ids))} />
            ) : (
              <input {...common} type={(f.type === 4 ? 'date' : f.type === 5 ? 'url' : 'text') as 'text'} value={valueOf(f)} placeholder={f.hint || undefined} onInput={(e) => set(f.id, e.currentTarget.value)} />
            )}
            {f.hint && f.type !== 1 && <p class="muted">{f.hint}</p>}
            {readOnly && <p class="muted">Only administrators change this field.</p>}
          </div>
        );
      })}
      <button type="submit" disabled={state.busy || editable.length === 0}>
        {submitLabel}
        {whose && <span class="visually-hidden"> {whose}</span>}
      </button>
      <p id={outcomeId} class={`field-outcome${state.error ? ' error' : ''}`} role={state.error ? 'alert' : 'status'}>
        {state.error || (state.saved ? 'Saved.' : '')}
      </p>
    </form>
  );
}

/** One's own values, in the settings. */
export function ProfileFieldsSetting({ store }: { store: ClientStore }) {
  const admin = (store.state.is_admin as boolean | undefined) === true;
  return <ProfileFieldsForm store={store} userId={store.self} idPrefix="settings-fields" label="Profile fields" submitLabel="Save profile fields" allEditable={admin} send={moreAdminApi.setOwnProfileData} />;
}
