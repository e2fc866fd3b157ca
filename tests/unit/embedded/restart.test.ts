import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';
import { durableHarness } from './durableSupport.js';
import { flush } from './support.js';
import { rejection } from '../../support/rejection.js';

/** What the durable embedded engine promises across a restart: runs found, resumed where they were, nothing repeated. */

const executions = new Map<string, number>();
const counted = (key: string): number => {
  executions.set(key, (executions.get(key) ?? 0) + 1);
  return executions.get(key)!;
};
const double = step({ name: 'double', fn: async (input: { key: string; n: number }) => (counted(`${input.key}:double:${input.n}`), input.n * 2) });

const twoSteps = workflow({
  name: 'two_steps',
  description: 'Doubles twice',
  inputSchema: z.object({ key: z.string(), n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ key, n }) => {
    const once = await double({ key, n });
    return { twice: await double({ key, n: once }) };
  },
});

const sleeper = workflow({
  name: 'sleeper',
  description: 'A step, ten minutes of sleep, a step',
  inputSchema: z.object({ key: z.string() }),
  outputSchema: z.unknown(),
  fn: async ({ key }, ctx) => {
    const first = await double({ key, n: 1 });
    await ctx.sleep(600_000);
    return { first, second: await double({ key, n: 5 }) };
  },
});

const dueOrder = workflow({
  name: 'due_order',
  description: 'Two timers at once: the shorter fires first',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    const fired: string[] = [];
    await Promise.all([ctx.sleep(5_000).then(() => fired.push('late')), ctx.sleep(1_000).then(() => fired.push('early'))]);
    return fired;
  },
});

const waiter = workflow({
  name: 'waiter',
  description: 'Sleeps a second, then waits for a reply',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await ctx.sleep(1_000);
    return { reply: await ctx.waitForWebhook() };
  },
});

const child = workflow({
  name: 'child',
  description: 'Sleeps, then answers',
  inputSchema: z.object({ key: z.string() }),
  outputSchema: z.unknown(),
  fn: async ({ key }, ctx) => {
    await ctx.sleep(2_000);
    return { child: await double({ key, n: 21 }) };
  },
});
const parent = workflow({
  name: 'parent',
  description: 'Runs the child and returns what it answered',
  inputSchema: z.object({ key: z.string() }),
  outputSchema: z.unknown(),
  fn: async ({ key }, ctx) => ({ fromChild: await ctx.executeChild(child, { key }) }),
});

let gateOpen: (() => void) | undefined;
let gatedAttempts = 0;
const gated = step({
  name: 'gated',
  retry: { maximumAttempts: 3, initialIntervalMs: 1_000 },
  fn: () => {
    gatedAttempts += 1;
    return new Promise<string>((resolve) => (gateOpen = () => resolve(`done on attempt ${gatedAttempts}`)));
  },
});
const inFlight = workflow({
  name: 'in_flight',
  description: 'A step still running when the process stops',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async () => ({ result: await gated(undefined) }),
});

const countdown = workflow({
  name: 'countdown',
  description: 'Sleeps and continues as new until zero',
  inputSchema: z.object({ left: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ left }, ctx) => {
    if (left === 0) return 'liftoff';
    await ctx.sleep(1_000);
    return ctx.continueAsNew({ left: left - 1 });
  },
});

const reserve = step({ name: 'reserve', fn: async () => 'reserved' });
const charge = step({ name: 'charge', fn: async () => 'charged' });
const ship = step({ name: 'ship', fn: async () => 'shipped' });
const orderV1 = workflow({
  name: 'order',
  description: 'reserve, sleep, charge',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await reserve(undefined);
    await ctx.sleep(60_000);
    return charge(undefined);
  },
});
const orderV2 = workflow({
  name: 'order',
  description: 'A changed version: ships instead of reserving first',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await ship(undefined);
    await ctx.sleep(60_000);
    return charge(undefined);
  },
});

