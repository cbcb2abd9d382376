/**
 * The listbox of suggestions under a field (compose's To, Topic and Message; the search
 * box): the chosen option is marked for screen readers and styles, and a press picks an
 * option without taking the focus from the field.
 */
export interface SuggestionItem {
  label: string;
  detail?: string;
}

export function SuggestionList<T extends SuggestionItem>(props: {
  id: string;
  label: string;
  class?: string;
  items: T[];
  choice: number;
  /** The option's element id, which the field's aria-activedescendant names. */
  optionId: (index: number) => string;
  keyOf: (item: T) => string;
  onPick: (item: T) => void;
}) {
  return (
    <ul class={props.class ? `suggestions ${props.class}` : 'suggestions'} id={props.id} role="listbox" aria-label={props.label}>
      {props.items.map((item, i) => (
        <li
          key={props.keyOf(item)}
          id={props.optionId(i)}
          role="option"
          aria-selected={i === props.choice}
          class={i === props.choice ? 'chosen' : undefined}
          onMouseDown={(e) => {
            e.preventDefault();
            props.onPick(item);
          }}
        >
          {item.label}
          {item.detail && <span class="muted"> {item.detail}</span>}
        </li>
      ))}
    </ul>
  );
}
