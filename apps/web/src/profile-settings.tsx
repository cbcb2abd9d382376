/**
 * One's own values of the organization's custom profile fields, in the settings' Profile
 * section: one input per field by its type, saved together (PATCH /users/me/profile_data;
 * an emptied field is removed, as Zulip's null). Fields the organization does not let
 * people edit are shown read-only. A refusal is said under the form and what was typed
 * stays; the saved values come back as realm_user events, as on every page of the person.
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

export function ProfileFieldsSetting({ store }: { store: ClientStore }) {
  const fields = ((store.state.custom_profile_fields ?? []) as ProfileField[]).slice().sort((a, b) => a.order - b.order || a.id - b.id);
  const own = (store.users.get(store.self) as { profile_data?: Record<string, { value: unknown }> } | undefined)?.profile_data ?? {};
  const current = (id: number) => {
    const value = own[String(id)]?.value;
    return typeof value === 'string' ? value : '';
  };
  const [values, setValues] = useState<Record<number, string>>({});
  const [state, setState] = useState<{ busy: boolean; error: string; saved: boolean }>({ busy: false, error: '', saved: false });
  if (fields.length === 0) return null;
  const admin = (store.state.is_admin as boolean | undefined) === true;
  const editable = fields.filter((f) => f.editable_by_user !== false || admin);
  const valueOf = (f: ProfileField) => values[f.id] ?? current(f.id);
  const save = async () => {
    const changed = editable.filter((f) => values[f.id] !== undefined && values[f.id] !== current(f.id));
    if (changed.length === 0) return;
    setState({ busy: true, error: '', saved: false });
    try {
      await moreAdminApi.setOwnProfileData(changed.map((f) => ({ id: f.id, value: wireValue(f.type, values[f.id]!) })));
      setState({ busy: false, error: '', saved: true });
    } catch (e) {
      setState({ busy: false, error: `Not saved: ${describeError(e)}`, saved: false });
    }
  };
  const set = (id: number, value: string) => setValues((all) => ({ ...all, [id]: value }));
  return (
    <form
      class="settings-field profile-fields"
      aria-label="Profile fields"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {fields.map((f) => {
        const id = `settings-field-${f.id}`;
        const readOnly = !editable.includes(f);
        const common = { id, disabled: readOnly, 'aria-describedby': 'settings-fields-outcome' };
        return (
          <div key={f.id} class="profile-field">
            <label for={id}>{f.name}</label>
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
              <PeoplePicker store={store} id={id} label={f.name} ids={idsOf(valueOf(f))} disabled={readOnly} onChange={(ids) => set(f.id, JSON.stringify(ids))} />
            ) : (
              <input {...common} type={(f.type === 4 ? 'date' : f.type === 5 ? 'url' : 'text') as 'text'} value={valueOf(f)} placeholder={f.hint || undefined} onInput={(e) => set(f.id, e.currentTarget.value)} />
            )}
            {f.hint && f.type !== 1 && <p class="muted">{f.hint}</p>}
            {readOnly && <p class="muted">Only administrators change this field.</p>}
          </div>
        );
      })}
      <button type="submit" disabled={state.busy || editable.length === 0}>
        Save profile fields
      </button>
      <p id="settings-fields-outcome" class={`field-outcome${state.error ? ' error' : ''}`} role={state.error ? 'alert' : 'status'}>
        {state.error || (state.saved ? 'Saved.' : '')}
      </p>
    </form>
  );
}