test('a completed run is found after a restart: status, result, input, history, the runs list and a page token from before', async () => {
  const h = await durableHarness([twoSteps]);
  try {
    const ref = await h.run(twoSteps, { key: 'done', n: 3 }, 'done-1');
    assert.equal((await h.outcome(ref)).output, { twice: 12 });
    const firstPage = await h.engine.historyPage(ref, { pageSize: 3 });
    await h.restart();
    const after = await h.engine.getOutcome(ref);
    assert.is(after.run.status, 'completed');
    assert.equal(after.output, { twice: 12 });
    assert.equal(await h.engine.getInput(ref), { key: 'done', n: 3 });
    assert.equal(await h.types(ref), ['workflow_started', 'step_scheduled', 'step_started', 'step_completed', 'step_scheduled', 'step_started', 'step_completed', 'workflow_completed']);
    const next = await h.engine.historyPage(ref, { pageSize: 3, pageToken: firstPage.page.nextPageToken! });
    assert.equal(next.page.events.map((event) => event.eventId), [4, 5, 6]);
    assert.equal((await h.engine.listRuns({ limit: 10, status: 'completed' })).runs.map((run) => run.runId), [ref.runId]);
    assert.is((await h.engine.describe({ workflowId: 'done-1' })).runId, ref.runId);
  } finally {
    h.close();
  }
});

test('a sleeping run resumes with its own run id: the timer keeps its due time, and no completed step runs again', async () => {
  const h = await durableHarness([sleeper]);
  try {
    const ref = await h.run(sleeper, { key: 'sleep' }, 'sleep-1');
    await h.clock.advance(120_000);
    await h.restart({ downMs: 60_000 });
    assert.is(h.engine.openRunCount, 1);
    assert.is((await h.engine.describe(ref)).status, 'running');
    await h.clock.advance(400_000);
    await flush(10);
    assert.is((await h.engine.describe(ref)).status, 'running', 'not due yet: 9 of its 10 minutes have passed');
    await h.clock.advance(30_000);
    await flush(10);
    const outcome = await h.outcome(ref);
    assert.is(outcome.run.runId, ref.runId);
    assert.equal(outcome.output, { first: 2, second: 10 });
    assert.is(executions.get('sleep:double:1'), 1, 'the step completed before the restart did not run again');
    const events = (await h.engine.historyPage(ref, { pageSize: 200 })).page.events;
    assert.equal(events.map((event) => event.eventId), events.map((_event, index) => index + 1));
    assert.is(events.filter((event) => event.type === 'timer_started').length, 1);
    assert.is(events.filter((event) => event.type === 'timer_fired').length, 1);
  } finally {
    h.close();
  }
});

const takesJson = step({ name: 'takes_json', fn: async (input: unknown) => input });
const badInputThenSleep = workflow({
  name: 'bad_input_then_sleep',
  description: 'Catches the error of a step input that is no JSON value, then sleeps across a restart',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    let caught: unknown;
    try {
      await takesJson(10n);
    } catch (error) {
      caught = error;
    }
    await ctx.sleep(60_000);
    return { typeError: caught instanceof TypeError, name: (caught as Error).name };
  },
});

test('a step input that is no JSON value throws a TypeError, the same one when the run is replayed after a restart', async () => {
  const h = await durableHarness([badInputThenSleep]);
  try {
    const ref = await h.run(badInputThenSleep, {}, 'bad-input-1');
    await flush();
    await h.restart({ downMs: 120_000 });
    await flush(10);
    const outcome = await h.engine.awaitOutcome(ref, { timeoutMs: 5_000 });
    assert.equal(outcome?.output, { typeError: true, name: 'TypeError' });
  } finally {
    h.close();
  }
});

test('open runs of a workflow the restarted process does not serve wait for one that does, and it says so once', async () => {
  const h = await durableHarness([sleeper]);
  try {
    const ref = await h.run(sleeper, { key: 'unserved' }, 'unserved-1');
    await flush();
    await h.restart({ workflows: [twoSteps] });
    assert.is((await h.engine.describe(ref)).status, 'running');
    const said = h.logger.entries.filter((entry) => entry.level === 'warn' && entry.message.includes('does not serve here'));
    assert.is(said.length, 1, JSON.stringify(h.logger.entries.map((entry) => entry.message)));
    assert.equal(said[0]!.fields, { catalog: 'main', openRuns: { sleeper: 1 } });
  } finally {
    h.close();
  }
});

