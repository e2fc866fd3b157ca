import * as assert from 'uvu/assert';
import { isAbsolute, join, sep } from 'node:path';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { uniqueId } from '../support/http.js';
import { LATE_RETURN_MS } from '../fixtures/steps/contract.js';
import { contractSuite, expectError, expectStatus, historyEvents, http, ISO_UTC, keys, runAndWait, start, waitUntil, wf } from '../support/contract.js';

/** GET /workflow/{id}/runs/{rid}/trace-log */
const test = contractSuite('trace log');

const STEP_KEYS = ['attempt', 'endedAt', 'error', 'input', 'kind', 'name', 'output', 'startedAt'];

test('a closed run with a local trace: source local, localPath and the data with every step', async ({ api }) => {
  const workflowId = uniqueId('tr-done');
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 1 } });
  const response = await http(api, 'GET', `${wf(workflowId, run.runId)}/trace-log`);
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['data', 'localPath', 'runId', 'source']);
  assert.is(response.body.source, 'local');
  assert.is(response.body.runId, run.runId);
  const localPath: string = response.body.localPath;
  assert.ok(isAbsolute(localPath));
  assert.ok(localPath.startsWith(join(api.traceDir, 'arithmetic') + sep), `${localPath} is under TRACE_DIR/arithmetic/`);
  assert.ok((await stat(localPath)).isFile());
  assert.is(localPath, run.trace.local, 'the same file the result names');

  const data = response.body.data;
  assert.is(data.workflowId, workflowId);
  assert.is(data.workflowName, 'arithmetic');
  assert.equal(data.input, { n: 1 });
  assert.equal(data.output, { result: 4 });
  assert.is(data.error, null);
  assert.match(data.startedAt, ISO_UTC);
  assert.match(data.closedAt, ISO_UTC);
  assert.equal(data.steps.map((step: { name: string }) => step.name), ['add_one', 'double']);
  for (const step of data.steps) {
    assert.equal(keys(step), STEP_KEYS);
    assert.is(step.kind, 'step');
    assert.is(step.error, null);
    assert.is(step.attempt, 1);
    assert.match(step.startedAt, ISO_UTC);
    assert.match(step.endedAt, ISO_UTC);
    assert.ok(Date.parse(step.endedAt) >= Date.parse(step.startedAt));
  }
  assert.equal([data.steps[0].input, data.steps[0].output], [1, 2]);
  assert.equal([data.steps[1].input, data.steps[1].output], [2, 4]);
});

test('a step called without input: the trace is served whole, its input null; its history event has no input', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'fails_fatally', workflowId: uniqueId('tr-no-input'), input: {} });
  const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/trace-log`);
  expectStatus(response, 200);
  assert.ok('data' in response.body, 'the trace is read back, not refused as corrupt');
  assert.equal(response.body.data.steps.map((step: { name: string; input: unknown }) => [step.name, step.input]), [['fatal_step', null]]);
  const scheduled = (await historyEvents(api, run.workflowId, run.runId)).find((event) => event.type === 'step_scheduled');
  assert.equal(scheduled?.attributes, { activityType: 'fails_fatally#fatal_step', kind: 'step' }, 'an undefined payload is left out, on both engines');
});

test('a step whose attempts time out: its error names the attempt and the limit, the trace ends it timed out, a late return changes nothing', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'step_times_out', workflowId: uniqueId('tr-timeout'), input: {} });
  const timedOut = { name: 'StepTimeoutError', message: 'Step step_times_out#sleeps_past_its_limit attempt 2 timed out after 200 ms' };
  assert.is(run.status, 'failed');
  assert.equal(run.error, { ...timedOut, retryable: true, activityType: 'step_times_out#sleeps_past_its_limit' });
  const failures = (await historyEvents(api, run.workflowId, run.runId)).filter((event) => event.type === 'step_failed');
  assert.equal(failures.at(-1)?.attributes, { attempt: 2, error: timedOut });
  // The attempts' functions return LATE_RETURN_MS after they began: after that the trace must still say it timed out.
  await new Promise((resolve) => setTimeout(resolve, LATE_RETURN_MS + 500));
  const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/trace-log`);
  expectStatus(response, 200);
  const [step] = response.body.data.steps;
  assert.equal([step.name, step.attempt, step.output], ['sleeps_past_its_limit', 2, null]);
  assert.equal(step.error, run.error, "the step's error as the run's result has it");
  assert.type(step.endedAt, 'string');
});

