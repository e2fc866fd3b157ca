import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { EmbeddedEngine } from '../../../adapters/embedded/index.js';
import { step, workflow } from '../../../core/definition/index.js';
import { CatalogNotAvailableError, FlowgateError } from '../../../core/domain/errors.js';
import { eventTypes, flush, harness, historyEvents } from './support.js';

const greet = step({ name: 'greet', fn: async (name: string) => `hello ${name}` });
const hello = workflow({
  name: 'hello',
  description: 'Greets',
  inputSchema: z.object({ name: z.string() }),
  outputSchema: z.object({ greeting: z.string() }),
  fn: async ({ name }) => ({ greeting: await greet(name) }),
});
const badOutput = workflow({
  name: 'bad_output',
  description: 'Returns something its schema refuses',
  inputSchema: z.object({}),
  outputSchema: z.object({ count: z.number() }),
  fn: async () => ({ count: 'many' }) as unknown as { count: number },
});
const mutatesInput = workflow({
  name: 'mutates_input',
  description: 'Mutates the input object it was given',
  inputSchema: z.object({ list: z.array(z.number()) }),
  outputSchema: z.object({ list: z.array(z.number()) }),
  fn: async (input) => {
    input.list.push(99);
    return input;
  },
});

async function rejection(promise: Promise<unknown>): Promise<FlowgateError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, FlowgateError);
    return error as FlowgateError;
  }
  throw new Error('expected a rejection');
}

test('start returns a running description and runs asynchronously', async () => {
  const h = harness([hello]);
  const run = await h.engine.start({ workflowName: 'hello', catalog: 'main', workflowId: 'greeter', input: { name: 'Ada' } });
  assert.is(run.status, 'running');
  assert.is(run.closedAt, null);
  assert.is(run.firstRunId, run.runId);
  assert.is(run.workflowName, 'hello');
  assert.is(run.catalog, 'main');
  assert.is(h.closedRuns.length, 0, 'nothing ran synchronously inside start');
  const outcome = await h.outcome(run);
  assert.is(outcome.run.status, 'completed');
  assert.equal(outcome.output, { greeting: 'hello Ada' });
  assert.ok(outcome.run.closedAt instanceof Date);
  assert.equal(await h.engine.getInput(run), { name: 'Ada' });
  const { page } = await h.engine.historyPage(run, { pageSize: 50 });
  assert.equal(page.events[0]?.attributes, { workflowName: 'hello', catalog: 'main', input: { name: 'Ada' } });
  assert.equal(page.events.map((e) => e.eventId), [1, 2, 3, 4, 5]);
  assert.equal(page.events.at(-1)?.attributes, { output: { greeting: 'hello Ada' } });
  h.close();
});

test('the closing event is at the run\'s closedAt, however long the close\'s own work (the trace written) takes', async () => {
  const slowClose = harness([hello], {
    onRunClosed: async () => {
      // The trace written as the run closes: 40 ms on a loaded machine.
      slowClose.clock.set(slowClose.clock.now() + 40);
    },
  });
  const ref = await slowClose.run(hello, { name: 'Ada' });
  const outcome = await slowClose.outcome(ref);
  const closing = (await historyEvents(slowClose.engine, ref)).at(-1)!;
  assert.is(closing.type, 'workflow_completed');
  assert.is(closing.time, outcome.run.closedAt!.toISOString());
});

test('an id with an open run is refused; a closed id may be reused', async () => {
  const h = harness([hello]);
  const first = await h.run(hello, { name: 'a' }, 'same');
  const duplicate = await rejection(h.run(hello, { name: 'b' }, 'same'));
  assert.is(duplicate.name, 'WorkflowAlreadyStartedError');
  assert.is(duplicate.workflowId, 'same');
  await h.outcome(first);
  const second = await h.run(hello, { name: 'c' }, 'same');
  assert.is.not(second.runId, first.runId);
  await h.outcome(second);
  assert.is((await h.engine.describe({ workflowId: 'same' })).runId, second.runId, 'unpinned = latest run');
  assert.is((await h.engine.describe(first)).runId, first.runId);
  h.close();
});