test('timers that fell due while the process was down fire at once, in due order', async () => {
  const h = await durableHarness([dueOrder]);
  try {
    const ref = await h.run(dueOrder, {}, 'due-1');
    await flush();
    await h.restart({ downMs: 60_000 });
    await flush(10);
    const outcome = await h.engine.awaitOutcome(ref, { timeoutMs: 5_000 });
    assert.equal(outcome?.output, ['early', 'late']);
    const fired = (await h.engine.historyPage(ref, { pageSize: 50 })).page.events.filter((event) => event.type === 'timer_fired');
    assert.equal(fired.map((event) => event.attributes.timerId), ['2', '1']);
  } finally {
    h.close();
  }
});

test('a webhook wait keeps waiting across a restart, and a reply buffered before it is still delivered', async () => {
  const h = await durableHarness([waiter]);
  try {
    const buffered = await h.run(waiter, {}, 'buffered-1');
    const waiting = await h.run(waiter, {}, 'waiting-1');
    await flush();
    // Sent while the run still sleeps: kept until it waits.
    await h.engine.deliverFeedback('buffered-1', { early: true });
    await h.restart();
    await h.clock.advance(2_000);
    await flush(10);
    assert.equal((await h.engine.awaitOutcome(buffered, { timeoutMs: 5_000 }))?.output, { reply: { early: true } });
    assert.is((await h.engine.describe(waiting)).status, 'running');
    await h.engine.deliverFeedback('waiting-1', { late: true });
    assert.equal((await h.engine.awaitOutcome(waiting, { timeoutMs: 5_000 }))?.output, { reply: { late: true } });
  } finally {
    h.close();
  }
});

test('a child is re-attached after a restart, never started a second time', async () => {
  const h = await durableHarness([parent, child]);
  try {
    const ref = await h.run(parent, { key: 'family' }, 'parent-1');
    await flush();
    await h.restart();
    const outcome = await h.outcome(ref);
    assert.equal(outcome.output, { fromChild: { child: 42 } });
    const types = await h.types(ref);
    assert.is(types.filter((type) => type === 'child_started').length, 1);
    assert.is(types.filter((type) => type === 'child_completed').length, 1);
    const children = (await h.engine.listRuns({ limit: 10, workflowName: 'child' })).runs;
    assert.is(children.length, 1, 'one run of the child');
    assert.is(executions.get('family:double:21'), 1);
  } finally {
    h.close();
  }
});

test('a step attempt in flight at the restart counts as failed ("the process stopped") and its retry policy runs it again', async () => {
  const h = await durableHarness([inFlight]);
  try {
    gatedAttempts = 0;
    const ref = await h.run(inFlight, {}, 'flight-1');
    await flush();
    assert.is(gatedAttempts, 1);
    await h.restart();
    await h.clock.advance(1_000);
    await flush(10);
    assert.is(gatedAttempts, 2, 'retried after its backoff');
    gateOpen?.();
    const outcome = await h.outcome(ref);
    assert.equal(outcome.output, { result: 'done on attempt 2' });
    const events = (await h.engine.historyPage(ref, { pageSize: 50 })).page.events;
    assert.equal(events.map((event) => event.type), ['workflow_started', 'step_scheduled', 'step_started', 'step_failed', 'step_started', 'step_completed', 'workflow_completed']);
    const failed = events.find((event) => event.type === 'step_failed');
    assert.is((failed?.attributes.error as { name: string }).name, 'ProcessStoppedError');
    assert.equal(events.filter((event) => event.type === 'step_started').map((event) => event.attributes.attempt), [1, 2]);
  } finally {
    h.close();
  }
});

test('a continue-as-new chain goes on after a restart; the id form of a result follows it to its end', async () => {
  const h = await durableHarness([countdown]);
  try {
    const ref = await h.run(countdown, { left: 3 }, 'chain-1');
    await h.clock.advance(1_000);
    await flush(10);
    await h.restart();
    const outcome = await h.outcome(ref);
    assert.equal(outcome.output, 'liftoff');
    assert.is(outcome.run.firstRunId, ref.runId);
    const runs = (await h.engine.listRuns({ limit: 10 })).runs;
    assert.equal(runs.map((run) => run.status), ['completed', 'continued_as_new', 'continued_as_new', 'continued_as_new']);
    assert.equal(await h.engine.getInput(ref), { left: 3 });
  } finally {
    h.close();
  }
});

