import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { evaluator, NonRetryableError, step, StepFailedError, workflow } from '../../../core/definition/index.js';
import { flush, harness } from './support.js';
import { ODD_THROWN_AS, ODD_THROWS } from '../../fixtures/oddValues.js';

const attemptTimes: number[] = [];
let flakyFailures = 0;
const flaky = step({
  name: 'flaky',
  retry: { maximumAttempts: 4, initialIntervalMs: 100, backoffCoefficient: 2 },
  fn: async (input: { n: number }) => {
    attemptTimes.push(Date.now());
    if (flakyFailures > 0) {
      flakyFailures -= 1;
      throw new Error('temporarily down');
    }
    return { doubled: input.n * 2 };
  },
});
const fatal = step({
  name: 'fatal',
  fn: async () => {
    throw new NonRetryableError('invoice rejected');
  },
});
const namedFatal = step({
  name: 'named_fatal',
  retry: { nonRetryableErrorNames: ['RangeError'] },
  fn: async () => {
    throw new RangeError('out of range');
  },
});
const slow = step({
  name: 'slow',
  timeoutMs: 50,
  retry: { maximumAttempts: 2, initialIntervalMs: 10 },
  fn: () => new Promise<never>(() => {}),
});
const judge = evaluator({ name: 'judge', fn: async (text: string) => ({ score: text.length }) });
const typed = step({ name: 'typed', inputSchema: z.object({ id: z.string() }), fn: async (input: { id: string }) => input.id });

const callsFlaky = workflow({
  name: 'calls_flaky',
  description: 'One flaky step',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async (input) => flaky(input),
});
const catchesFailure = workflow({
  name: 'catches_failure',
  description: 'Reports the StepFailedError it caught',
  inputSchema: z.object({ which: z.enum(['fatal', 'named_fatal', 'slow', 'typed']) }),
  outputSchema: z.unknown(),
  fn: async ({ which }) => {
    try {
      if (which === 'fatal') await fatal(undefined);
      if (which === 'named_fatal') await namedFatal(undefined);
      if (which === 'slow') await slow(undefined);
      if (which === 'typed') await typed({ id: 7 } as unknown as { id: string });
      return null;
    } catch (error) {
      assert.instance(error, StepFailedError);
      const failed = error as StepFailedError;
      return { activityType: failed.activityType, failure: failed.failure };
    }
  },
});
const evaluates = workflow({
  name: 'evaluates',
  description: 'Calls an evaluator and two steps in parallel',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async () => {
    const [a, b] = await Promise.all([judge('four'), judge('seven!!')]);
    return { a, b };
  },
});

test('a step call is recorded: scheduled, started, completed, with its trace entry', async () => {
  const h = harness([callsFlaky]);
  flakyFailures = 0;
  const ref = await h.run(callsFlaky, { n: 21 });
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, { doubled: 42 });
  const { page } = await h.engine.historyPage(ref, { pageSize: 10 });
  const [scheduled, started, completed] = page.events.slice(1);
  assert.is(scheduled?.type, 'step_scheduled');
  assert.is(scheduled?.stepName, 'flaky');
  assert.equal(scheduled?.attributes, { activityType: 'calls_flaky#flaky', kind: 'step', input: { n: 21 } });
  assert.equal(started?.attributes, { attempt: 1 });
  assert.equal(completed?.attributes, { attempt: 1, output: { doubled: 42 } });
  const trace = h.closedRuns[0]?.steps;
  assert.equal(trace?.map(({ name, kind, input, output, error, attempt }) => ({ name, kind, input, output, error, attempt })), [
    { name: 'flaky', kind: 'step', input: { n: 21 }, output: { doubled: 42 }, error: null, attempt: 1 },
  ]);
  assert.ok(trace?.[0]?.endedAt);
  h.close();
});