test('catalogs: unknown, without a live worker, and a type not served', async () => {
  const h = harness([hello]);
  const unknown = await rejection(h.engine.start({ workflowName: 'hello', catalog: 'nowhere', workflowId: 'x', input: {} }));
  assert.instance(unknown, CatalogNotAvailableError);
  assert.is(unknown.retryAfterSeconds, undefined);
  const worker = h.engine.registerWorker({ catalog: 'batch', workflows: [hello] });
  worker.stop();
  worker.stop();
  const unavailable = await rejection(h.engine.start({ workflowName: 'hello', catalog: 'batch', workflowId: 'x', input: {} }));
  assert.instance(unavailable, CatalogNotAvailableError);
  assert.is(unavailable.retryAfterSeconds, 5);
  const unsupported = await rejection(h.engine.start({ workflowName: 'bad_output', catalog: 'main', workflowId: 'x', input: {} }));
  assert.is(unsupported.name, 'UnsupportedWorkflowError');
  const badId = await rejection(h.engine.start({ workflowName: 'hello', catalog: 'main', workflowId: '', input: {} }));
  assert.is(badId.name, 'ValidationError');
  h.close();
});

test('invalid input and invalid output fail the run', async () => {
  const h = harness([hello, badOutput]);
  const invalidInput = await h.outcome(await h.run(hello, { name: 42 }));
  assert.is(invalidInput.run.status, 'failed');
  assert.is(invalidInput.failure?.name, 'ValidationError');
  assert.match(invalidInput.failure?.message ?? '', /name/);
  const invalidOutput = await h.outcome(await h.run(badOutput, {}));
  assert.is(invalidOutput.run.status, 'failed');
  assert.is(invalidOutput.failure?.name, 'OutputValidationError');
  const notJson = await rejection(h.run(hello, { name: 10n }));
  assert.is(notJson.name, 'ValidationError');
  h.close();
});

test('a command on a run that closed is refused as closed, naming its status, not as closing', async () => {
  const h = harness([badOutput]);
  const ref = await h.run(badOutput, {});
  assert.is((await h.outcome(ref)).run.status, 'failed');
  for (const command of [() => h.engine.cancel(ref), () => h.engine.terminate(ref, 'too late')]) {
    const refused = await rejection(command());
    assert.is(refused.name, 'WorkflowClosedError');
    assert.is(refused.message, `Workflow ${ref.workflowId} run ${ref.runId} is already closed (failed)`);
  }
  h.close();
});

test('values cross the engine boundary as JSON copies', async () => {
  const h = harness([mutatesInput]);
  const input = { list: [1], when: new Date(0) };
  const ref = await h.run(mutatesInput, input);
  const outcome = await h.outcome(ref);
  assert.equal(input.list, [1], 'the caller\'s object is untouched');
  assert.equal(await h.engine.getInput(ref), { list: [1], when: '1970-01-01T00:00:00.000Z' }, 'stored as JSON');
  assert.equal(outcome.output, { list: [1, 99] });
  h.close();
});

test('outcomes and inputs handed out are fresh copies', async () => {
  const h = harness([mutatesInput]);
  const ref = await h.run(mutatesInput, { list: [1] });
  const first = await h.outcome(ref);
  (first.output as { list: number[] }).list.push(7);
  ((await h.engine.getInput(ref)) as { list: number[] }).list.push(7);
  assert.equal((await h.engine.getOutcome(ref)).output, { list: [1, 99] });
  assert.equal(await h.engine.getInput(ref), { list: [1] });
  h.close();
});

test('close() abandons open runs: a step still in flight does not resume workflow code', async () => {
  let release = (): void => {};
  let resumed = false;
  const waits = step({ name: 'waits', fn: () => new Promise<string>((resolve) => (release = () => resolve('late'))) });
  const resumes = workflow({
    name: 'resumes',
    description: 'Notes whether it ever got past its step',
    inputSchema: z.object({}),
    outputSchema: z.unknown(),
    fn: async () => {
      await waits(undefined);
      resumed = true;
    },
  });
  const h = harness([resumes]);
  const ref = await h.run(resumes, {});
  await flush();
  const eventsBefore = (await eventTypes(h.engine, ref)).length;
  h.close();
  release();
  await flush();
  assert.is(resumed, false);
  assert.is((await eventTypes(h.engine, ref)).length, eventsBefore, 'nothing more recorded');
  assert.is((await h.engine.describe(ref)).status, 'running');
});

