/**
 * Choosing people for a Users profile field: the chosen ones as removable chips, and a
 * filter that offers the first few active people (not bots) whose name or email matches.
 * Only a handful of matches are rendered, so a 10,000-person organization costs nothing
 * until someone types.
 */
import { useState } from 'preact/hooks';
import type { ClientStore } from './store';

const OFFERED = 6;

interface Person {
  user_id: number;
  full_name: string;
  email: string;
  is_active?: boolean;
  is_bot?: boolean;
}

export function PeoplePicker({
  store,
  id,
  label,
  ids,
  disabled,
  describedBy,
  onChange,
}: {
  store: ClientStore;
  id: string;
  label: string;
  ids: number[];
  disabled: boolean;
  /** The form's outcome, where a refusal of the value is said. */
  describedBy: string;
  onChange: (ids: number[]) => void;
}) {
  const [query, setQuery] = useState('');
  const wanted = query.trim().toLowerCase();
  const offered: Person[] = [];
  if (wanted && !disabled) {
    for (const u of store.users.values() as Iterable<Person>) {
      if (u.is_bot || u.is_active === false || ids.includes(u.user_id)) continue;
      if (!u.full_name.toLowerCase().includes(wanted) && !u.email.toLowerCase().includes(wanted)) continue;
      offered.push(u);
      if (offered.length === OFFERED) break;
    }
  }
  return (
    <div class="people-picker">
      {ids.length > 0 && (
        <ul class="picked" aria-label={`Chosen for ${label}`}>
          {ids.map((userId) => (
            <li key={userId}>
              {store.userName(userId)}
              {!disabled && (
                <button type="button" aria-label={`Remove ${store.userName(userId)} from ${label}`} onClick={() => onChange(ids.filter((x) => x !== userId))}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <input id={id} type="search" value={query} disabled={disabled} placeholder="Type a name to add someone" aria-describedby={describedBy} onInput={(e) => setQuery(e.currentTarget.value)} />
      {offered.length > 0 && (
        <ul class="offered" aria-label={`People to add to ${label}`}>
          {offered.map((u) => (
            <li key={u.user_id}>
              <button
                type="button"
                onClick={() => {
                  onChange([...ids, u.user_id]);
                  setQuery('');
                }}
              >
                Add {u.full_name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