test('failed attempts are retried with exponential backoff on the clock', async () => {
  const h = harness([callsFlaky]);
  const realNow = Date.now;
  Date.now = () => h.clock.now();
  try {
    attemptTimes.length = 0;
    flakyFailures = 2;
    const ref = await h.run(callsFlaky, { n: 1 });
    await flush();
    assert.is(attemptTimes.length, 1);
    await h.clock.advance(99);
    assert.is(attemptTimes.length, 1, 'no retry before the initial interval');
    await h.clock.advance(1);
    assert.is(attemptTimes.length, 2);
    await h.clock.advance(199);
    assert.is(attemptTimes.length, 2, 'second delay is doubled');
    await h.clock.advance(1);
    assert.is(attemptTimes.length, 3);
    const outcome = await h.outcome(ref);
    assert.equal(outcome.output, { doubled: 2 });
    const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
    const stepEvents = page.events.filter((e) => e.stepName === 'flaky').map((e) => `${e.type}:${String(e.attributes.attempt ?? '')}`);
    assert.equal(stepEvents, ['step_scheduled:', 'step_started:1', 'step_failed:1', 'step_started:2', 'step_failed:2', 'step_started:3', 'step_completed:3']);
    assert.equal(page.events.find((e) => e.type === 'step_failed')?.attributes.error, { name: 'Error', message: 'temporarily down' });
    assert.is(h.closedRuns[0]?.steps[0]?.attempt, 3);
  } finally {
    Date.now = realNow;
    h.close();
  }
});

test('a step that runs out of attempts fails the run with the original error and its activity type', async () => {
  const h = harness([callsFlaky]);
  flakyFailures = 10;
  const outcome = await h.outcome(await h.run(callsFlaky, { n: 1 }));
  assert.is(outcome.run.status, 'failed');
  assert.equal(outcome.failure, { name: 'Error', message: 'temporarily down', retryable: true, activityType: 'calls_flaky#flaky' });
  assert.is(h.closedRuns[0]?.steps[0]?.attempt, 4);
  assert.is(h.closedRuns[0]?.steps[0]?.error?.name, 'Error');
  h.close();
});

test('non-retryable errors fail at once; StepFailedError carries the serialized last failure', async () => {
  const h = harness([catchesFailure]);
  const fatalResult = await h.outcome(await h.run(catchesFailure, { which: 'fatal' }));
  assert.equal(fatalResult.output, {
    activityType: 'catches_failure#fatal',
    failure: { name: 'NonRetryableError', message: 'invoice rejected', retryable: false },
  });
  const named = await h.outcome(await h.run(catchesFailure, { which: 'named_fatal' }));
  assert.equal(named.output, {
    activityType: 'catches_failure#named_fatal',
    failure: { name: 'RangeError', message: 'out of range', retryable: false },
  });
  const invalid = await h.outcome(await h.run(catchesFailure, { which: 'typed' }));
  assert.is((invalid.output as { failure: { name: string } }).failure.name, 'StepInputValidationError');
  for (const closed of h.closedRuns) assert.is(closed.steps[0]?.attempt, 1);
  h.close();
});

test('an attempt longer than timeoutMs fails with StepTimeoutError and is retried', async () => {
  const h = harness([catchesFailure]);
  const ref = await h.run(catchesFailure, { which: 'slow' });
  const outcome = await h.outcome(ref);
  const failure = (outcome.output as { failure: { name: string; message: string; retryable: boolean } }).failure;
  assert.is(failure.name, 'StepTimeoutError');
  assert.is(failure.retryable, true);
  assert.match(failure.message, /timed out after 50 ms/);
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  assert.is(page.events.filter((e) => e.type === 'step_failed').length, 2);
  h.close();
});

test('evaluators are recorded with their kind; parallel calls each get an entry', async () => {
  const h = harness([evaluates]);
  const outcome = await h.outcome(await h.run(evaluates, {}));
  assert.equal(outcome.output, { a: { score: 4 }, b: { score: 7 } });
  assert.equal(h.closedRuns[0]?.steps.map((s) => [s.kind, s.input]), [['evaluator', 'four'], ['evaluator', 'seven!!']]);
  h.close();
});

