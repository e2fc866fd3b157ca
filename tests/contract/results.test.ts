import * as assert from 'uvu/assert';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, sep } from 'node:path';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectStatus,
  historyEvents,
  http,
  keys,
  LEGACY_ERROR_DETAILS_KEYS,
  RESULT_LEGACY_KEYS,
  RESULT_V2_KEYS,
  runsOfId,
  runAndWait,
  start,
  UUID,
  waitUntil,
  wf,
} from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import type { TestApi } from '../support/engines.js';

/** GET /workflow/{id}/result and /workflow/{id}/runs/{rid}/result, v2 and legacy, for every closing status. */
const test = contractSuite('results');

/** The error of every cancelled run (docs/api.md, Results). */
const CANCELLED = { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' };

/** Both shapes of the latest and the pinned result, each checked for its exact keys. */
async function results(api: TestApi, workflowId: string, runId: string) {
  const v2 = await http(api, 'GET', `${wf(workflowId)}/result`);
  expectStatus(v2, 200, 'v2 result');
  assert.equal(keys(v2.body), RESULT_V2_KEYS);
  assert.is(v2.body.v, '2');
  assert.is(v2.headers['deprecation'], undefined);
  const pinned = await http(api, 'GET', `${wf(workflowId, runId)}/result`);
  expectStatus(pinned, 200, 'pinned v2 result');
  assert.equal(keys(pinned.body), RESULT_V2_KEYS);
  const legacy = await http(api, 'GET', `${wf(workflowId)}/result?v=legacy`);
  expectStatus(legacy, 200, 'legacy result');
  assert.equal(keys(legacy.body), RESULT_LEGACY_KEYS);
  assert.match(legacy.headers['deprecation'] ?? '', /^@\d+$/);
  const pinnedLegacy = await http(api, 'GET', `${wf(workflowId, runId)}/result?v=legacy`);
  expectStatus(pinnedLegacy, 200, 'pinned legacy result');
  assert.equal(keys(pinnedLegacy.body), RESULT_LEGACY_KEYS);
  assert.match(pinnedLegacy.headers['deprecation'] ?? '', /^@\d+$/);
  if (legacy.body.errorDetails !== null) assert.equal(keys(legacy.body.errorDetails), LEGACY_ERROR_DETAILS_KEYS);
  return { v2: v2.body, pinned: pinned.body, legacy: legacy.body, pinnedLegacy: pinnedLegacy.body };
}

test('completed: output, input, and a local trace file that exists under TRACE_DIR/<workflowName>/', async ({ api }) => {
  const workflowId = uniqueId('res-done');
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 3 } });
  const { v2, pinned, legacy } = await results(api, workflowId, run.runId);
  for (const body of [v2, pinned]) {
    assert.is(body.workflowId, workflowId);
    assert.is(body.runId, run.runId);
    assert.is(body.status, 'completed');
    assert.equal(body.input, { n: 3 });
    assert.equal(body.output, { result: 8 });
    assert.is(body.error, null);
    assert.equal(keys(body.trace), ['local'], 'only the local destination exists; remote is omitted, not null');
  }
  const local: string = v2.trace.local;
  assert.ok(isAbsolute(local), `absolute trace path: ${local}`);
  assert.ok(local.startsWith(join(api.traceDir, 'arithmetic') + sep), `${local} is under TRACE_DIR/arithmetic/`);
  assert.ok((await stat(local)).isFile(), 'the trace file exists');
  const trace = JSON.parse(await readFile(local, 'utf8'));
  assert.is(trace.workflowId, workflowId);
  assert.is(trace.runId, run.runId);
  assert.equal(legacy.trace, { destinations: { local } });
  assert.equal(legacy.output, { result: 8 });
  assert.is(legacy.error, null);
  assert.is(legacy.errorDetails, null);
  assert.is(run.trace.local, local, 'POST /workflow/run names the same trace file');
});

