import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { NonRetryableError, step, workflow } from '../../../core/definition/index.js';
import type { FlowgateError } from '../../../core/domain/errors.js';
import { eventTypes, flush, harness } from './support.js';
import { rejection } from '../../support/rejection.js';
import { eventually } from '../../support/eventually.js';

const calls: string[] = [];
let shipIsBroken = true;
const reserve = step({ name: 'reserve', fn: async (n: number) => (calls.push(`reserve:${n}`), n + 1) });
const charge = step({ name: 'charge', fn: async (n: number) => (calls.push(`charge:${n}`), n * 10) });
const ship = step({
  name: 'ship',
  retry: { maximumAttempts: 1 },
  fn: async (n: number) => {
    calls.push(`ship:${n}`);
    if (shipIsBroken) throw new Error('carrier down');
    return `shipped ${n}`;
  },
});
const optional = step({
  name: 'optional',
  fn: async () => {
    throw new NonRetryableError('not today');
  },
});

const order = workflow({
  name: 'order',
  description: 'reserve, sleep, charge, ship (ship fails while the carrier is down)',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }, ctx) => {
    const reserved = await reserve(n);
    const note = await optional(undefined).catch((error: Error) => error.message);
    await ctx.sleep(1000);
    const charged = await charge(reserved);
    return { shipped: await ship(charged), note };
  },
});
const orderV2 = workflow({
  name: 'order',
  description: 'A changed version that charges before reserving',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }) => ({ shipped: await ship(await reserve(await charge(n))) }),
});
const review = workflow({
  name: 'review',
  description: 'Waits for a reply, records it, waits for a second one and ships it',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    const first = await ctx.waitForWebhook<number>();
    await charge(first);
    const second = await ctx.waitForWebhook<number>();
    return { first, second, shipped: await ship(second) };
  },
});

const orderV3 = workflow({
  name: 'order',
  description: 'A changed version that stops after reserving',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ n }) => ({ reserved: await reserve(n) }),
});

const pendingLater: ((value: string) => void)[] = [];
let laterCalls = 0;
const later = step({
  name: 'later',
  fn: () => {
    laterCalls += 1;
    return new Promise<string>((resolve) => pendingLater.push(resolve));
  },
});
const mark = step({ name: 'mark', fn: async () => (calls.push('mark'), 'marked') });
const inParallel = workflow({
  name: 'in_parallel',
  description: 'A slow and a fast step at once',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async () => {
    const [slowResult, fastResult] = await Promise.all([later(undefined), mark(undefined)]);
    return { slowResult, fastResult };
  },
});

test('reset replays completed commands and runs the rest for real', async () => {
  const h = harness([order]);
  calls.length = 0;
  shipIsBroken = true;
  const ref = await h.run(order, { n: 1 }, 'order-1');
  const failed = await h.outcome(ref);
  assert.is(failed.run.status, 'failed');
  assert.equal(calls, ['reserve:1', 'charge:2', 'ship:20']);

  shipIsBroken = false;
  calls.length = 0;
  const reset = await h.engine.reset(ref, 'charge', 'carrier is back');
  assert.is(reset.workflowId, 'order-1');
  assert.is.not(reset.runId, ref.runId);
  const outcome = await h.outcome(reset);
  assert.is(outcome.run.status, 'completed');
  assert.equal(outcome.output, { shipped: 'shipped 20', note: 'Step order#optional failed: not today' });
  assert.equal(calls, ['ship:20'], 'reserve, optional, the timer and charge were replayed, not run');
  assert.is(outcome.run.firstRunId, ref.runId);

  const oldEvents = (await h.engine.historyPage(ref, { pageSize: 100 })).page.events;
  const newEvents = (await h.engine.historyPage(reset, { pageSize: 100 })).page.events;
  const chargeCompleted = oldEvents.find((e) => e.type === 'step_completed' && e.stepName === 'charge');
  const copied = newEvents.slice(0, chargeCompleted?.eventId);
  assert.equal(copied.slice(1), oldEvents.slice(1, chargeCompleted?.eventId), 'history copied up to the step completion');
  assert.equal(copied[0]?.attributes, { ...oldEvents[0]?.attributes, resetFromRunId: ref.runId });
  const resetEvent = newEvents[copied.length];
  assert.equal(resetEvent?.type, 'workflow_reset');
  assert.equal(resetEvent?.attributes, { reason: 'carrier is back', stepName: 'charge', resetFromRunId: ref.runId });
  assert.equal(newEvents.slice(copied.length + 1).map((e) => e.type), ['step_scheduled', 'step_started', 'step_completed', 'workflow_completed']);
  assert.equal(newEvents.map((e) => e.eventId), newEvents.map((_e, i) => i + 1));
  assert.equal(h.closedRuns.at(-1)?.steps.map((s) => s.name), ['reserve', 'optional', 'charge', 'ship'], 'the trace shows the whole run');
  h.close();
});

