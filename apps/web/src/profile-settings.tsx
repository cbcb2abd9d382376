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
import type { ClientStore } from './store';

/** Users fields (a list of people) are not edited here yet: they are shown, set through the API. */
const EDITABLE_TYPES = new Set([1, 2, 3, 4, 5, 7, 8]);

/** A users field's value (a JSON list of ids) as names. */
function namesOf(store: ClientStore, value: string): string {
  try {
    return (JSON.parse(value || '[]') as number[]).map((id) => store.userName(id)).join(', ');
  } catch {
    return value;
  }
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
  const editable = fields.filter((f) => EDITABLE_TYPES.has(f.type) && (f.editable_by_user !== false || admin));
  const valueOf = (f: ProfileField) => values[f.id] ?? current(f.id);
  const save = async () => {
    const changed = editable.filter((f) => values[f.id] !== undefined && values[f.id] !== current(f.id));
    if (changed.length === 0) return;
    setState({ busy: true, error: '', saved: false });
    try {
      await moreAdminApi.setOwnProfileData(changed.map((f) => ({ id: f.id, value: values[f.id]!.trim() === '' ? null : values[f.id]!.trim() })));
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
            ) : (
              <input {...common} type={(f.type === 4 ? 'date' : f.type === 5 ? 'url' : 'text') as 'text'} value={f.type === 6 ? namesOf(store, current(f.id)) : valueOf(f)} placeholder={f.hint || undefined} onInput={(e) => set(f.id, e.currentTarget.value)} />
            )}
            {f.hint && f.type !== 1 && <p class="muted">{f.hint}</p>}
            {readOnly && <p class="muted">{f.type === 6 ? 'Set through the API for now.' : 'Only administrators change this field.'}</p>}
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
