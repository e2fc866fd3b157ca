import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { flush, harness } from './support.js';

const finallyRan: number[] = [];
const countdown = workflow({
  name: 'countdown',
  description: 'Continues as new until it reaches zero',
  inputSchema: z.object({ left: z.number(), wait: z.number().optional() }),
  outputSchema: z.object({ done: z.boolean(), firstRunId: z.string(), continuedFromRunId: z.string().optional() }),
  fn: async ({ left, wait }, ctx) => {
    if (wait) await ctx.sleep(wait);
    if (left === 0) return { done: true, firstRunId: ctx.info.firstRunId, continuedFromRunId: ctx.info.continuedFromRunId };
    try {
      return await ctx.continueAsNew({ left: left - 1, ...(wait ? { wait } : {}) });
    } finally {
      finallyRan.push(left);
    }
  },
});

test('continue-as-new closes the run and starts the next with the same id and first run', async () => {
  const h = harness([countdown]);
  finallyRan.length = 0;
  const ref = await h.run(countdown, { left: 2 }, 'cd');
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'completed');
  assert.is.not(outcome.run.runId, ref.runId);
  assert.equal(finallyRan, [2, 1], 'finally blocks ran on the way out');
  const first = await h.engine.getOutcome(ref);
  assert.is(first.run.status, 'continued_as_new');
  assert.is(first.output, undefined);
  assert.is(first.failure, null);
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  const closing = page.events.at(-1);
  assert.is(closing?.type, 'workflow_continued_as_new');
  const secondRunId = closing?.attributes.newRunId as string;
  assert.equal(closing?.attributes.input, { left: 1 });
  const second = await h.engine.describe({ workflowId: 'cd', runId: secondRunId });
  assert.is(second.firstRunId, ref.runId);
  assert.is(second.continuedFromRunId, ref.runId);
  const { page: secondHistory } = await h.engine.historyPage(second, { pageSize: 1 });
  assert.equal(secondHistory.events[0]?.attributes, { workflowName: 'countdown', catalog: 'main', input: { left: 1 }, continuedFromRunId: ref.runId });
  assert.is((outcome.output as { firstRunId: string }).firstRunId, ref.runId);
  assert.is((outcome.output as { continuedFromRunId: string }).continuedFromRunId, secondRunId);
  assert.equal((await h.engine.listRuns({ limit: 10, workflowName: 'countdown' })).runs.map((r) => r.status), ['completed', 'continued_as_new', 'continued_as_new']);
  assert.equal(h.closedRuns.map((c) => c.run.status), ['continued_as_new', 'continued_as_new', 'completed']);
  h.close();
});

test('awaitOutcome on the first run follows the chain as it continues', async () => {
  const h = harness([countdown]);
  const ref = await h.run(countdown, { left: 2, wait: 100 });
  const waiting = h.engine.awaitOutcome(ref, { timeoutMs: 10_000 });
  await h.clock.advance(100);
  assert.is((await h.engine.describe({ workflowId: ref.workflowId })).continuedFromRunId, ref.runId, 'the chain moved on');
  await h.clock.advance(100);
  await h.clock.advance(100);
  const outcome = await waiting;
  assert.is(outcome?.run.status, 'completed');
  assert.is(outcome?.run.firstRunId, ref.runId);
  h.close();
});

test('awaitOutcome resolves undefined on timeout (real time), clears its timer, and rejects on abort', async () => {
  const h = harness([countdown]);
  const ref = await h.run(countdown, { left: 0, wait: 10_000 });
  await flush();
  const timersBefore = h.clock.pendingTimers;
  const waiting = h.engine.awaitOutcome(ref, { timeoutMs: 30 });
  assert.is(h.clock.pendingTimers, timersBefore, 'the wait sets no timer on the engine clock');
  assert.is(await waiting, undefined);
  assert.is((await h.engine.describe(ref)).status, 'running', 'the run keeps going');

  const controller = new AbortController();
  const aborted = h.engine.awaitOutcome(ref, { timeoutMs: 5000, signal: controller.signal });
  controller.abort(new Error('client left'));
  try {
    await aborted;
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, 'client left');
  }
  await h.clock.advance(10_000);
  const done = await h.engine.awaitOutcome(ref, { timeoutMs: 0 });
  assert.is(done?.run.status, 'completed', 'a closed run answers at once');
  h.close();
});

test('a wait is not timed out by the engine clock skipping ahead: an hour of fake time outlasts a 5 s wait', async () => {
  const h = harness([countdown]);
  const ref = await h.run(countdown, { left: 0, wait: 3_600_000 });
  const waiting = h.engine.awaitOutcome(ref, { timeoutMs: 5_000 });
  await h.clock.advance(3_600_000);
  const outcome = await waiting;
  assert.is(outcome?.run.status, 'completed', 'the run it waits for closed first');
  h.close();
});

test.run();
