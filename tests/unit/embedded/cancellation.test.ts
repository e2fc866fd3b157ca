import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { CancelledError, step, workflow } from '../../../core/definition/index.js';
import { eventTypes, flush, harness } from './support.js';
import { rejection } from '../../support/rejection.js';

const cleanups: string[] = [];
const cleanUp = step({ name: 'clean_up', fn: async (what: string) => void cleanups.push(what) });
let releaseSlowStep = (): void => {};
const slowStep = step({ name: 'slow_step', fn: () => new Promise<string>((resolve) => (releaseSlowStep = () => resolve('late'))) });
const alwaysFails = step({
  name: 'always_fails',
  retry: { maximumAttempts: 5, initialIntervalMs: 10_000 },
  fn: async () => {
    throw new Error('nope');
  },
});

const sleepsThenCleansUp = workflow({
  name: 'sleeps_then_cleans_up',
  description: 'Sleeps an hour; on cancel cleans up in a nonCancellable scope and lets the CancelledError out',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    try {
      await ctx.sleep(3_600_000);
      return 'slept';
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      const flagged = ctx.cancellationRequested;
      await ctx.nonCancellable(async () => {
        await ctx.sleep(5);
        await cleanUp(`scratch:${flagged}`);
      });
      await cleanUp('outside the shield').catch((e: unknown) => cleanups.push(`refused:${(e as Error).name}`));
      throw error;
    }
  },
});
const ignoresCancel = workflow({
  name: 'ignores_cancel',
  description: 'Swallows the cancellation and returns normally',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await ctx.sleep(3_600_000).catch(() => undefined);
    return { stillHere: ctx.cancellationRequested };
  },
});
const failsOnCancel = workflow({
  name: 'fails_on_cancel',
  description: 'Turns the cancellation into another error',
  inputSchema: z.object({ phase: z.enum(['step', 'backoff']) }),
  outputSchema: z.unknown(),
  fn: async ({ phase }) => {
    try {
      if (phase === 'step') await slowStep(undefined);
      else await alwaysFails(undefined);
    } catch (error) {
      throw new TypeError(`gave up: ${(error as Error).name}`);
    }
  },
});
const longStep = workflow({
  name: 'long_step',
  description: 'Waits on a step that takes as long as the test wants',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async () => slowStep(undefined),
});
const limited = workflow({
  name: 'limited',
  description: 'Has a run timeout shorter than its sleep',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  runTimeoutMs: 1000,
  fn: async (_input, ctx) => ctx.sleep(5000),
});

test('cancel interrupts a sleep; nonCancellable clean-up still runs; the run ends cancelled', async () => {
  const h = harness([sleepsThenCleansUp]);
  cleanups.length = 0;
  const ref = await h.run(sleepsThenCleansUp, {});
  await flush();
  const cancelled = await h.engine.cancel({ workflowId: ref.workflowId });
  assert.is(cancelled.runId, ref.runId);
  assert.is(cancelled.status, 'running');
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'cancelled');
  // As on Temporal: the run's error says it was cancelled, not which wait the stop interrupted.
  assert.equal(outcome.failure, { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' });
  assert.equal(cleanups, ['scratch:true', 'refused:CancelledError']);
  const types = await eventTypes(h.engine, ref);
  assert.equal(types, [
    'workflow_started',
    'timer_started',
    'workflow_cancel_requested',
    'timer_started',
    'timer_fired',
    'step_scheduled',
    'step_started',
    'step_completed',
    'workflow_cancelled',
  ]);
  const again = await rejection(h.engine.cancel(ref));
  assert.is(again.name, 'WorkflowClosedError');
  assert.is(again.workflowId, ref.workflowId);
  h.close();
});

test('a workflow that swallows the cancellation completes; a second cancel is not recorded twice', async () => {
  const h = harness([ignoresCancel]);
  const ref = await h.run(ignoresCancel, {});
  await flush();
  await h.engine.cancel(ref);
  await h.engine.cancel(ref).catch(() => undefined);
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'completed');
  assert.equal(outcome.output, { stillHere: true });
  assert.is((await eventTypes(h.engine, ref)).filter((t) => t === 'workflow_cancel_requested').length, 1);
  h.close();
});

test('cancel rejects an awaited step and a retry backoff with CancelledError; another error fails the run', async () => {
  const h = harness([failsOnCancel]);
  const inStep = await h.run(failsOnCancel, { phase: 'step' });
  await flush();
  await h.engine.cancel(inStep);
  const stepOutcome = await h.outcome(inStep);
  assert.is(stepOutcome.run.status, 'failed');
  assert.equal(stepOutcome.failure, { name: 'TypeError', message: 'gave up: CancelledError' });
  const { page } = await h.engine.historyPage(inStep, { pageSize: 50 });
  const lastStepEvent = page.events.filter((e) => e.stepName === 'slow_step').at(-1);
  assert.is(lastStepEvent?.type, 'step_failed');
  assert.is((lastStepEvent?.attributes.error as { name: string }).name, 'CancelledError');
  releaseSlowStep();

  const inBackoff = await h.run(failsOnCancel, { phase: 'backoff' });
  await flush();
  assert.is(h.clock.pendingTimers > 0, true, 'backoff timer pending');
  await h.engine.cancel(inBackoff);
  const backoffOutcome = await h.outcome(inBackoff);
  assert.equal(backoffOutcome.failure, { name: 'TypeError', message: 'gave up: CancelledError' });
  assert.is(h.closedRuns.at(-1)?.steps[0]?.error?.name, 'CancelledError');
  h.close();
});

test('terminate closes at once, abandons pending work and still calls onRunClosed', async () => {
  const h = harness([longStep]);
  const ref = await h.run(longStep, {});
  await flush();
  const terminated = await h.engine.terminate(ref, 'operator said so');
  assert.is(terminated.status, 'terminated');
  assert.ok(terminated.closedAt);
  assert.is(h.closedRuns.length, 1);
  assert.is(h.closedRuns[0]?.run.status, 'terminated');
  assert.is(h.closedRuns[0]?.steps[0]?.endedAt, null, 'the step never finished');
  const outcome = await h.engine.getOutcome(ref);
  assert.equal(outcome.failure, { name: 'WorkflowTerminatedError', message: 'operator said so' });
  releaseSlowStep();
  await flush();
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  assert.is(page.events.at(-1)?.type, 'workflow_terminated');
  assert.equal(page.events.at(-1)?.attributes, { reason: 'operator said so' });
  assert.is((await rejection(h.engine.terminate(ref, 'again'))).name, 'WorkflowClosedError');
  h.close();
});

test('a run still open after runTimeoutMs ends timed_out', async () => {
  const h = harness([limited]);
  const ref = await h.run(limited, {});
  await h.clock.advance(999);
  assert.is((await h.engine.describe(ref)).status, 'running');
  await h.clock.advance(1);
  const outcome = await h.engine.getOutcome(ref);
  assert.is(outcome.run.status, 'timed_out');
  assert.is(outcome.failure?.name, 'WorkflowTimedOutError');
  assert.is((await eventTypes(h.engine, ref)).at(-1), 'workflow_timed_out');
  assert.is(h.clock.pendingTimers, 0, 'the sleep timer went with the run');
  h.close();
});

test.run();