test('failed in a step: error names the step as activityType; legacy errorDetails.activityId the same', async ({ api }) => {
  const workflowId = uniqueId('res-step-fail');
  const run = await runAndWait(api, { workflowName: 'fails_in_step', workflowId, input: { reason: 'duplicate' } });
  const { v2, pinned, legacy, pinnedLegacy } = await results(api, workflowId, run.runId);
  for (const body of [v2, pinned, run]) {
    assert.is(body.status, 'failed');
    assert.is(body.output, null);
    assert.is(body.error.name, 'InvoiceRejectedError');
    assert.is(body.error.message, 'invoice rejected: duplicate');
    assert.is(body.error.activityType, 'fails_in_step#reject_invoice');
  }
  for (const body of [legacy, pinnedLegacy]) {
    assert.is(body.status, 'failed');
    assert.is(body.output, null);
    assert.is(body.error, 'invoice rejected: duplicate');
    assert.is(body.errorDetails.name, 'InvoiceRejectedError');
    assert.is(body.errorDetails.message, 'invoice rejected: duplicate');
    assert.is(body.errorDetails.activityId, 'fails_in_step#reject_invoice');
    assert.ok(body.errorDetails.retryable === null || typeof body.errorDetails.retryable === 'boolean');
    assert.ok(body.errorDetails.cause === null || typeof body.errorDetails.cause === 'object');
    assert.not.match(JSON.stringify(body.errorDetails), /\bat .+:\d+:\d+/, 'no stack in the cause chain');
  }
});

test('failed in the workflow code: the error has no activityType; legacy activityId is null', async ({ api }) => {
  const workflowId = uniqueId('res-wf-fail');
  const run = await runAndWait(api, { workflowName: 'fails_in_workflow', workflowId, input: {} });
  const { v2, legacy } = await results(api, workflowId, run.runId);
  assert.is(v2.status, 'failed');
  assert.is(v2.error.name, 'RangeError');
  assert.is(v2.error.message, 'workflow code gave up');
  assert.not.ok('activityType' in v2.error, `no activityType: ${JSON.stringify(v2.error)}`);
  assert.is(legacy.error, 'workflow code gave up');
  assert.is(legacy.errorDetails.name, 'RangeError');
  assert.is(legacy.errorDetails.activityId, null);
});

test('legacy errorDetails: the sanitized cause chain (name and message per level, no stack) and retryable', async ({ api }) => {
  const caused = await runAndWait(api, { workflowName: 'fails_with_cause', workflowId: uniqueId('res-cause'), input: { amount: 5 } });
  const { legacy } = await results(api, caused.workflowId, caused.runId);
  assert.is(legacy.errorDetails.name, 'PaymentDeclinedError');
  assert.is(legacy.errorDetails.activityId, 'fails_with_cause#charge_card');
  const levels: { name: string; message: string }[] = [];
  for (let level = legacy.errorDetails.cause; level; level = level.cause) {
    levels.push({ name: level.name, message: level.message });
    assert.not.ok('stack' in level, 'no stack in the cause chain');
  }
  assert.equal(levels, [
    { name: 'RangeError', message: 'issuer timeout' },
    { name: 'TypeError', message: 'gateway unreachable for 5' },
  ]);
  assert.not.match(JSON.stringify(legacy), /\n\s+at /, 'no stack anywhere');

  const fatal = await runAndWait(api, { workflowName: 'fails_fatally', workflowId: uniqueId('res-fatal'), input: {} }, '?v=legacy');
  assert.is(fatal.status, 'failed');
  assert.is(fatal.errorDetails.retryable, false, 'a NonRetryableError is known not to be retryable');
  assert.is(fatal.errorDetails.activityId, 'fails_fatally#fatal_step');
});

test('cancelled: status cancelled, no output; legacy error and errorDetails null (only failed runs have them)', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'cleans_up_on_stop', {}, uniqueId('res-cancel'));
  expectStatus(await http(api, 'PATCH', `${wf(workflowId, runId)}/stop`), 200, 'stop');
  await waitUntil(api, workflowId, 'cancelled');
  const { v2, legacy } = await results(api, workflowId, runId);
  assert.is(v2.status, 'cancelled');
  assert.is(v2.output, null);
  assert.equal(v2.error, CANCELLED);
  assert.is(legacy.status, 'cancelled');
  assert.is(legacy.error, null);
  assert.is(legacy.errorDetails, null);
});

test('a stopped run\'s error is one name and shape on every engine, whatever the stop interrupted (a webhook wait here)', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('res-cancel-wait'));
  expectStatus(await http(api, 'PATCH', `${wf(workflowId, runId)}/stop`), 200, 'stop');
  await waitUntil(api, workflowId, 'cancelled');
  const { v2 } = await results(api, workflowId, runId);
  assert.equal(v2.error, CANCELLED);
});

