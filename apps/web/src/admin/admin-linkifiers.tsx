/**
 * Linkifiers: listed from the registration in the organization's order (kept by
 * realm_linkifiers events), added by a form (POST /realm/filters), each edited in its row
 * (PATCH /realm/filters/{id}), moved up or down (PATCH /realm/linkifiers with the whole
 * order, as Zulip's) and removed. A refused edit keeps what was typed, its refusal beside it.
 */
import { useState } from 'preact/hooks';
import { adminApi } from '../channel-api';
import type { ClientStore } from '../store';
import { moreAdminApi, moved } from './admin-api';
import { Outcome, RowError, SubmitRow, useAction, useRowActions } from './kit';

interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

type Rows = ReturnType<typeof useRowActions>;

export function AdminLinkifiers({ store }: { store: ClientStore }) {
  const [pattern, setPattern] = useState('');
  const [template, setTemplate] = useState('');
  const add = useAction();
  const rows = useRowActions();
  const linkifiers = (store.state.realm_linkifiers ?? []) as Linkifier[];
  const ids = linkifiers.map((l) => l.id);
  return (
    <div>
      <h3 id="linkifier-add-heading">Add a linkifier</h3>
      <p class="muted">Text matching the pattern becomes a link, as “#123” to an issue tracker. The first pattern that matches wins: order them below.</p>
      <form
        class="admin-form"
        aria-labelledby="linkifier-add-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await add.run(() => adminApi.addLinkifier(pattern, template), 'Linkifier not added', 'Linkifier added.')) {
            setPattern('');
            setTemplate('');
          }
        }}
      >
        <label class="field">
          <span>Pattern (a regular expression, with named groups)</span>
          <input type="text" value={pattern} placeholder="#(?P<id>[0-9]+)" aria-describedby="linkifier-outcome" onInput={(e) => setPattern(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>URL template</span>
          <input type="text" value={template} placeholder="https://tracker.example.com/issues/{id}" onInput={(e) => setTemplate(e.currentTarget.value)} />
        </label>
        <SubmitRow label="Add linkifier" action={add} disabled={!pattern || !template} outcomeId="linkifier-outcome" />
      </form>
      <h3 id="linkifier-list-heading">Linkifiers</h3>
      {linkifiers.length === 0 && <p class="muted">No linkifiers yet.</p>}
      <ol class="admin-list" aria-labelledby="linkifier-list-heading">
        {linkifiers.map((l, index) => (
          <LinkifierRow key={l.id} linkifier={l} index={index} ids={ids} rows={rows} />
        ))}
      </ol>
    </div>
  );
}

function LinkifierRow({ linkifier: l, index, ids, rows }: { linkifier: Linkifier; index: number; ids: number[]; rows: Rows }) {
  const [editing, setEditing] = useState(false);
  const [pattern, setPattern] = useState(l.pattern);
  const [template, setTemplate] = useState(l.url_template);
  const save = useAction();
  const key = String(l.id);
  const move = (step: -1 | 1) => void rows.run(key, () => moreAdminApi.reorderLinkifiers(moved(ids, index, step)), 'Not moved');
  const outcomeId = `linkifier-${l.id}-outcome`;
  return (
    <li class="linkifier-row" data-linkifier-id={l.id}>
      <div class="info">
        {editing ? (
          <form
            class="admin-form inline-edit"
            aria-label={`Edit linkifier ${l.pattern}`}
            onSubmit={async (e) => {
              e.preventDefault();
              if (await save.run(() => moreAdminApi.updateLinkifier(l.id, pattern, template), 'Linkifier not saved')) setEditing(false);
            }}
          >
            <label class="field">
              <span>Pattern of linkifier {index + 1}</span>
              <input type="text" value={pattern} aria-describedby={outcomeId} onInput={(e) => setPattern(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>URL template of linkifier {index + 1}</span>
              <input type="text" value={template} aria-describedby={outcomeId} onInput={(e) => setTemplate(e.currentTarget.value)} />
            </label>
            <div class="actions-row">
              <button type="submit" disabled={save.busy || !pattern || !template}>
                Save
              </button>
              <button
                type="button"
                onClick={() => {
                  setEditing(false);
                  save.clear();
                }}
              >
                Cancel
              </button>
            </div>
            <Outcome action={save} id={outcomeId} />
          </form>
        ) : (
          <>
            <code>{l.pattern}</code> → <code>{l.url_template}</code>
          </>
        )}
        <RowError text={rows.errorOf(key)} />
      </div>
      <div class="controls">
        <button type="button" disabled={rows.busy !== undefined || index === 0} aria-label={`Move linkifier ${l.pattern} up`} onClick={() => move(-1)}>
          ↑
        </button>
        <button type="button" disabled={rows.busy !== undefined || index === ids.length - 1} aria-label={`Move linkifier ${l.pattern} down`} onClick={() => move(1)}>
          ↓
        </button>
        {!editing && (
          <button
            type="button"
            aria-label={`Edit linkifier ${l.pattern}`}
            onClick={() => {
              setPattern(l.pattern);
              setTemplate(l.url_template);
              setEditing(true);
            }}
          >
            Edit
          </button>
        )}
        <button type="button" class="danger-button" disabled={rows.busy === key} aria-label={`Remove linkifier ${l.pattern}`} onClick={() => void rows.run(key, () => adminApi.removeLinkifier(l.id), 'Not removed')}>
          Remove
        </button>
      </div>
    </li>
  );
}
