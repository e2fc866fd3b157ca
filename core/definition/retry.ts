/** How a step is retried. Mirrors Temporal's RetryPolicy so one definition means the same on both engines. */
export interface RetryPolicy {
  /** Total attempts including the first. @default 3 */
  maximumAttempts: number;
  /** Delay before the second attempt. @default 1000 */
  initialIntervalMs: number;
  /** Multiplier applied to the delay after each attempt. @default 2 */
  backoffCoefficient: number;
  /** Upper bound of the delay. @default 30000 */
  maximumIntervalMs: number;
  /** Error names (class names) that are never retried. */
  nonRetryableErrorNames: string[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maximumAttempts: 3,
  initialIntervalMs: 1000,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
  nonRetryableErrorNames: [],
}) as RetryPolicy;

/** A step's `retry`: any of the policy's fields; one left out or `undefined` keeps its default. */
export type RetryOptions = { [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined };

/** The policy a step's `retry` means; `owner` (e.g. `step charge_card`) starts the message of a field refused. */
export function resolveRetryPolicy(options: RetryOptions | undefined, owner?: string): RetryPolicy {
  const given = Object.entries(options ?? {}).filter(([, value]) => value !== undefined);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(given) };
  const of = owner === undefined ? '' : `${owner}: `;
  if (!Number.isInteger(policy.maximumAttempts) || policy.maximumAttempts < 1) {
    throw new RangeError(`${of}retry.maximumAttempts must be an integer >= 1, got ${String(policy.maximumAttempts)}`);
  }
  // `!(x >= 0)` refuses NaN as well: the embedded engine would retry at once where Temporal waits its default.
  for (const field of ['initialIntervalMs', 'maximumIntervalMs'] as const) {
    const value = policy[field];
    if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
      throw new RangeError(`${of}retry.${field} must be a finite number >= 0, got ${String(value)}`);
    }
  }
  const coefficient = policy.backoffCoefficient;
  if (typeof coefficient !== 'number' || !(coefficient >= 1) || !Number.isFinite(coefficient)) {
    throw new RangeError(`${of}retry.backoffCoefficient must be a finite number >= 1, got ${String(coefficient)}`);
  }
  // A string would match by substring on one engine and be spread into letters on the other.
  const names: unknown = policy.nonRetryableErrorNames;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    throw new TypeError(`${of}retry.nonRetryableErrorNames must be an array of error class names (strings)`);
  }
  return { ...policy, nonRetryableErrorNames: [...names] };
}

/** Delay before attempt `nextAttempt` (2 for the first retry). */
export function retryDelayMs(policy: RetryPolicy, nextAttempt: number): number {
  const delay = policy.initialIntervalMs * policy.backoffCoefficient ** (nextAttempt - 2);
  return Math.min(delay, policy.maximumIntervalMs);
}

export function isRetryable(policy: RetryPolicy, error: { name?: string; nonRetryable?: boolean }, attempt: number): boolean {
  if (attempt >= policy.maximumAttempts) return false;
  return isRetryableFailure(policy, error);
}

/**
 * Whether a step's failure is of a kind worth retrying, as its `retryable` says (results, traces) on both engines: a
 * property of the error (`nonRetryable`, a name the policy lists), like Temporal's, not of the attempts left.
 */
export function isRetryableFailure(policy: { readonly nonRetryableErrorNames: readonly string[] }, error: { name?: string; nonRetryable?: boolean }): boolean {
  return error.nonRetryable !== true && !policy.nonRetryableErrorNames.includes(error.name ?? '');
}
