import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelayMs, isRetryable, type RetryOptions } from '../../core/definition/retry.js';
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

test('NaN, infinite or negative intervals and coefficients, and error names that are not a list of strings, are refused naming the step', () => {
  const refused: [RetryOptions, RegExp][] = [
    [{ initialIntervalMs: Number.NaN }, /^step odd_retry: retry\.initialIntervalMs must be a finite number >= 0, got NaN$/],
    [{ maximumIntervalMs: Number.POSITIVE_INFINITY }, /^step odd_retry: retry\.maximumIntervalMs must be a finite number >= 0, got Infinity$/],
    [{ initialIntervalMs: -1 }, /retry\.initialIntervalMs/],
    [{ backoffCoefficient: Number.NaN }, /^step odd_retry: retry\.backoffCoefficient must be a finite number >= 1, got NaN$/],
    [{ backoffCoefficient: 0.5 }, /retry\.backoffCoefficient/],
    [{ maximumAttempts: 1.5 }, /^step odd_retry: retry\.maximumAttempts must be an integer >= 1, got 1\.5$/],
    [{ nonRetryableErrorNames: 'Error' as unknown as string[] }, /^step odd_retry: retry\.nonRetryableErrorNames must be an array of error class names \(strings\)$/],
    [{ nonRetryableErrorNames: [42] as unknown as string[] }, /retry\.nonRetryableErrorNames/],
  ];
  for (const [retry, message] of refused) {
    assert.throws(() => step({ name: 'odd_retry', retry, fn: async () => 1 }), (error: Error) => message.test(error.message), JSON.stringify(retry));
  }
});

test('the policy keeps its own copy of the error names: a later change to the list given changes nothing', () => {
  const names = ['Fatal'];
  const policy = resolveRetryPolicy({ nonRetryableErrorNames: names });
  names.push('Other');
  assert.equal(policy.nonRetryableErrorNames, ['Fatal']);
});

test('a field given as undefined keeps its default, as one left out does', () => {
  const policy = resolveRetryPolicy({ maximumAttempts: undefined, initialIntervalMs: 250, backoffCoefficient: undefined });
  assert.equal(policy, { ...DEFAULT_RETRY_POLICY, initialIntervalMs: 250 });
  assert.equal(step({ name: 'undefined_retry', retry: { maximumAttempts: undefined }, timeoutMs: undefined, fn: async () => 1 }).definition.retry, DEFAULT_RETRY_POLICY);
});

test.run();
