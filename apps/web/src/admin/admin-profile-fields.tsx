/**
 * Custom profile fields: the organization's fields from the registration in their order
 * (custom_profile_fields, kept by its event), one created by a form (POST
 * /realm/profile_fields; an external account is a preset service, named after it, or a
 * custom one with its own name and URL pattern), each edited in its row (PATCH /realm/profile_fields/{id}), moved
 * (PATCH /realm/profile_fields with the whole `order`) and deleted. Administrators only,
 * as the server checks; a refusal is said beside the form that asked and the text stays.
 */
import { useState } from 'preact/hooks';
import type { ClientStore } from '../store';
import { choicesData, choicesOf, FIELD_TYPES, moreAdminApi, moved, type ProfileField } from './admin-api';
import { Outcome, RowError, SubmitRow, useAction, useRowActions } from './kit';

type Rows = ReturnType<typeof useRowActions>;

interface Flags {
  editable_by_user: boolean;
  required: boolean;
  display_in_profile_summary: boolean;
}

const flagsOf = (f?: ProfileField): Flags => ({ editable_by_user: f?.editable_by_user !== false, required: f?.required === true, display_in_profile_summary: f?.display_in_profile_summary === true });

/** The field's three switches; `of` names the field in the labels of a row's form (each label unique on the page). */
function FlagBoxes({ flags, onChange, of = '' }: { flags: Flags; onChange: (next: Flags) => void; of?: string }) {
  const box = (key: keyof Flags, label: string) => (
    <label class="check">
      <input type="checkbox" checked={flags[key]} onChange={(e) => onChange({ ...flags, [key]: e.currentTarget.checked })} /> {label}
      {of}
    </label>
  );
  return (
    <>
      {box('editable_by_user', 'People may edit their own value')}
      {box('required', 'Required')}
      {box('display_in_profile_summary', 'Shown in the profile summary')}
    </>
  );
}

/** The preset external accounts as the registration lists them (realm_default_external_accounts), GitHub and Twitter when it does not. */
function presetAccounts(store: ClientStore): { subtype: string; text: string }[] {
  const listed = Object.entries((store.state.realm_default_external_accounts ?? {}) as Record<string, { text?: string }>).map(([subtype, p]) => ({ subtype, text: p.text ?? subtype }));
  return listed.length > 0 ? listed : [
    { subtype: 'github', text: 'GitHub' },
    { subtype: 'twitter', text: 'Twitter' },
  ];
}

/** A field's type in words; an external account says which (a custom one its URL pattern). */
function typeLabel(store: ClientStore, field: ProfileField): string {
  const label = FIELD_TYPES.find((t) => t.id === field.type)?.label ?? `Type ${field.type}`;
  if (field.type !== 7) return label;
  try {
    const data = JSON.parse(field.field_data || '{}') as { subtype?: string; url_pattern?: string };
    if (data.subtype === 'custom') return `${label}, ${data.url_pattern ?? 'custom'}`;
    return `${label}, ${presetAccounts(store).find((p) => p.subtype === data.subtype)?.text ?? data.subtype}`;
  } catch {
    return label;
  }
}

export const sortedFields = (store: ClientStore) => ((store.state.custom_profile_fields ?? []) as ProfileField[]).slice().sort((a, b) => a.order - b.order || a.id - b.id);

export function AdminProfileFields({ store }: { store: ClientStore }) {
  const [name, setName] = useState('');
  const [type, setType] = useState(1);
  const [hint, setHint] = useState('');
  const [choices, setChoices] = useState('');
  const [subtype, setSubtype] = useState('github');
  const [urlPattern, setUrlPattern] = useState('');
  const [flags, setFlags] = useState<Flags>(flagsOf());
  const add = useAction();
  const rows = useRowActions();
  const fields = sortedFields(store);
  const ids = fields.map((f) => f.id);
  const custom = type === 7 && subtype === 'custom';
  // A preset external account is named after its service (as Zulip's settings do): no name or hint asked.
  const named = type !== 7 || custom;
  const fieldData = () => (type === 3 ? { field_data: choicesData(choices) } : type === 7 ? { field_data: { subtype, ...(custom ? { url_pattern: urlPattern.trim() } : {}) } } : {});
  return (
    <div>
      <h3 id="field-add-heading">Add a profile field</h3>
      <p class="muted">Everyone’s profile shows these fields; people fill them in their settings.</p>
      <form
        class="admin-form"
        aria-labelledby="field-add-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          const texts = named ? { name: name.trim(), hint: hint.trim() } : { name: '', hint: '' };
          if (await add.run(() => moreAdminApi.createProfileField({ field_type: type, ...texts, ...flags, ...fieldData() }), 'Field not added', 'Field added.')) {
            setName('');
            setHint('');
            setChoices('');
            setUrlPattern('');
            setFlags(flagsOf());
          }
        }}
      >
        <label class="field">
          <span>Field type</span>
          <select value={type} onChange={(e) => setType(Number(e.currentTarget.value))}>
            {FIELD_TYPES.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        {type === 7 && (
          <label class="field">
            <span>Service</span>
            <select value={subtype} onChange={(e) => setSubtype(e.currentTarget.value)}>
              {presetAccounts(store).map((p) => (
                <option key={p.subtype} value={p.subtype}>
                  {p.text}
                </option>
              ))}
              <option value="custom">Custom (another site)</option>
            </select>
          </label>
        )}
        {named && (
          <label class="field">
            <span>Field name</span>
            <input type="text" value={name} aria-describedby="field-outcome" onInput={(e) => setName(e.currentTarget.value)} />
          </label>
        )}
        {named && (
          <label class="field">
            <span>Hint (shown to people filling it)</span>
            <input type="text" value={hint} onInput={(e) => setHint(e.currentTarget.value)} />
          </label>
        )}
        {type === 3 && (
          <label class="field">
            <span>Options (one a line)</span>
            <textarea rows={3} value={choices} onInput={(e) => setChoices(e.currentTarget.value)} />
          </label>
        )}
        {custom && (
          <>
            <label class="field">
              <span>URL pattern</span>
              <input type="text" inputMode="url" spellcheck={false} value={urlPattern} placeholder="https://example.com/people/%(username)s" aria-describedby="field-pattern-help field-outcome" onInput={(e) => setUrlPattern(e.currentTarget.value)} />
            </label>
            <p class="muted" id="field-pattern-help">
              The link to a person’s account: %(username)s stands for the username they fill in.
            </p>
          </>
        )}
        <FlagBoxes flags={flags} onChange={setFlags} />
        <SubmitRow label="Add field" action={add} disabled={(named && name.trim() === '') || (custom && urlPattern.trim() === '')} outcomeId="field-outcome" />
      </form>
      <h3 id="field-list-heading">Profile fields</h3>
      {fields.length === 0 && <p class="muted">No profile fields yet.</p>}
      <ol class="admin-list" aria-labelledby="field-list-heading">
        {fields.map((f, index) => (
          <FieldRow key={f.id} field={f} typeText={typeLabel(store, f)} index={index} ids={ids} rows={rows} />
        ))}
      </ol>
    </div>
  );
}

