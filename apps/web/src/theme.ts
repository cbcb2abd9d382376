/**
 * The page's theme from the person's `color_scheme` setting (1 automatic, 2 dark, 3
 * light): `data-theme` on the root element chooses the CSS variables. Automatic follows
 * the system's preference, also when it changes while the page is open. Until the
 * settings are known (the login page), automatic.
 */
const DARK = '(prefers-color-scheme: dark)';

let chosen = 1;

function resolve(): void {
  const dark = chosen === 2 || (chosen !== 3 && window.matchMedia(DARK).matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function applyColorScheme(colorScheme: number | undefined): void {
  const next = colorScheme === 2 || colorScheme === 3 ? colorScheme : 1;
  if (next === chosen && document.documentElement.dataset.theme) return;
  chosen = next;
  resolve();
}

window.matchMedia(DARK).addEventListener('change', resolve);
resolve();
