import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';
import type { RunCallbackTarget } from '../../../core/domain/callback.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import { collected } from '../../support/collected.js';
import { durableHarness } from './durableSupport.js';
import { flush, harness } from './support.js';

/** The embedded engine keeps a run's callback with the run and reports each close once (docs/callbacks.md). */
const target: RunCallbackTarget = { url: 'http://127.0.0.1:9/cb', retryForMs: 5_000 };

const prepare = step({ name: 'prepare', fn: async (n: number) => n + 1 });
const prepareThenSleep = workflow({
  name: 'prepare_then_sleep',
  description: 'Prepares, then sleeps a minute',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }, ctx) => {
    const prepared = await prepare(n);
    await ctx.sleep(60_000);
    return { prepared };
  },
});
const prepareThenWait = workflow({
  name: 'prepare_then_wait',
  description: 'Prepares, then waits for a reply',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }, ctx) => ({ prepared: await prepare(n), reply: await ctx.waitForWebhook({}) }),
});
const countdown = workflow({
  name: 'countdown_cb',
  description: 'Continues as new until n is 0',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }, ctx) => (n > 0 ? ctx.continueAsNew({ n: n - 1 }) : { done: true }),
});

function recordingHarness() {
  const reported: { run: PinnedRunRef; target: RunCallbackTarget }[] = [];
  const h = harness([prepareThenSleep, countdown], { onRunCallback: (run, given) => void reported.push({ run, target: given }) });
  return { ...h, reported };
}

test('continue-as-new hands the callback on: only the last run of the chain is reported', async () => {
  const h = recordingHarness();
  const started = await h.engine.start({ workflowName: 'countdown_cb', catalog: 'main', workflowId: 'cb-chain', input: { n: 2 }, callback: target });
  const outcome = await h.outcome(started);
  assert.is.not(outcome.run.runId, started.runId);
  assert.equal(h.reported, [{ run: { workflowId: 'cb-chain', runId: outcome.run.runId }, target }]);
  h.close();
});

test('a reset run keeps the callback; the open run it replaces is reported as it closes (terminated)', async () => {
  const h = recordingHarness();
  const started = await h.engine.start({ workflowName: 'prepare_then_sleep', catalog: 'main', workflowId: 'cb-reset', input: { n: 1 }, callback: target });
  await flush();
  const next = await h.engine.reset(started, 'prepare', 'again');
  assert.equal(h.reported, [{ run: { workflowId: 'cb-reset', runId: started.runId }, target }]);
  assert.is((await h.engine.describe(started)).status, 'terminated');
  await h.outcome(next);
  assert.equal(h.reported.at(-1), { run: next, target });
  assert.is(h.reported.length, 2);
  h.close();
});

test('a run started without a callback reports nothing', async () => {
  const h = recordingHarness();
  await h.outcome(await h.run(countdown, { n: 1 }));
  assert.equal(h.reported, []);
  h.close();
});

test('onRunCallback must be a function when given', () => {
  assert.throws(() => harness([], { onRunCallback: 'no' as never }), /onRunCallback must be a function/);
});

test('a delivery still retrying holds nothing of its run: the closed run is let go', async () => {
  // A receiver that is down: the delivery waits on its retry timer. On the durable store, where a closed run is not
  // kept in memory (the memory store keeps its closed runs).
  let retry: NodeJS.Timeout | undefined;
  const h = await durableHarness([prepareThenWait], { onRunCallback: () => new Promise<void>((resolve) => (retry = setTimeout(resolve, 60_000))) });
  const started = await h.engine.start({ workflowName: 'prepare_then_wait', catalog: 'main', workflowId: 'cb-held', input: { n: 1 }, callback: target });
  // Another run stays open, as on a server: with none, the engine lets go of its async contexts altogether.
  await h.engine.start({ workflowName: 'prepare_then_wait', catalog: 'main', workflowId: 'cb-other', input: { n: 2 } });
  await flush();
  // Made in a function of its own: a suspended async function may keep its temporaries.
  const weakly = () => new WeakRef((h.engine as unknown as { find(ref: PinnedRunRef): object }).find(started)!);
  const record = weakly();
  // The reply resumes the run in its own async context, where it closes and its callback becomes due.
  await h.engine.deliverFeedback('cb-held', { ok: true });
  assert.is((await h.outcome(started)).run.status, 'completed');
  const released = await collected(record);
  clearTimeout(retry);
  assert.ok(released, "the run's record is held while its callback's delivery goes on");
  h.close();
});

test.run();
