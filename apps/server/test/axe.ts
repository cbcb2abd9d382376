/**
 * Accessibility checks of a page with axe-core (pinned in package.json). The page's CSP
 * refuses inline scripts, so axe is not added as a <script> tag: its source is evaluated
 * through the DevTools protocol (playwright's page.evaluate), which the CSP does not
 * govern, and runs in the page as it is.
 *
 * `seriousViolations(page)` lists what axe rates serious or critical, each with the
 * elements at fault, ready to print in a failed expectation.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

let source: string | undefined;

export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

async function inject(page: Page): Promise<void> {
  const present = await page.evaluate('typeof window.axe === "object"');
  if (present) return;
  source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (!loaded) throw new Error('axe-core did not load in the page');
}

/** Violations of the WCAG A/AA rules (and axe's best practices) rated serious or critical, in `scope` (a CSS selector) or the whole page. */
export async function seriousViolations(page: Page, scope?: string): Promise<Violation[]> {
  await inject(page);
  const script = `(async () => {
    const result = await window.axe.run(${JSON.stringify(scope ?? 'html')}, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => String(n.target.join(' '))) }));
  })()`;
  const all = (await page.evaluate(script)) as Violation[];
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The violations as lines a failing test prints. */
export const describeViolations = (violations: Violation[]) => violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.slice(0, 5).join(', ')}`);