test('reset refuses unknown runs, steps that never ran and steps that never completed', async () => {
  const h = harness([order]);
  shipIsBroken = true;
  const ref = await h.run(order, { n: 1 });
  await h.outcome(ref);
  const unknownRun = await rejection(h.engine.reset({ workflowId: ref.workflowId, runId: '00000000-0000-4000-8000-00000000abcd' }, 'charge', ''));
  assert.is(unknownRun.name, 'WorkflowNotFoundError');
  assert.is((await rejection(h.engine.reset({ workflowId: 'ghost' }, 'charge', ''))).name, 'WorkflowNotFoundError');
  const notFound = await rejection(h.engine.reset(ref, 'refund', ''));
  assert.is(notFound.name, 'StepNotFoundError');
  assert.is(notFound.workflowId, ref.workflowId);
  assert.is((await rejection(h.engine.reset(ref, 'ship', ''))).name, 'StepNotCompletedError');
  assert.is((await rejection(h.engine.reset(ref, 'optional', ''))).name, 'StepNotCompletedError');
  h.close();
});

test('resetting while a run is open terminates it first', async () => {
  const h = harness([order]);
  shipIsBroken = false;
  calls.length = 0;
  const ref = await h.run(order, { n: 5 });
  await flush();
  assert.equal(calls, ['reserve:5'], 'now sleeping');
  const reset = await h.engine.reset({ workflowId: ref.workflowId }, 'reserve', 'redo');
  const old = await h.engine.getOutcome(ref);
  assert.is(old.run.status, 'terminated');
  assert.match(old.failure?.message ?? '', /Reset to after step "reserve".*redo/);
  const outcome = await h.outcome(reset);
  assert.equal(outcome.output, { shipped: 'shipped 60', note: 'Step order#optional failed: not today' });
  assert.equal(calls, ['reserve:5', 'charge:6', 'ship:60']);
  assert.is((await h.engine.describe({ workflowId: ref.workflowId })).runId, reset.runId);
  h.close();
});

test('concurrent resets, starts and terminates of one id leave exactly one open run (each reset terminates the one before)', async () => {
  const h = harness([order]);
  shipIsBroken = false;
  const ref = await h.run(order, { n: 5 });
  await flush();
  const settle = (promise: Promise<unknown>) => promise.then((value) => ({ value }), (error: FlowgateError) => ({ error }));
  const answers = await Promise.all([
    ...Array.from({ length: 10 }, () => settle(h.engine.reset(ref, 'reserve', 'race'))),
    settle(h.engine.start({ workflowName: 'order', catalog: 'main', workflowId: ref.workflowId, input: { n: 1 } })),
    settle(h.engine.terminate(ref, 'race')),
    ...Array.from({ length: 10 }, () => settle(h.engine.reset(ref, 'reserve', 'race'))),
  ]);
  const resets = [...answers.slice(0, 10), ...answers.slice(12)];
  for (const answer of resets) assert.ok('value' in answer, `every reset succeeds: ${JSON.stringify(answer)}`);
  assert.is((answers[10] as { error: FlowgateError }).error?.name, 'WorkflowAlreadyStartedError', 'the start found a run open');
  const { runs } = await h.engine.listRuns({ limit: 100 });
  const open = runs.filter((run) => run.status === 'running');
  assert.is(runs.length, 21);
  assert.is(open.length, 1, runs.map((run) => `${run.runId}:${run.status}`).join(', '));
  assert.is((await h.engine.describe({ workflowId: ref.workflowId })).runId, open[0]?.runId, 'the open run is the latest');
  for (const run of runs) if (run.runId !== open[0]?.runId) assert.is(run.status, 'terminated');
  h.close();
});

test('code that calls other commands than the original run fails with NondeterminismError', async () => {
  const h = harness([order]);
  shipIsBroken = true;
  const ref = await h.run(order, { n: 1 });
  await h.outcome(ref);
  h.engine.registerWorker({ catalog: 'main', workflows: [orderV2] });
  const reset = await h.engine.reset(ref, 'charge', 'new code');
  const outcome = await h.outcome(reset);
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.name, 'NondeterminismError');
  assert.match(outcome.failure?.message ?? '', /step "charge" as command 1.*step "reserve"/);
  h.close();
});