test('unknown ids and runs are WorkflowNotFoundError; an open run has no outcome yet', async () => {
  const h = harness([hello]);
  const missing = await rejection(h.engine.describe({ workflowId: 'ghost' }));
  assert.is(missing.name, 'WorkflowNotFoundError');
  assert.is(missing.workflowId, 'ghost');
  const ref = await h.run(hello, { name: 'x' });
  const wrongRun = await rejection(h.engine.getOutcome({ workflowId: ref.workflowId, runId: '00000000-0000-4000-8000-0000000000ff' }));
  assert.is(wrongRun.name, 'WorkflowNotFoundError');
  const otherWorkflowsRun = await rejection(h.engine.getInput({ workflowId: 'ghost', runId: ref.runId }));
  assert.is(otherWorkflowsRun.name, 'WorkflowNotFoundError');
  const open = await rejection(h.engine.getOutcome(ref));
  assert.is(open.name, 'WorkflowNotCompletedError');
  assert.is(open.workflowId, ref.workflowId);
  assert.is(open.runId, ref.runId);
  await h.outcome(ref);
  assert.is((await h.engine.getOutcome({ workflowId: ref.workflowId })).run.status, 'completed');
  h.close();
});

test('onRunClosed is awaited before the close becomes visible', async () => {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const seen: string[] = [];
  const h = harness([hello], {
    onRunClosed: async (closed) => {
      seen.push(`${closed.run.status}:${closed.run.closedAt instanceof Date}:${closed.steps.length}`);
      await gate;
    },
  });
  const ref = await h.run(hello, { name: 'x' });
  let resolved = false;
  const waiting = h.engine.awaitOutcome(ref, { timeoutMs: 60_000 }).then((outcome) => {
    resolved = true;
    return outcome;
  });
  await flush();
  assert.equal(seen, ['completed:true:1'], 'the hook got the final status, closedAt and the step');
  assert.is((await h.engine.describe(ref)).status, 'running');
  assert.not.ok((await eventTypes(h.engine, ref)).includes('workflow_completed'));
  assert.is((await rejection(h.engine.getOutcome(ref))).name, 'WorkflowNotCompletedError');
  assert.is(resolved, false);
  release();
  const outcome = await waiting;
  assert.is(outcome?.run.status, 'completed');
  assert.is((await eventTypes(h.engine, ref)).at(-1), 'workflow_completed');
  h.close();
});

test('a failing onRunClosed is logged with the run ids and does not block the close', async () => {
  const h = harness([hello], {
    onRunClosed: async () => {
      throw new Error('disk full');
    },
  });
  const ref = await h.run(hello, { name: 'x' });
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'completed');
  const line = h.logger.entries.find((l) => l.level === 'error');
  assert.equal(line?.fields, { workflowId: ref.workflowId, runId: ref.runId, error: 'disk full' });
  h.close();
});

test('the oldest closed runs are forgotten beyond maxClosedRuns', async () => {
  const h = harness([hello], { maxClosedRuns: 2 });
  const refs = [];
  for (const name of ['a', 'b', 'c']) {
    const ref = await h.run(hello, { name });
    await h.outcome(ref);
    refs.push(ref);
  }
  assert.is((await rejection(h.engine.describe(refs[0]!))).name, 'WorkflowNotFoundError');
  assert.is((await h.engine.describe(refs[2]!)).status, 'completed');
  const { runs } = await h.engine.listRuns({ limit: 10 });
  assert.is(runs.length, 2);
  h.close();
});

test('health answers until close(); close releases waiters and is idempotent', async () => {
  const h = harness([workflow({
    name: 'forever',
    description: 'Sleeps a day',
    inputSchema: z.object({}),
    outputSchema: z.unknown(),
    fn: async (_i, ctx) => ctx.sleep(86_400_000),
  })]);
  await h.engine.health(new AbortController().signal);
  const ref = await h.engine.start({ workflowName: 'forever', catalog: 'main', workflowId: 'f', input: {} });
  await flush();
  const waiting = h.engine.awaitOutcome(ref, { timeoutMs: 10_000_000 });
  h.engine.close();
  h.engine.close();
  assert.is(await waiting, undefined);
  assert.is(h.clock.pendingTimers, 0, 'every timer cleared');
  const error = await rejection(h.engine.health(new AbortController().signal));
  assert.is(error.name, 'EngineUnavailableError');
  assert.is((await rejection(h.engine.start({ workflowName: 'forever', catalog: 'main', workflowId: 'g', input: {} }))).name, 'EngineUnavailableError');
  const aborted = new AbortController();
  aborted.abort(new Error('gone'));
  const other = new EmbeddedEngine({ clock: h.clock, ids: { uuid: () => 'x' }, logger: h.logger, webhookSender: h.webhooks });
  try {
    await other.health(aborted.signal);
    assert.unreachable();
  } catch (reason) {
    assert.is((reason as Error).message, 'gone');
  }
  other.close();
});

test.run();
