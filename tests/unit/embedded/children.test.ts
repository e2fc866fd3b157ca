import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { CancelledError, ChildWorkflowFailedError, step, workflow } from '../../../core/definition/index.js';
import { flush, harness } from './support.js';

const square = workflow({
  name: 'square',
  description: 'Squares a number, or fails on negative ones',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.object({ squared: z.number(), parentId: z.string().optional() }),
  fn: async ({ n }, ctx) => {
    if (n < 0) throw new RangeError('negative');
    return { squared: n * n, parentId: ctx.info.parent?.workflowId };
  },
});
const dozes = workflow({
  name: 'dozes',
  description: 'Sleeps for an hour',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => ctx.sleep(3_600_000),
});
const parent = workflow({
  name: 'parent',
  description: 'Runs children',
  inputSchema: z.object({ numbers: z.array(z.number()) }),
  outputSchema: z.unknown(),
  fn: async ({ numbers }, ctx) => {
    const results = [];
    for (const n of numbers) {
      try {
        results.push(await ctx.executeChild(square, { n }));
      } catch (error) {
        if (!(error instanceof ChildWorkflowFailedError)) throw error;
        const failed = error;
        results.push({ failed: failed.status, childWorkflowId: failed.childWorkflowId, cause: failed.failure?.message });
      }
    }
    return results;
  },
});
const parentOfSleeper = workflow({
  name: 'parent_of_sleeper',
  description: 'Waits on a sleeping child, by name, with an explicit id',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  runTimeoutMs: 1_800_000,
  fn: async (_input, ctx) => {
    try {
      return await ctx.executeChild('dozes', {}, { workflowId: 'the-sleeper' });
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      throw new Error(`caught ${(error as Error).name}`);
    }
  },
});
const grandparent = workflow({
  name: 'grandparent',
  description: 'Runs parent, which runs square',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => ctx.executeChild(parent, { numbers: [3] }),
});

const prepare = step({ name: 'prepare', fn: async () => 'ready' });
const preparesThenDelegates = workflow({
  name: 'prepares_then_delegates',
  description: 'One step, then a long child',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await prepare(undefined);
    return ctx.executeChild(dozes, {});
  },
});

test('a child runs with its own id, parent and root; the parent records it and gets its output', async () => {
  const h = harness([parent, square, grandparent]);
  const ref = await h.run(parent, { numbers: [2, -1] }, 'p');
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, [
    { squared: 4, parentId: 'p' },
    { failed: 'failed', childWorkflowId: 'p/square-2', cause: 'negative' },
  ]);
  const child = await h.engine.describe({ workflowId: 'p/square-1' });
  assert.equal(child.parent, { workflowId: 'p', runId: ref.runId });
  assert.equal(child.root, { workflowId: 'p', runId: ref.runId });
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  const childEvents = page.events.filter((e) => e.type.startsWith('child_'));
  assert.equal(childEvents.map((e) => e.type), ['child_started', 'child_completed', 'child_started', 'child_failed']);
  assert.equal(childEvents[0]?.attributes, { workflowName: 'square', childWorkflowId: 'p/square-1', childRunId: child.runId });
  assert.equal(childEvents[1]?.attributes, { childWorkflowId: 'p/square-1', childRunId: child.runId, output: { squared: 4, parentId: 'p' } });
  assert.equal(childEvents[3]?.attributes.status, 'failed');
  assert.equal(childEvents[3]?.attributes.error, { name: 'RangeError', message: 'negative' });
  const { page: childHistory } = await h.engine.historyPage({ workflowId: 'p/square-1' }, { pageSize: 5 });
  assert.is(childHistory.events[0]?.attributes.parentWorkflowId, 'p');

  const top = await h.run(grandparent, {}, 'g');
  await h.outcome(top);
  const grandchild = await h.engine.describe({ workflowId: 'g/parent-1/square-1' });
  assert.equal(grandchild.parent?.workflowId, 'g/parent-1');
  assert.equal(grandchild.root, { workflowId: 'g', runId: top.runId }, 'root is the top of the tree');
  h.close();
});