test('a keyed start retried after a restart gets the same run', async () => {
  const h = await durableHarness([sleeper]);
  try {
    const idempotency = { key: 'k', fingerprint: 'f', requestId: 'request-1' };
    const first = await h.engine.start({ workflowName: 'sleeper', catalog: 'main', workflowId: 'keyed-1', input: { key: 'keyed' }, idempotency });
    await h.restart();
    const retried = await h.engine.start({ workflowName: 'sleeper', catalog: 'main', workflowId: 'keyed-1', input: { key: 'keyed' }, idempotency });
    assert.is(retried.runId, first.runId);
    assert.is((await h.engine.listRuns({ limit: 10 })).runs.length, 1);
  } finally {
    h.close();
  }
});

test('code changed between two starts so it no longer matches its history fails that run with NondeterminismError naming the command; other runs go on', async () => {
  const h = await durableHarness([orderV1, sleeper]);
  try {
    const changed = await h.run(orderV1, {}, 'order-1');
    const other = await h.run(sleeper, { key: 'other' }, 'other-1');
    await flush();
    await h.restart({ workflows: [orderV2, sleeper] });
    const failed = await h.outcome(changed);
    assert.is(failed.run.status, 'failed');
    assert.is(failed.failure?.name, 'NondeterminismError');
    assert.match(failed.failure?.message ?? '', /After a restart the workflow called step "ship" as command 1, but the original run called step "reserve" there/);
    assert.equal((await h.outcome(other)).output, { first: 2, second: 10 });
  } finally {
    h.close();
  }
});

test('runs open in the store wait for a worker that serves their workflow, and resume when one registers', async () => {
  const h = await durableHarness([sleeper]);
  try {
    const ref = await h.run(sleeper, { key: 'late-worker' }, 'late-1');
    await flush();
    await h.restart({ register: false });
    assert.is((await h.engine.describe(ref)).status, 'running', 'readable while no worker serves it');
    await h.clock.advance(700_000);
    await flush(10);
    assert.is((await h.engine.describe(ref)).status, 'running', 'its code does not run without a worker');
    h.engine.registerWorker({ catalog: 'main', workflows: [sleeper] });
    assert.equal((await h.outcome(ref)).output, { first: 2, second: 10 });
  } finally {
    h.close();
  }
});

test('a terminate, a cancel and feedback to a restored run work before and after it resumes', async () => {
  const h = await durableHarness([waiter, sleeper]);
  try {
    const stopped = await h.run(sleeper, { key: 'stopped' }, 'stopped-1');
    const terminated = await h.run(waiter, {}, 'terminated-1');
    await flush();
    await h.restart({ register: false });
    await h.engine.terminate(terminated, 'no longer needed');
    assert.is((await h.engine.describe(terminated)).status, 'terminated');
    await h.engine.cancel(stopped);
    h.engine.registerWorker({ catalog: 'main', workflows: [waiter, sleeper] });
    const outcome = await h.outcome(stopped);
    assert.is(outcome.run.status, 'cancelled');
    const error = await rejection(h.engine.deliverFeedback('terminated-1', {}));
    assert.is((error as Error).name, 'WorkflowClosedError');
  } finally {
    h.close();
  }
});

test('a reset of a closed run read back from the store replays it up to the point and runs the rest again', async () => {
  const h = await durableHarness([sleeper]);
  try {
    const ref = await h.run(sleeper, { key: 'reset' }, 'reset-1');
    await h.outcome(ref);
    await h.restart();
    const reset = await h.engine.reset(ref, 'double', 'again');
    assert.is(reset.workflowId, ref.workflowId);
    const outcome = await h.outcome(reset);
    assert.equal(outcome.output, { first: 2, second: 10 });
    assert.is(executions.get('reset:double:1'), 1, 'the step before the point was replayed');
    assert.is(executions.get('reset:double:5'), 1, 'the point is the last completion of the step: nothing after it ran');
    const types = await h.types(reset);
    assert.is(types.filter((type) => type === 'workflow_reset').length, 1);
    assert.is(types.at(-1), 'workflow_completed');
  } finally {
    h.close();
  }
});

test.run();
