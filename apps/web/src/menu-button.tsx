/**
 * A WAI-ARIA menu button and its menu (arrows, Home, End, Esc; Tab leaves it closed),
 * shared by the sidebar's topic and channel menus and a message's actions. `label` names
 * both the button and the menu (each entry's own, for screen readers and tests); `kind`
 * gives their classes (`<kind>` around them, `<kind>-button` on the button). A chosen item
 * closes the menu and gives the focus back to the button before it runs, so that a dialog
 * it opens returns the focus there.
 */
import { useRef, useState } from 'preact/hooks';

export interface MenuItem {
  label: string;
  run: () => void;
}

export function MenuButton(props: { label: string; items: MenuItem[]; icon: string; kind: string; buttonRef?: { current: HTMLButtonElement | null } }) {
  const { label, items } = props;
  const [expanded, setExpanded] = useState(false);
  const ownButton = useRef<HTMLButtonElement>(null);
  const button = props.buttonRef ?? ownButton;
  const menu = useRef<HTMLUListElement>(null);
  const menuId = useRef(`menu-${Math.random().toString(36).slice(2)}`).current;
  const focusItem = (i: number) => {
    const all = menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]');
    if (all && all.length > 0) all[(i + all.length) % all.length]!.focus();
  };
  const open = (at: number) => {
    setExpanded(true);
    requestAnimationFrame(() => focusItem(at));
  };
  const close = (refocus: boolean) => {
    setExpanded(false);
    if (refocus) button.current?.focus();
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const keys: Record<string, () => void> = {
      ArrowDown: () => focusItem(at + 1),
      ArrowUp: () => focusItem(at - 1),
      Home: () => focusItem(0),
      End: () => focusItem(all.length - 1),
      Escape: () => close(true),
      Tab: () => close(false),
    };
    const handler = keys[e.key];
    if (!handler) return;
    if (e.key !== 'Tab') e.preventDefault();
    e.stopPropagation();
    handler();
  };
  return (
    <div
      class={props.kind}
      onFocusOut={(e) => {
        const next = e.relatedTarget as Node | null;
        if (expanded && next && !(e.currentTarget as HTMLElement).contains(next)) setExpanded(false);
      }}
    >
      <button
        type="button"
        class={`${props.kind}-button`}
        ref={button}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={expanded}
        aria-controls={expanded ? menuId : undefined}
        onClick={() => (expanded ? close(false) : open(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            open(e.key === 'ArrowDown' ? 0 : items.length - 1);
          }
        }}
      >
        <span aria-hidden="true">{props.icon}</span>
      </button>
      {expanded && (
        <ul class="menu" role="menu" id={menuId} aria-label={label} ref={menu} onKeyDown={onMenuKey}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  close(true);
                  item.run();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
