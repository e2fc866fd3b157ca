import * as assert from 'uvu/assert';
import { uniqueId, waitForEvent } from '../support/http.js';
import type { TestResponse } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectStatus,
  http,
  runAndWait,
  snapshot,
  start,
  statusOf,
  waitUntil,
  wf,
} from '../support/contract.js';

/** The deprecated PATCH /workflow/{id}/stop and POST /workflow/{id}/reset. */
const SUNSET = 'Thu, 16 Jul 2026 23:59:59 GMT';
const test = contractSuite('deprecated stop and reset');

/**
 * Deprecation, Sunset and a Link to the run-pinned successor. `runId` given: the link must name that run
 * (the pinned path); otherwise any pinned path of the operation.
 */
function expectDeprecated(response: TestResponse, operation: 'stop' | 'reset', workflowId: string, runId?: string): void {
  // RFC 9745: when it was deprecated, as a Structured Field Date; never after the Sunset.
  const deprecation = response.headers['deprecation'] ?? '';
  assert.match(deprecation, /^@\d+$/, `Deprecation on ${response.status}: ${deprecation}`);
  assert.ok(Number(deprecation.slice(1)) * 1000 <= Date.parse(SUNSET), `deprecated (${deprecation}) before the Sunset`);
  assert.is(response.headers['sunset'], SUNSET, `Sunset on ${response.status}`);
  const link = response.headers['link'] ?? '';
  assert.match(link, /rel="successor-version"/, `Link rel on ${response.status}: ${link}`);
  const target = /^<([^>]+)>/.exec(link)?.[1] ?? '';
  assert.match(target, new RegExp(`^/workflow/[^/]+/runs/[^/]+/${operation}$`), `the successor is the pinned ${operation}: ${link}`);
  if (runId !== undefined) assert.is(target, `${wf(workflowId, runId)}/${operation}`, 'the Link names the run acted on');
}

test('PATCH /workflow/{id}/stop stops the latest run, with Deprecation, Sunset and Link', async ({ api }) => {
  const workflowId = uniqueId('dep-stop');
  const earlier = await runAndWait(api, { workflowName: 'echo', workflowId, input: { message: 'earlier run' } });
  const { runId } = await start(api, 'cleans_up_on_stop', {}, workflowId);
  assert.is.not(runId, earlier.runId);
  await waitForEvent(api, workflowId, 'timer_started');
  const response = await http(api, 'PATCH', `${wf(workflowId)}/stop`);
  expectStatus(response, 200);
  assert.equal(response.body, { workflowId, runId });
  expectDeprecated(response, 'stop', workflowId, runId);
  await waitUntil(api, workflowId, 'cancelled', runId);
});

test('deprecated stop errors carry the headers too: unknown id 404, closed run 409, bad body 400', async ({ api }) => {
  const missing = uniqueId('dep-missing');
  const unknown = await http(api, 'PATCH', `${wf(missing)}/stop`);
  expectError(unknown, 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  expectDeprecated(unknown, 'stop', missing);

  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('dep-closed'), input: { message: 'x' } });
  const before = await snapshot(api, run.workflowId);
  const closed = await http(api, 'PATCH', `${wf(run.workflowId)}/stop`);
  expectError(closed, 409, 'WorkflowClosedError', { workflowId: run.workflowId });
  expectDeprecated(closed, 'stop', run.workflowId);
  const badBody = await http(api, 'PATCH', `${wf(run.workflowId)}/stop`, { json: { hard: true } });
  expectError(badBody, 400, 'ValidationError', { maybeWorkflowId: run.workflowId });
  expectDeprecated(badBody, 'stop', run.workflowId);
  const badId = await http(api, 'PATCH', '/workflow/a%00b/stop');
  expectError(badId, 400, 'ValidationError');
  assert.match(badId.headers['deprecation'] ?? '', /^@\d+$/);
  assert.equal(await snapshot(api, run.workflowId), before);
});