test('terminated: status terminated, no output', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'sleeper', { ms: 3_600_000 }, uniqueId('res-term'));
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: 'results test' } }), 200);
  await waitUntil(api, workflowId, 'terminated');
  const { v2, legacy } = await results(api, workflowId, runId);
  assert.is(v2.status, 'terminated');
  assert.is(v2.output, null);
  assert.is(legacy.status, 'terminated');
  assert.is(legacy.errorDetails, null);
});

test('timed out: a run past its own time limit reports timed_out', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'times_out', workflowId: uniqueId('res-timeout'), input: {} });
  assert.is(run.status, 'timed_out');
  assert.is(run.output, null);
  const { v2 } = await results(api, run.workflowId, run.runId);
  assert.is(v2.status, 'timed_out');
  // Named with its limit on both engines (Temporal's started event holds the limit the run was given).
  assert.equal(v2.error, { name: 'WorkflowTimedOutError', message: 'The run exceeded its run timeout of 150 ms' });
  assert.equal(run.error, v2.error, 'the run-and-wait answer says the same');
});

test("timed out child: a child past its own run time limit ends timed_out, and its parent's call throws saying so", async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'parent_of_times_out', workflowId: uniqueId('res-child-timeout'), input: {}, timeout: 10 });
  assert.is(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(run.output, {
    name: 'ChildWorkflowFailedError',
    isChildWorkflowFailedError: true,
    status: 'timed_out',
    failure: { name: 'WorkflowTimedOutError', message: 'The run exceeded its run timeout of 150 ms' },
  });
});

test('continued_as_new: the pinned result of the first run of a chain', async ({ api }) => {
  const { workflowId, runId: firstRunId } = await start(api, 'countdown', { n: 2 }, uniqueId('res-can'));
  await waitUntil(api, workflowId, 'completed');
  const first = await http(api, 'GET', `${wf(workflowId, firstRunId)}/result`);
  expectStatus(first, 200);
  assert.equal(keys(first.body), RESULT_V2_KEYS);
  assert.is(first.body.runId, firstRunId);
  assert.is(first.body.status, 'continued_as_new');
  assert.equal(first.body.input, { n: 2 });
  assert.is(first.body.output, null);
  assert.is(first.body.error, null);
  const legacy = await http(api, 'GET', `${wf(workflowId, firstRunId)}/result?v=legacy`);
  expectStatus(legacy, 200);
  assert.is(legacy.body.status, 'continued_as_new');
  assert.is(legacy.body.errorDetails, null);
  const latest = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.is(latest.body.status, 'completed');
  assert.is.not(latest.body.runId, firstRunId);
  assert.equal(latest.body.input, { n: 2 }, 'the id form shows the input that started the chain');
  // Temporal's list may show a run a moment after it continued or closed (its visibility store lags): asked until it
  // shows the three.
  const runs = await eventually('the run list to show the chain\'s three runs', async () => {
    const listed = await runsOfId(api, 'countdown', workflowId);
    return listed.length >= 3 && listed;
  });
  assert.is(runs.length, 3);
});

test('child workflow: the parent completes with the child output; child events are in the parent history', async ({ api }) => {
  const workflowId = uniqueId('res-parent');
  const run = await runAndWait(api, { workflowName: 'parent', workflowId, input: { n: 2 } });
  assert.is(run.status, 'completed');
  assert.equal(run.output, { child: { result: 6 } });
  const events = await historyEvents(api, workflowId, run.runId);
  const types = events.map((event) => event.type);
  const started = types.indexOf('child_started');
  const completed = types.indexOf('child_completed');
  assert.ok(started !== -1, `child_started in ${types.join(', ')}`);
  assert.ok(completed > started, 'child_completed after child_started');
  assert.ok(types.indexOf('workflow_completed') > completed);
  const childId = events[started].attributes.childWorkflowId;
  assert.type(childId, 'string');
  // The child is an execution of its own, addressable through the path (its id may contain "/").
  const child = await http(api, 'GET', `${wf(childId)}/result`);
  expectStatus(child, 200, 'child result');
  assert.is(child.body.workflowId, childId);
  assert.equal(child.body.output, { result: 6 });
});