function FieldRow({ field: f, typeText, index, ids, rows }: { field: ProfileField; typeText: string; index: number; ids: number[]; rows: Rows }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(f.name);
  const [hint, setHint] = useState(f.hint);
  const [choices, setChoices] = useState('');
  const [flags, setFlags] = useState<Flags>(flagsOf(f));
  const save = useAction();
  const key = String(f.id);
  const outcomeId = `field-${f.id}-outcome`;
  const move = (step: -1 | 1) => void rows.run(key, () => moreAdminApi.reorderProfileFields(moved(ids, index, step)), 'Not moved');
  const startEditing = () => {
    setName(f.name);
    setHint(f.hint);
    setFlags(flagsOf(f));
    setChoices(
      choicesOf(f)
        .map((c) => c.text)
        .join('\n'),
    );
    save.clear();
    setEditing(true);
  };
  return (
    <li class="field-row" data-field-id={f.id}>
      <div class="info">
        {editing ? (
          <form
            class="admin-form inline-edit"
            aria-label={`Edit the field ${f.name}`}
            onSubmit={async (e) => {
              e.preventDefault();
              const change = { name: name.trim(), hint: hint.trim(), ...flags, ...(f.type === 3 ? { field_data: choicesData(choices) } : {}) };
              if (await save.run(() => moreAdminApi.updateProfileField(f.id, change), 'Field not saved')) setEditing(false);
            }}
          >
            <label class="field">
              <span>Name of the field {f.name}</span>
              <input type="text" value={name} aria-describedby={outcomeId} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>Hint of the field {f.name}</span>
              <input type="text" value={hint} onInput={(e) => setHint(e.currentTarget.value)} />
            </label>
            {f.type === 3 && (
              <label class="field">
                <span>Options of the field {f.name} (one a line)</span>
                <textarea rows={3} value={choices} onInput={(e) => setChoices(e.currentTarget.value)} />
              </label>
            )}
            <FlagBoxes flags={flags} onChange={setFlags} of={` (${f.name})`} />
            <div class="actions-row">
              <button type="submit" disabled={save.busy}>
                Save
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
            <Outcome action={save} id={outcomeId} />
          </form>
        ) : (
          <>
            <strong>{f.name}</strong> <span class="muted">({[typeText, f.required ? 'required' : '', f.editable_by_user === false ? 'set by administrators' : '', f.display_in_profile_summary ? 'in the summary' : ''].filter(Boolean).join(', ')})</span>
            {f.hint && <p class="muted">{f.hint}</p>}
          </>
        )}
        <RowError text={rows.errorOf(key)} />
      </div>
      <div class="controls">
        <button type="button" disabled={rows.busy !== undefined || index === 0} aria-label={`Move the field ${f.name} up`} onClick={() => move(-1)}>
          ↑
        </button>
        <button type="button" disabled={rows.busy !== undefined || index === ids.length - 1} aria-label={`Move the field ${f.name} down`} onClick={() => move(1)}>
          ↓
        </button>
        {!editing && (
          <button type="button" aria-label={`Edit the field ${f.name}`} onClick={startEditing}>
            Edit
          </button>
        )}
        <button type="button" class="danger-button" disabled={rows.busy === key} aria-label={`Delete the field ${f.name}`} onClick={() => void rows.run(key, () => moreAdminApi.deleteProfileField(f.id), 'Not deleted')}>
          Delete
        </button>
      </div>
    </li>
  );
}
