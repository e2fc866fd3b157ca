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

export function resolveRetryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const given = Object.entries(options ?? {}).filter(([, value]) => value !== undefined);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(given) };
  if (!Number.isInteger(policy.maximumAttempts) || policy.maximumAttempts < 1) {
    throw new RangeError('retry.maximumAttempts must be an integer >= 1');
  }
  if (policy.initialIntervalMs < 0 || policy.maximumIntervalMs < 0) throw new RangeError('retry intervals must be >= 0');
  if (policy.backoffCoefficient < 1) throw new RangeError('retry.backoffCoefficient must be >= 1');
  return policy;
}

/** Delay before attempt `nextAttempt` (2 for the first retry). */
export function retryDelayMs(policy: RetryPolicy, nextAttempt: number): number {
  const delay = policy.initialIntervalMs * policy.backoffCoefficient ** (nextAttempt - 2);
  return Math.min(delay, policy.maximumIntervalMs);
}

export function isRetryable(policy: RetryPolicy, error: { name?: string; nonRetryable?: boolean }, attempt: number): boolean {
  if (attempt >= policy.maximumAttempts) return false;
  if (error.nonRetryable === true) return false;
  return !policy.nonRetryableErrorNames.includes(error.name ?? '');
}