test('a failed step is in the trace with its error', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'fails_in_step', workflowId: uniqueId('tr-failed'), input: { reason: 'r' } });
  const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/trace-log`);
  expectStatus(response, 200);
  const { data } = response.body;
  assert.is(data.error.name, 'InvoiceRejectedError');
  assert.is(data.steps.length, 1);
  assert.equal(keys(data.steps[0]), STEP_KEYS);
  assert.is(data.steps[0].name, 'reject_invoice');
  assert.is(data.steps[0].error.name, 'InvoiceRejectedError');
  assert.is(data.steps[0].error.message, 'invoice rejected: r');
  assert.type(data.steps[0].error.retryable, 'boolean', 'whether the failure is of a kind worth retrying, on both engines');
  assert.is(data.steps[0].error.retryable, run.error.retryable, "as the run's result says it");
  assert.is(data.steps[0].output, null);
});

const longIds = (tag: string): string[] => [`${tag}${'l'.repeat(1000 - tag.length)}`, `${tag}-${'ü'.repeat(60)}`, `${tag}-${'m'.repeat(200)}`];

test('long workflow ids (up to 1000 characters, or multi-byte ones) keep their trace', async ({ api }) => {
  for (const workflowId of longIds(uniqueId('tr-long'))) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: 'long id' } });
    const response = await http(api, 'GET', `${wf(workflowId, run.runId)}/trace-log`);
    expectStatus(response, 200, `trace-log for a ${workflowId.length}-character id`);
    assert.is(response.body.data.workflowId, workflowId);
    assert.is(run.trace.local, response.body.localPath, 'the result names the same trace');
  }
});

test('a workflow id that climbs ("../", absolute, encoded, backslashes) keeps its trace inside TRACE_DIR', async ({ api }) => {
  const suffix = uniqueId('x');
  // (A bare ".." id is covered by tests/unit/traceKey.test.ts: WHATWG URL clients normalise even "%2E%2E" away.)
  for (const workflowId of [`../../../tmp/${suffix}`, `/etc/${suffix}`, `..%2F..%2F${suffix}`, `.${suffix}`, `..\\..\\${suffix}`]) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: 'climb' } });
    const localPath: string = run.trace.local;
    assert.ok(localPath.startsWith(join(api.traceDir, 'echo') + sep), `${JSON.stringify(workflowId)}: ${localPath} stays under TRACE_DIR/echo/`);
    assert.not.ok(localPath.slice(api.traceDir.length).split(sep).includes('..'));
    const response = await http(api, 'GET', `${wf(workflowId, run.runId)}/trace-log`);
    expectStatus(response, 200, workflowId);
    assert.is(response.body.localPath, localPath);
    assert.is(response.body.data.workflowId, workflowId);
  }
});

test('trace-log of a closed run never answers 5xx: the trace, or 404 TraceNotFoundError', async ({ api }) => {
  for (const workflowId of longIds(uniqueId('tr-5xx'))) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: 'long id' } });
    const response = await http(api, 'GET', `${wf(workflowId, run.runId)}/trace-log`);
    if (response.status !== 200) expectError(response, 404, 'TraceNotFoundError', { maybeWorkflowId: workflowId });
  }
});

test('a corrupt trace file (truncated, or JSON that is not a trace) answers as an unreadable one: 200, localPath, no data', async ({ api }) => {
  const corruptions: [string, (text: string) => string][] = [
    ['truncated', (text) => text.slice(0, Math.floor(text.length / 2))],
    ['empty', () => ''],
    ['a JSON array', () => '[1, 2, 3]'],
    ['an object that is not a trace', () => '{"hello": "world"}'],
    ['a trace whose steps are not steps', (text) => JSON.stringify({ ...JSON.parse(text), steps: [1] })],
  ];
  for (const [what, corrupt] of corruptions) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('tr-corrupt'), input: { message: what } });
    const localPath: string = run.trace.local;
    await writeFile(localPath, corrupt(await readFile(localPath, 'utf8')));
    const response = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/trace-log`);
    expectStatus(response, 200, `trace-log of a ${what} trace file`);
    assert.equal(response.body, { source: 'local', runId: run.runId, localPath }, what);
    const warning = api.logs.find((line) => line.level === 'warn' && line.runId === run.runId && /corrupt trace/.test(line.msg));
    assert.ok(warning, `a warning names the run (${what})`);
    assert.is(warning!.workflowId, run.workflowId);
    assert.is(warning!.location, localPath);
    // The result still names the file: it is there, only not readable as a trace.
    const result = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/result`);
    assert.equal(result.body.trace, { local: localPath });
  }
});

test('a stopped run: the trace holds the clean-up step and the cancelled run\'s error', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'cleans_up_on_stop', {}, uniqueId('tr-cancel'));
  expectStatus(await http(api, 'PATCH', `${wf(workflowId, runId)}/stop`), 200);
  await waitUntil(api, workflowId, 'cancelled');
  const response = await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`);
  expectStatus(response, 200);
  const cleanUp = response.body.data.steps.find((step: { name: string }) => step.name === 'clean_up');
  assert.ok(cleanUp, 'clean_up is in the trace');
  assert.equal(cleanUp.output, { cleaned: 'scratch space' });
  assert.is(response.body.data.output, null);
  assert.equal(response.body.data.error, { name: 'WorkflowCancelledError', message: 'The workflow run was cancelled' }, 'the error its result reports');
});

