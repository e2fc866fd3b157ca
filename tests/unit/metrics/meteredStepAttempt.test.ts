// A step attempt counted for /metrics (adapters/metrics/meteredStepAttempt.ts): outcome, duration and the hooks'
// aggregations, on both engines' attempt paths.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { meteredStepAttempt } from '../../../adapters/metrics/meteredStepAttempt.js';
import { noMetrics, type Metrics, type StepAttemptMetering } from '../../../ports/metrics.js';

function recording(): { metrics: Metrics; attempts: StepAttemptMetering[] } {
  const attempts: StepAttemptMetering[] = [];
  return { metrics: { ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt) }, attempts };
}

const labels = { workflow: 'summarise', step: 'count_words' };

test('a successful attempt: its output passed on, counted once with its duration and what the hooks reported', async () => {
  const { metrics, attempts } = recording();
  const output = await meteredStepAttempt(metrics, labels, async (report) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    report({ totalCost: 0.25, tokens: 120, httpCalls: 2 });
    return { words: 3 };
  });
  assert.equal(output, { words: 3 });
  assert.is(attempts.length, 1);
  const [attempt] = attempts;
  assert.equal({ ...attempt, seconds: 0 }, { ...labels, outcome: 'success', seconds: 0, totalCost: 0.25, tokens: 120, httpCalls: 2 });
  assert.ok(attempt!.seconds >= 0.015 && attempt!.seconds < 5, `seconds ${attempt!.seconds}`);
});

test('a failed attempt: the same error rethrown, counted as a failure with zero aggregations when none were reported', async () => {
  const { metrics, attempts } = recording();
  const failure = new Error('rate limited');
  try {
    await meteredStepAttempt(metrics, labels, async () => {
      throw failure;
    });
    assert.unreachable('the attempt failed');
  } catch (error) {
    assert.is(error, failure);
  }
  assert.equal(attempts.map(({ seconds: _seconds, ...rest }) => rest), [{ ...labels, outcome: 'failure', totalCost: 0, tokens: 0, httpCalls: 0 }]);
});

test('an attempt that throws before it returns a promise is still counted, and its error still thrown', async () => {
  const { metrics, attempts } = recording();
  assert.throws(
    () =>
      meteredStepAttempt(metrics, labels, () => {
        throw new TypeError('not a function');
      }),
    /not a function/,
  );
  assert.equal(attempts.map((attempt) => attempt.outcome), ['failure']);
});

test('with noMetrics the attempt runs untimed and its report callback is harmless', async () => {
  let reported = false;
  const output = await meteredStepAttempt(noMetrics, labels, async (report) => {
    report({ totalCost: 1, tokens: 1, httpCalls: 1 });
    reported = true;
    return 'done';
  });
  assert.is(output, 'done');
  assert.ok(reported);
});

test.run();