test('POST /workflow/{id}/reset resets the latest run: a new run, with Deprecation, Sunset and Link', async ({ api }) => {
  const workflowId = uniqueId('dep-reset');
  await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 100 } });
  const old = await runAndWait(api, { workflowName: 'arithmetic', workflowId, input: { n: 2 } });
  const response = await http(api, 'POST', `${wf(workflowId)}/reset`, { json: { stepName: 'add_one', reason: 'deprecated form' } });
  expectStatus(response, 200);
  assert.is(response.body.workflowId, workflowId);
  assert.is.not(response.body.runId, old.runId, 'the NEW run');
  await waitUntil(api, workflowId, 'completed', response.body.runId);
  const result = await http(api, 'GET', `${wf(workflowId, response.body.runId)}/result`);
  assert.equal(result.body.output, { result: 6 }, 'the latest run (n=2) was reset, not the earlier one');
  expectDeprecated(response, 'reset', workflowId, old.runId);
});

test('deprecated reset errors carry the headers too: 400, 404 unknown id, 404 StepNotFoundError', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('dep-reset-bad'), input: { n: 1 } });
  const before = await snapshot(api, run.workflowId);
  const noStep = await http(api, 'POST', `${wf(run.workflowId)}/reset`, { json: {} });
  expectError(noStep, 400, 'ValidationError', { maybeWorkflowId: run.workflowId });
  expectDeprecated(noStep, 'reset', run.workflowId);
  const never = await http(api, 'POST', `${wf(run.workflowId)}/reset`, { json: { stepName: 'clean_up' } });
  expectError(never, 404, 'StepNotFoundError', { workflowId: run.workflowId });
  expectDeprecated(never, 'reset', run.workflowId);
  const missing = uniqueId('dep-reset-missing');
  const unknown = await http(api, 'POST', `${wf(missing)}/reset`, { json: { stepName: 'add_one' } });
  expectError(unknown, 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  expectDeprecated(unknown, 'reset', missing);
  assert.equal(await snapshot(api, run.workflowId), before);
});

test('the pinned forms are not deprecated', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('dep-pinned'), input: { n: 1 } });
  const reset = await http(api, 'POST', `${wf(run.workflowId, run.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(reset, 200);
  const stop = await http(api, 'PATCH', `${wf(run.workflowId, reset.body.runId)}/stop`);
  assert.ok([200, 409].includes(stop.status), `pinned stop: ${stop.status}`);
  for (const response of [reset, stop]) {
    for (const name of ['deprecation', 'sunset', 'link']) assert.is(response.headers[name], undefined, `no ${name} on a pinned form`);
  }
});

test.run();

const gone = contractSuite('deprecated endpoints switched off', { DEPRECATED_ENDPOINTS: 'off' });

gone('DEPRECATED_ENDPOINTS=off: both answer 410 GoneError pointing at the pinned form, and change nothing', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'step_then_waits', { n: 1 }, uniqueId('gone'));
  await waitForEvent(api, workflowId, 'feedback_wait_started');
  const before = await snapshot(api, workflowId);

  const stop = await http(api, 'PATCH', `${wf(workflowId)}/stop`);
  expectError(stop, 410, 'GoneError', { maybeWorkflowId: workflowId });
  assert.match(stop.body.message, /\/workflow\/\{id\}\/runs\/\{rid\}\/stop|\/runs\//, 'the message names the pinned form');
  expectDeprecated(stop, 'stop', workflowId);

  const reset = await http(api, 'POST', `${wf(workflowId)}/reset`, { json: { stepName: 'add_one' } });
  expectError(reset, 410, 'GoneError', { maybeWorkflowId: workflowId });
  assert.match(reset.body.message, /\/runs\//);
  expectDeprecated(reset, 'reset', workflowId);

  assert.equal(await snapshot(api, workflowId), before, 'not stopped, not reset');
  assert.is((await statusOf(api, workflowId)).body.runId, runId);

  const pinnedStop = await http(api, 'PATCH', `${wf(workflowId, runId)}/stop`);
  expectStatus(pinnedStop, 200, 'the pinned stop still works');
  await waitUntil(api, workflowId, 'cancelled', runId);
});

gone.run();
