/**
 * Zulip's length limits count Unicode code points, not UTF-16 units: an emoji outside the
 * Basic Multilingual Plane is one character to the limit, two to `String.length`.
 */
export const codePointLength = (s: string): number => [...s].length;