test('an open run: 424 WorkflowNotCompletedError with its workflowId', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('tr-open'));
  expectError(await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`), 424, 'WorkflowNotCompletedError', { workflowId });
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
  if (api.engine === 'temporal') {
    // Documented difference (docs/api.md, Trace log): on Temporal a terminated run never runs workflow code again,
    // so no worker can write its trace.
    expectError(await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`), 404, 'TraceNotFoundError', { workflowId });
  } else {
    expectStatus(await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`), 200, 'once closed, the trace is there');
  }
});

test('unknown run: 404; a run id that is not a UUID: 400', async ({ api }) => {
  const missing = uniqueId('tr-missing');
  const rid = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
  expectError(await http(api, 'GET', `${wf(missing, rid)}/trace-log`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('tr-known'), input: { message: 'x' } });
  expectError(await http(api, 'GET', `${wf(run.workflowId, rid)}/trace-log`), 404, 'WorkflowNotFoundError', {
    maybeWorkflowId: run.workflowId,
  });
  expectError(await http(api, 'GET', `${wf(run.workflowId, 'latest')}/trace-log`), 400, 'ValidationError', {
    maybeWorkflowId: run.workflowId,
  });
  // There is no id form of the trace log.
  expectError(await http(api, 'GET', `${wf(run.workflowId)}/trace-log`), 404, 'NotFoundError');
});

test('every run of a continue-as-new chain has its own trace', async ({ api }) => {
  const { workflowId, runId: firstRunId } = await start(api, 'countdown', { n: 1 }, uniqueId('tr-chain'));
  const latest = await waitUntil(api, workflowId, 'completed');
  assert.is.not(latest.runId, firstRunId);
  const first = await http(api, 'GET', `${wf(workflowId, firstRunId)}/trace-log`);
  const second = await http(api, 'GET', `${wf(workflowId, latest.runId)}/trace-log`);
  expectStatus(first, 200);
  expectStatus(second, 200);
  assert.is.not(first.body.localPath, second.body.localPath);
  assert.equal(first.body.data.input, { n: 1 });
  assert.equal(second.body.data.input, { n: 0 });
  assert.equal(second.body.data.output, { done: true });
});

test.run();