test('replies are re-delivered: consumed ones replay, later ones are buffered again', async () => {
  const h = harness([review]);
  shipIsBroken = true;
  const ref = await h.run(review, {});
  await h.engine.deliverFeedback(ref.workflowId, 1);
  await flush();
  await h.engine.deliverFeedback(ref.workflowId, 2);
  const failed = await h.outcome(ref);
  assert.is(failed.run.status, 'failed');

  shipIsBroken = false;
  const reset = await h.engine.reset(ref, 'charge', 'retry shipping');
  const outcome = await h.outcome(reset);
  assert.equal(outcome.output, { first: 1, second: 2, shipped: 'shipped 2' });
  const types = await eventTypes(h.engine, reset);
  const resetAt = types.indexOf('workflow_reset');
  assert.equal(types.slice(0, resetAt).filter((t) => t === 'signal_received').length, 1, 'the first reply is in the copied history');
  assert.is(types[resetAt + 1], 'signal_received', 'the second reply came after the point and is delivered again');

  shipIsBroken = true;
  const again = await h.engine.reset(reset, 'charge', 'and once more');
  shipIsBroken = false;
  const secondOutcome = await h.outcome(again);
  assert.equal(secondOutcome.output, { first: 1, second: 2, shipped: 'shipped 2' }, 'a reset of a reset run replays the same way');
  h.close();
});

test('a command called before the point but finished after it runs again for real', async () => {
  const h = harness([inParallel]);
  calls.length = 0;
  laterCalls = 0;
  const ref = await h.run(inParallel, {});
  await flush();
  assert.equal(calls, ['mark'], 'mark completed while later is still running');
  pendingLater.shift()?.('first');
  assert.equal((await h.outcome(ref)).output, { slowResult: 'first', fastResult: 'marked' });

  const reset = await h.engine.reset(ref, 'mark', 'redo the slow part');
  await flush();
  assert.is(laterCalls, 2, 'later was re-executed');
  assert.equal(calls, ['mark'], 'mark was replayed');
  pendingLater.shift()?.('second');
  assert.equal((await h.outcome(reset)).output, { slowResult: 'second', fastResult: 'marked' });
  h.close();
});

test('code that stops calling what the original run called before the point fails with NondeterminismError', async () => {
  const h = harness([order]);
  shipIsBroken = true;
  const ref = await h.run(order, { n: 1 });
  await h.outcome(ref);
  h.engine.registerWorker({ catalog: 'main', workflows: [orderV3] });
  const outcome = await h.outcome(await h.engine.reset(ref, 'charge', 'new code'));
  assert.is(outcome.failure?.name, 'NondeterminismError');
  assert.match(outcome.failure?.message ?? '', /ended without calling step "optional"/);
  h.close();
});

const slowStep = step({ name: 'slow', fn: () => new Promise<string>((resolve) => setTimeout(() => resolve('slow'), 30)) });
const fastStep = step({ name: 'fast', fn: async () => 'fast' });
// Slower than `slow`: by the time the winner is marked, both racers have completed (fast first, then slow).
const markWinner = step({ name: 'mark_winner', fn: (winner: string) => new Promise<string>((resolve) => setTimeout(() => resolve(`marked ${winner}`), 60)) });
const race = workflow({
  name: 'race',
  description: 'Races a slow step against a fast one and marks the winner',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async () => {
    const winner = await Promise.race([slowStep(undefined), fastStep(undefined)]);
    return { winner, marked: await markWinner(winner) };
  },
});

test('a reset hands recorded outcomes back in the order they completed, not the order they were called', async () => {
  const h = harness([race]);
  const ref = await h.run(race, {});
  // Its steps take real time (30 and 60 ms), which the harness's fake clock does not move: wait for the run to close.
  await eventually('the race to close', async () => (await h.engine.describe(ref)).status !== 'running', { intervalMs: 10 });
  assert.equal((await h.outcome(ref)).output, { winner: 'fast', marked: 'marked fast' });
  const reset = await h.engine.reset(ref, 'mark_winner', 'replay the race');
  const outcome = await h.outcome(reset);
  assert.equal(outcome.failure, null);
  assert.equal(outcome.output, { winner: 'fast', marked: 'marked fast' });
  h.close();
});

test.run();