test('cancelling the parent cancels the child; the parent ends cancelled', async () => {
  const h = harness([parentOfSleeper, dozes]);
  const ref = await h.run(parentOfSleeper, {});
  await flush();
  await h.engine.cancel(ref);
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'cancelled');
  assert.is((await h.engine.describe({ workflowId: 'the-sleeper' })).status, 'cancelled');
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  assert.is(page.events.find((e) => e.type === 'child_failed')?.attributes.status, 'cancelled');
  h.close();
});

test('a child cancelled on its own fails the parent with ChildWorkflowFailedError', async () => {
  const h = harness([parentOfSleeper, dozes]);
  const ref = await h.run(parentOfSleeper, {});
  await flush();
  await h.engine.cancel({ workflowId: 'the-sleeper' });
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.message, 'caught ChildWorkflowFailedError', 'not a CancelledError: the parent did not ask');
  h.close();
});

test('terminating or timing out the parent terminates the child', async () => {
  const h = harness([parentOfSleeper, dozes]);
  const ref = await h.run(parentOfSleeper, {});
  await flush();
  await h.engine.terminate(ref, 'enough');
  const child = await h.engine.getOutcome({ workflowId: 'the-sleeper' });
  assert.is(child.run.status, 'terminated');
  assert.match(child.failure?.message ?? '', /Parent workflow .* closed: terminated/);

  const timed = await h.run(parentOfSleeper, {});
  await h.clock.advance(1_800_000);
  assert.is((await h.engine.describe(timed)).status, 'timed_out');
  assert.is((await h.engine.describe({ workflowId: 'the-sleeper' })).status, 'terminated');
  h.close();
});

test('resetting the parent terminates its open child; the new run starts the child again under the same id', async () => {
  const h = harness([preparesThenDelegates, dozes]);
  const ref = await h.run(preparesThenDelegates, {}, 'pd');
  await flush();
  const firstChild = await h.engine.describe({ workflowId: 'pd/dozes-1' });
  const reset = await h.engine.reset(ref, 'prepare', 'again');
  assert.is((await h.engine.describe(firstChild)).status, 'terminated');
  await flush();
  const secondChild = await h.engine.describe({ workflowId: 'pd/dozes-1' });
  assert.is.not(secondChild.runId, firstChild.runId);
  assert.equal(secondChild.parent, { workflowId: 'pd', runId: reset.runId });
  assert.is((await h.outcome(reset)).run.status, 'completed');
  h.close();
});

test('a child of a type the catalog does not serve fails the call with ChildWorkflowFailedError: the workflow does not exist', async () => {
  const h = harness([parentOfSleeper]);
  const outcome = await h.outcome(await h.run(parentOfSleeper, {}));
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.message, 'caught ChildWorkflowFailedError');
  h.close();
});

const parentOfElsewhere = workflow({
  name: 'parent_of_elsewhere',
  description: 'Starts a child in a catalog the engine does not serve',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    try {
      return await ctx.executeChild('dozes', {}, { catalog: 'nowhere' });
    } catch (error) {
      const failure = error instanceof ChildWorkflowFailedError ? error.failure : undefined;
      throw new Error(`caught ${(error as Error).name}: ${failure?.name}: ${failure?.message}`);
    }
  },
});

test('a child in a catalog the engine does not serve fails the call with ChildWorkflowFailedError, recorded as child_failed', async () => {
  const h = harness([parentOfElsewhere, dozes]);
  const ref = await h.run(parentOfElsewhere, {});
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.message, 'caught ChildWorkflowFailedError: CatalogNotAvailableError: Catalog "nowhere" is unknown to the engine');
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  const failed = page.events.filter((event) => event.type === 'child_failed');
  assert.is(failed.length, 1, 'the refusal is in the history, so a replay gives the code the same error');
  h.close();
});

test.run();
