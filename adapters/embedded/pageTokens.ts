/**
 * What the embedded engine keeps in a page token (adapters/pageTokens.ts seals it): a position in its store, as named
 * numbers (a history offset `o`; a run list's start time `t` and sequence `q`).
 */
export type StorePosition = Record<string, number>;

export function isStorePosition(value: unknown): value is StorePosition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((n) => typeof n === 'number' && Number.isFinite(n));
}
