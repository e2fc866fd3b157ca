import { ValidationError } from './errors.js';

/*
 * Bounds of what a caller may ask of an engine, said once: the use cases check them before an engine is asked, the
 * HTTP schemas take their numbers from here, and an engine that asserts them again calls these same checks.
 */

/** Most runs in one page of the run list. */
export const MAX_RUN_LIST_LIMIT = 1000;

/** Most events in one page of a run's history. */
export const MAX_HISTORY_PAGE_SIZE = 200;

/** A run-list page size: an integer from 1 to MAX_RUN_LIST_LIMIT. */
export function checkRunListLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_LIST_LIMIT) {
    const message = `limit must be an integer from 1 to ${MAX_RUN_LIST_LIMIT}`;
    throw new ValidationError(message, { issues: [{ code: 'invalid_limit', path: ['limit'], message }] });
  }
}

/** A history page size: an integer from 1 to MAX_HISTORY_PAGE_SIZE. */
export function checkHistoryPageSize(pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_HISTORY_PAGE_SIZE) {
    const message = `pageSize must be an integer from 1 to ${MAX_HISTORY_PAGE_SIZE}`;
    throw new ValidationError(message, { issues: [{ code: 'invalid_page_size', path: ['pageSize'], message }] });
  }
}

/**
 * How long a wait for a run's outcome may last: a number of milliseconds, 0 or more (Infinity waits for ever). A
 * programming mistake, not a client's: the HTTP schemas bound the seconds a client asks for before this is reached.
 */
export function checkAwaitTimeout(timeoutMs: number): void {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new RangeError(`awaitOutcome: timeoutMs must be a number >= 0, got ${String(timeoutMs)}`);
  }
}
