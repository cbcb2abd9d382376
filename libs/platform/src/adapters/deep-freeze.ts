/**
 * Freezes a parsed JSON value all the way down (it holds only plain objects and arrays).
 * The adapters hand the same parsed document or fact to several readers; frozen, none of
 * them can change what the others see.
 */
export function deepFreeze<V>(value: V): V {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