test('a child workflow no catalog serves: the parent gets ChildWorkflowFailedError saying it does not exist, and may catch it', async ({ api }) => {
  const doesNotExist = /Workflow "no_such_child_workflow" does not exist in catalog "main"/;
  const caught = await runAndWait(api, { workflowName: 'calls_missing_child', workflowId: uniqueId('res-ghost-caught'), input: { catch: true } });
  assert.is(caught.status, 'completed', JSON.stringify(caught.error));
  const { output } = caught;
  assert.is(output.name, 'ChildWorkflowFailedError');
  assert.is(output.isChildWorkflowFailedError, true);
  assert.is(output.status, 'failed');
  assert.is(output.childWorkflowId, `${caught.workflowId}/no_such_child_workflow-1`);
  assert.is(output.failure.name, 'WorkflowNotFoundError');
  assert.match(output.failure.message, doesNotExist);
  assert.is(output.cause.name, 'WorkflowNotFoundError', 'the cause says the workflow does not exist');
  assert.match(output.cause.message, doesNotExist);

  const workflowId = uniqueId('res-ghost');
  const failed = await runAndWait(api, { workflowName: 'calls_missing_child', workflowId, input: { catch: false } });
  assert.is(failed.status, 'failed');
  assert.is(failed.error.name, 'ChildWorkflowFailedError', 'uncaught, the parent fails with it');
  assert.match(failed.error.message, doesNotExist);
  const legacy = await http(api, 'GET', `${wf(workflowId)}/result?v=legacy`);
  expectStatus(legacy, 200);
  assert.is(legacy.body.errorDetails.name, 'ChildWorkflowFailedError');
  assert.is(legacy.body.errorDetails.cause.name, 'WorkflowNotFoundError');
  assert.match(legacy.body.errorDetails.cause.message, doesNotExist);
  const types = (await historyEvents(api, workflowId, failed.runId)).map((event) => event.type);
  assert.ok(types.includes('child_failed'), `child_failed in ${types.join(', ')}`);
});

test('a child whose workflow id has an open run: the parent gets ChildWorkflowFailedError naming it, on both engines', async ({ api }) => {
  const caught = await runAndWait(api, { workflowName: 'starts_child_twice', workflowId: uniqueId('res-child-twice'), input: {} });
  assert.is(caught.status, 'completed', JSON.stringify(caught.error));
  assert.equal(caught.output, {
    name: 'ChildWorkflowFailedError',
    isChildWorkflowFailedError: true,
    status: 'failed',
    failure: {
      name: 'WorkflowAlreadyStartedError',
      message: `Workflow ${caught.workflowId}/held is already running: a child needs a workflow id no open run has`,
      retryable: false,
    },
  });
  const refusals = (await historyEvents(api, caught.workflowId, caught.runId)).filter((event) => event.type === 'child_failed' && event.attributes.status === 'failed');
  assert.equal(
    refusals.map((event) => event.attributes),
    [{ childWorkflowId: `${caught.workflowId}/held`, status: 'failed', error: caught.output.failure }],
    "the refused start is in the parent's history",
  );
});

test('an open run has no result yet: 424 WorkflowNotCompletedError with its workflowId', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('res-open'));
  for (const path of [`${wf(workflowId)}/result`, `${wf(workflowId, runId)}/result`, `${wf(workflowId)}/result?v=legacy`]) {
    expectError(await http(api, 'GET', path), 424, 'WorkflowNotCompletedError', { workflowId });
  }
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200, 'clean up');
});

test('unknown execution or run: 404 WorkflowNotFoundError; a run id that is not a UUID: 400', async ({ api }) => {
  const missing = uniqueId('res-missing');
  expectError(await http(api, 'GET', `${wf(missing)}/result`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  const { workflowId } = await start(api, 'echo', { message: 'x' }, uniqueId('res-known'));
  await waitUntil(api, workflowId, 'completed');
  const otherRun = '3f1b0a52-4c1e-4f8e-9a4b-0d4f9d1c2b3a';
  expectError(await http(api, 'GET', `${wf(workflowId, otherRun)}/result`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
  expectError(await http(api, 'GET', `${wf(workflowId, 'not-a-uuid')}/result`), 400, 'ValidationError', { maybeWorkflowId: workflowId });
  assert.match(otherRun, UUID);
});

test.run();
