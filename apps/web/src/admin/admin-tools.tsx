/**
 * Code playgrounds (POST/DELETE /realm/playgrounds): listed from the registration (kept by
 * realm_playgrounds events), added by a form, removed from its row. (Linkifiers are in
 * admin-linkifiers.tsx.)
 */
import { useState } from 'preact/hooks';
import { adminApi } from '../channel-api';
import type { ClientStore } from '../store';
import { RowError, SubmitRow, useAction, useRowActions } from './kit';

interface Playground {
  id: number;
  name: string;
  pygments_language?: string;
  lexer_language?: string;
  url_template: string;
}

export function AdminPlaygrounds({ store }: { store: ClientStore }) {
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('');
  const [template, setTemplate] = useState('');
  const add = useAction();
  const rows = useRowActions();
  const playgrounds = (store.state.realm_playgrounds ?? []) as Playground[];
  return (
    <div>
      <h3 id="playground-add-heading">Add a code playground</h3>
      <p class="muted">Code blocks in the language get a link that opens them in the playground.</p>
      <form
        class="admin-form"
        aria-labelledby="playground-add-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await add.run(() => adminApi.addPlayground(name, language, template), 'Playground not added', 'Playground added.')) {
            setName('');
            setLanguage('');
            setTemplate('');
          }
        }}
      >
        <label class="field">
          <span>Playground name</span>
          <input type="text" value={name} aria-describedby="playground-outcome" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Language (as code blocks name it)</span>
          <input type="text" value={language} placeholder="python" onInput={(e) => setLanguage(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>URL template</span>
          <input type="text" value={template} placeholder="https://play.example.com/?code={code}" onInput={(e) => setTemplate(e.currentTarget.value)} />
        </label>
        <SubmitRow label="Add playground" action={add} disabled={!name || !language || !template} outcomeId="playground-outcome" />
      </form>
      <h3 id="playground-list-heading">Code playgrounds</h3>
      {playgrounds.length === 0 && <p class="muted">No playgrounds yet.</p>}
      <ul class="admin-list" aria-labelledby="playground-list-heading">
        {playgrounds.map((p) => (
          <li key={p.id}>
            <div class="info">
              <strong>{p.name}</strong> <span class="muted">({p.lexer_language ?? p.pygments_language})</span> <code>{p.url_template}</code>
              <RowError text={rows.errorOf(String(p.id))} />
            </div>
            <button type="button" class="danger-button" disabled={rows.busy === String(p.id)} aria-label={`Remove playground ${p.name}`} onClick={() => void rows.run(String(p.id), () => adminApi.removePlayground(p.id), 'Not removed')}>
              Remove
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