test('replaceSteps: a call runs the replacement, keeping the step\'s retries, schemas, history and trace', async () => {
  const h = harness([]);
  let replacementCalls = 0;
  h.engine.registerWorker({
    catalog: 'replaced',
    workflows: [callsFlaky, catchesFailure],
    replaceSteps: new Map<string, (input: any) => unknown>([
      [
        'flaky',
        (input: { n: number }) => {
          replacementCalls += 1;
          if (replacementCalls === 1) throw new Error('replacement down once');
          return { doubled: input.n * 100 };
        },
      ],
      ['typed', () => 'never reached: the input schema refuses first'],
    ]),
  });
  flakyFailures = 0;
  attemptTimes.length = 0;
  const start = (workflowName: string, input: unknown) =>
    h.engine.start({ workflowName, catalog: 'replaced', workflowId: `replaced-${workflowName}`, input });
  const ref = await start('calls_flaky', { n: 2 });
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, { doubled: 200 });
  assert.is(attemptTimes.length, 0, 'the real step never ran');
  assert.is(replacementCalls, 2, 'the step\'s retry policy still applies');
  assert.equal(h.closedRuns.at(-1)?.steps.map(({ name, output, attempt }) => ({ name, output, attempt })), [{ name: 'flaky', output: { doubled: 200 }, attempt: 2 }]);
  const typed = await h.outcome(await start('catches_failure', { which: 'typed' }));
  assert.is((typed.output as { failure: { name: string } }).failure.name, 'StepInputValidationError', 'the step\'s input schema still applies');
  h.close();
});

test('replaceSteps must map names to functions', () => {
  const h = harness([]);
  assert.throws(() => h.engine.registerWorker({ catalog: 'x', workflows: [], replaceSteps: new Map([['flaky', 'nope' as never]]) }), /replaceSteps must be a Map of step name to function/);
  h.close();
});

test('a step called outside any run simply runs', async () => {
  const h = harness([callsFlaky]);
  flakyFailures = 0;
  assert.equal(await flaky({ n: 5 }), { doubled: 10 });
  await assert.not.throws(async () => typed({ id: 'x' }));
  h.close();
});

const throwsOddly = step({ name: 'throws_oddly', retry: { maximumAttempts: 2, initialIntervalMs: 1 }, fn: async (kind: string) => { throw ODD_THROWS[kind]!(); } });
const oddStep = workflow({ name: 'odd_step', inputSchema: z.object({ kind: z.string() }), outputSchema: z.unknown(), fn: async ({ kind }) => throwsOddly(kind) });
const oddWorkflow = workflow({ name: 'odd_workflow', inputSchema: z.object({ kind: z.string() }), outputSchema: z.unknown(), fn: async ({ kind }) => { throw ODD_THROWS[kind]!(); } });

test('whatever a step or a workflow throws fails its run with a name and a message that are text, never the engine', async () => {
  const h = harness([oddStep, oddWorkflow]);

  try {
    for (const [kind, failure] of Object.entries(ODD_THROWN_AS)) {
      const fromStep = await h.outcome(await h.run(oddStep, { kind }));
      assert.is(fromStep.run.status, 'failed', kind);
      assert.equal({ name: fromStep.failure?.name, message: fromStep.failure?.message }, failure, `step: ${kind}`);
      assert.is(fromStep.failure?.activityType, 'odd_step#throws_oddly', kind);
      const fromWorkflow = await h.outcome(await h.run(oddWorkflow, { kind }));
      assert.is(fromWorkflow.run.status, 'failed', kind);
      assert.equal({ name: fromWorkflow.failure?.name, message: fromWorkflow.failure?.message }, failure, `workflow: ${kind}`);
    }
  } finally {
    h.close();
  }
});

const returnsBigInt = step({ name: 'returns_bigint', retry: { maximumAttempts: 3, initialIntervalMs: 1 }, fn: async () => ({ total: 10n }) });
const bigIntStep = workflow({ name: 'bigint_step', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => returnsBigInt(undefined) });

test("a step's result that is not JSON fails the step as StepOutputValidationError, once: not retried as the step's own TypeError", async () => {
  const h = harness([bigIntStep]);
  try {
    const outcome = await h.outcome(await h.run(bigIntStep, {}));
    assert.is(outcome.run.status, 'failed');
    assert.equal(outcome.failure, {
      name: 'StepOutputValidationError',
      message: 'Output of step returns_bigint is not JSON: Do not know how to serialize a BigInt',
      retryable: false,
      activityType: 'bigint_step#returns_bigint',
    });
    assert.is(h.closedRuns[0]?.steps[0]?.attempt, 1);
  } finally {
    h.close();
  }
});

test.run();
