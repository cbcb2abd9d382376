/**
 * Which clients the server tells they cannot use it (GET /server_settings's
 * `is_incompatible`), by Zulip's rule: only a User-Agent whose product name is
 * `ZulipInvalid`, the name Zulip reserves for testing the apps' "incompatible server"
 * screen. Zulip keeps its minimum app versions for the other compatibility check (GET
 * /compatibility), not here, so an official app of any version is told it may connect.
 */

/**
 * The product name and version of a User-Agent as Zulip splits it: the name runs to the
 * first `/` or space, then on through anything but digits, `/` and `(`; the version runs
 * from the `/` to the next `/` or space. `ZulipMobile/27.1 (Android 14)` is
 * `ZulipMobile` 27.1; `ZulipFlutter/30.0.263 (…)` is `ZulipFlutter` 30.0.263.
 */
export function parseUserAgent(userAgent: string): { name: string; version?: string } | undefined {
  const match = /^([^/ ]*[^0-9/(]*)(?:\/([^/ ]*))?(?:[ /].*)?$/s.exec(userAgent);
  if (!match) return undefined;
  return { name: match[1]!, ...(match[2] !== undefined ? { version: match[2] } : {}) };
}

/** Zulip's `is_incompatible`: a missing User-Agent counts as "Missing User-Agent", which is compatible. */
export function isIncompatibleClient(userAgent: string | undefined): boolean {
  return parseUserAgent(userAgent ?? 'Missing User-Agent')?.name === 'ZulipInvalid';
}
