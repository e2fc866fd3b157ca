import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelayMs, isRetryable } from '../../core/definition/retry.js';
import { step } from '../../core/definition/step.js';

test('retry delays grow by the coefficient and stop at the maximum', () => {
  const policy = resolveRetryPolicy({ initialIntervalMs: 100, backoffCoefficient: 3, maximumIntervalMs: 500 });
  assert.equal([2, 3, 4].map((attempt) => retryDelayMs(policy, attempt)), [100, 300, 500]);
});

test('non-retryable errors and exhausted attempts are not retried', () => {
  const policy = resolveRetryPolicy({ maximumAttempts: 2, nonRetryableErrorNames: ['Fatal'] });
  assert.is(isRetryable(policy, { name: 'Error' }, 1), true);
  assert.is(isRetryable(policy, { name: 'Error' }, 2), false);
  assert.is(isRetryable(policy, { name: 'Fatal' }, 1), false);
  assert.is(isRetryable(policy, { name: 'Error', nonRetryable: true }, 1), false);
});

test('an invalid policy is refused with the field named', () => {
  assert.throws(() => resolveRetryPolicy({ maximumAttempts: 0 }), /maximumAttempts/);
});

test('a field given as undefined keeps its default, as one left out does', () => {
  const policy = resolveRetryPolicy({ maximumAttempts: undefined, initialIntervalMs: 250, backoffCoefficient: undefined });
  assert.equal(policy, { ...DEFAULT_RETRY_POLICY, initialIntervalMs: 250 });
  assert.equal(step({ name: 'undefined_retry', retry: { maximumAttempts: undefined }, timeoutMs: undefined, fn: async () => 1 }).definition.retry, DEFAULT_RETRY_POLICY);
});

test.run();
