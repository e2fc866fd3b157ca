// A step attempt counted for /metrics (adapters/metrics/stepAttemptMeter.ts): outcome, duration and the hooks'
// aggregations, counted once, when the engine decides the attempt's fate.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { meterStepAttempt } from '../../../adapters/metrics/stepAttemptMeter.js';
import { noMetrics, type Metrics, type StepAttemptMetering } from '../../../ports/metrics.js';

type LateAggregations = Omit<StepAttemptMetering, 'outcome' | 'seconds'>;

function recording(): { metrics: Metrics; attempts: StepAttemptMetering[]; late: LateAggregations[] } {
  const attempts: StepAttemptMetering[] = [];
  const late: LateAggregations[] = [];
  const metrics: Metrics = { ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt), stepAggregationsAfterOutcome: (spent) => late.push(spent) };
  return { metrics, attempts, late };
}

const labels = { workflow: 'summarise', step: 'count_words' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a successful attempt: counted once with its duration and what the hooks reported', async () => {
  const { metrics, attempts } = recording();
  const meter = meterStepAttempt(metrics, labels);
  await sleep(20);
  meter.report({ totalCost: 0.25, tokens: 120, httpCalls: 2 });
  meter.succeeded();
  assert.is(attempts.length, 1);
  const [attempt] = attempts;
  assert.equal({ ...attempt, seconds: 0 }, { ...labels, outcome: 'success', seconds: 0, totalCost: 0.25, tokens: 120, httpCalls: 2 });
  assert.ok(attempt!.seconds >= 0.015 && attempt!.seconds < 5, `seconds ${attempt!.seconds}`);
});

test('a failed attempt: counted as a failure with zero aggregations when none were reported', () => {
  const { metrics, attempts } = recording();
  meterStepAttempt(metrics, labels).failed();
  assert.equal(attempts.map(({ seconds: _seconds, ...rest }) => rest), [{ ...labels, outcome: 'failure', totalCost: 0, tokens: 0, httpCalls: 0 }]);
});

test('the first decision counts: a late success after a timeout neither counts again nor changes the outcome or duration', async () => {
  const { metrics, attempts } = recording();
  const meter = meterStepAttempt(metrics, labels);
  meter.failed();
  await sleep(30);
  meter.succeeded();
  meter.failed();
  assert.equal(attempts.map((attempt) => attempt.outcome), ['failure']);
  assert.ok(attempts[0]!.seconds < 0.025, `counted at the decision, not the late settle: ${attempts[0]!.seconds} s`);
});

test('aggregations reported after the outcome was counted are still counted, as aggregations only', () => {
  const { metrics, attempts, late } = recording();
  const meter = meterStepAttempt(metrics, labels);
  meter.failed();
  meter.report({ totalCost: 1.5, tokens: 900, httpCalls: 1 });
  assert.is(attempts.length, 1);
  assert.equal(late, [{ ...labels, totalCost: 1.5, tokens: 900, httpCalls: 1 }]);
});

test('with noMetrics nothing is timed or counted, and every call is harmless', () => {
  const meter = meterStepAttempt(noMetrics, labels);
  meter.report({ totalCost: 1, tokens: 1, httpCalls: 1 });
  meter.succeeded();
  meter.failed();
});

test.run();
