import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { step, workflow } from '../../../core/definition/index.js';
import type { ActivityDefinition } from '../../../core/definition/activity.js';
import { catalogActivities } from '../../../adapters/temporal/worker/activities.js';
import type { HeartbeatProgress } from '../../../adapters/temporal/worker/heartbeatProgress.js';
import type { TraceCollector } from '../../../adapters/temporal/worker/traceCollector.js';
import { noMetrics, type Metrics, type StepAttemptMetering } from '../../../ports/metrics.js';

// flowgate_step_attempt_duration_seconds in a Temporal worker (docs/operations.md): an attempt is counted with the
// outcome the worker gives it, which is a failure when its result is over the payload limit. Runs the activity
// function the worker registers inside a stand-in activity context: no Temporal server.

const big = step({ name: 'big', fn: async () => ({ blob: 'b'.repeat(1_000) }) });
const small = step({ name: 'small', fn: async () => ({ ok: true }) });
const notJson = step({ name: 'not_json', fn: async () => ({ total: 10n }) });
const makesBlobs = workflow({ name: 'makes_blobs', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => big(undefined) });

function activitiesCounting(metrics: Metrics) {
  const steps = new Map<string, ActivityDefinition>([big, small, notJson].map(({ definition }) => [definition.name, definition as ActivityDefinition]));
  return catalogActivities({
    workflows: [makesBlobs],
    steps,
    webhookStep: small.definition as ActivityDefinition,
    traces: { attemptStarted: () => () => {} } as unknown as TraceCollector,
    progress: { run: (_context: Context, attempt: () => Promise<unknown>) => attempt() } as unknown as HeartbeatProgress,
    maxPayloadBytes: 500,
    metrics,
  });
}

function inActivityContext<T>(activityType: string, attempt: () => Promise<T>): Promise<T> {
  const info = { activityId: '1', activityType, attempt: 1, workflowExecution: { workflowId: 'w', runId: 'r' } };
  return asyncLocalStorage.run({ info } as unknown as Context, attempt);
}

test('a step result over the payload limit fails the attempt, and the attempt counts as a failure, not a success', async () => {
  const attempts: StepAttemptMetering[] = [];
  const activities = activitiesCounting({ ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt) });
  const failure = await inActivityContext('makes_blobs#big', () => activities['makes_blobs#big']!({})).then(
    () => undefined,
    (error: unknown) => error as { type?: string },
  );
  assert.is(failure?.type, 'ResultTooLargeError');
  assert.equal(attempts.map((attempt) => `${attempt.step}:${attempt.outcome}`), ['big:failure']);
});

test('a result within the limit counts as a success, once', async () => {
  const attempts: StepAttemptMetering[] = [];
  const activities = activitiesCounting({ ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt) });
  assert.equal(await inActivityContext('makes_blobs#small', () => activities['makes_blobs#small']!({})), { ok: true });
  assert.equal(attempts.map((attempt) => `${attempt.step}:${attempt.outcome}`), ['small:success']);
});

test("a step result JSON refuses fails the attempt as StepOutputValidationError, not retried, as on the embedded engine", async () => {
  const attempts: StepAttemptMetering[] = [];
  const activities = activitiesCounting({ ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt) });
  const failure = await inActivityContext('makes_blobs#not_json', () => activities['makes_blobs#not_json']!({})).then(
    () => undefined,
    (error: unknown) => error as { type?: string; message?: string; nonRetryable?: boolean },
  );
  assert.is(failure?.type, 'StepOutputValidationError');
  assert.is(failure?.message, 'Output of step not_json is not JSON: Do not know how to serialize a BigInt');
  assert.is(failure?.nonRetryable, true);
  assert.equal(attempts.map((attempt) => `${attempt.step}:${attempt.outcome}`), ['not_json:failure']);
});

test.run();
