import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';
import { noMetrics, type Metrics, type StepAttemptMetering } from '../../../ports/metrics.js';
import { flush, harness } from './support.js';

// flowgate_step_attempt_duration_seconds on the embedded engine (docs/operations.md): an attempt is counted with the
// outcome the engine gave it, when it gave it, however and whenever the step function settles afterwards.

function recordingMetrics(): { metrics: Metrics; outcomes: () => string[] } {
  const attempts: StepAttemptMetering[] = [];
  return { metrics: { ...noMetrics, stepAttempt: (attempt) => attempts.push(attempt) }, outcomes: () => attempts.map((a) => `${a.step}:${a.outcome}`) };
}

/** A step function that returns only when the test lets it: after its attempt timed out, or never. */
let release: (value: unknown) => void = () => {};
const held = step({
  name: 'held',
  timeoutMs: 100,
  retry: { maximumAttempts: 1 },
  fn: () =>
    new Promise((resolve) => {
      release = resolve;
    }),
});
const unserialisable = step({ name: 'unserialisable', retry: { maximumAttempts: 1 }, fn: async () => ({ id: 10n }) as unknown });

const callsHeld = workflow({ name: 'calls_held', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => held(undefined) });
const callsUnserialisable = workflow({ name: 'calls_unserialisable', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => unserialisable(undefined) });

test('an attempt that timed out counts as a failure at its timeout, and its function returning later changes nothing', async () => {
  const { metrics, outcomes } = recordingMetrics();
  const h = harness([callsHeld], { metrics });
  const outcome = await h.outcome(await h.run(callsHeld, {}));
  assert.is(outcome.run.status, 'failed');
  assert.equal(outcomes(), ['held:failure'], 'counted when the timeout failed it, though its function has not returned');
  release({ late: true });
  await flush();
  assert.equal(outcomes(), ['held:failure'], 'the late return is not a success');
  h.close();
});

test('an attempt whose result cannot be kept (not JSON) counts as a failure, though its function returned', async () => {
  const { metrics, outcomes } = recordingMetrics();
  const h = harness([callsUnserialisable], { metrics });
  const outcome = await h.outcome(await h.run(callsUnserialisable, {}));
  assert.is(outcome.run.status, 'failed');
  assert.equal(outcomes(), ['unserialisable:failure']);
  h.close();
});

test('an attempt in flight when its run is cancelled counts as a failure then, and once', async () => {
  const { metrics, outcomes } = recordingMetrics();
  const h = harness([callsHeld], { metrics });
  const ref = await h.run(callsHeld, {});
  await flush();
  await h.engine.cancel(ref);
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'cancelled');
  assert.equal(outcomes(), ['held:failure']);
  release({ late: true });
  await flush();
  assert.equal(outcomes(), ['held:failure']);
  h.close();
});

test.run();
