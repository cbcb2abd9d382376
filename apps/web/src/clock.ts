/**
 * Times of day as the person chose to read them (`twenty_four_hour_time` in their
 * settings), in their browser's zone or in someone else's (a user card's local time).
 */
import type { ClientStore } from './store';

const formats = new Map<string, Intl.DateTimeFormat>();

function format(hour12: boolean, timeZone?: string): Intl.DateTimeFormat {
  const key = `${hour12}:${timeZone ?? ''}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: hour12 ? 'h12' : 'h23', timeZone });
    formats.set(key, f);
  }
  return f;
}

export function twentyFourHours(store: ClientStore): boolean {
  return ((store.state.user_settings as { twenty_four_hour_time?: boolean } | undefined)?.twenty_four_hour_time ?? false) === true;
}

/** A time of day in the person's format; in `timeZone` when given (undefined when the zone is not one the browser knows). */
export function timeOfDay(store: ClientStore, when: Date, timeZone?: string): string | undefined {
  try {
    return format(!twentyFourHours(store), timeZone || undefined).format(when);
  } catch {
    return undefined;
  }
}
